#!/usr/bin/env python3
"""TPC-H's lineitem and orders as hashlab columns (make tpch-data SF=1).

    python3 scripts/tpch.py --sf 1 [--out data/tpch]

runs tpchgen-cli (pip install tpchgen-cli; TPCHGEN_CLI=path names another one) and writes
    OUT/sf<SF>/lineitem/{l_orderkey,l_partkey,l_suppkey,l_returnflag,l_linestatus,
                         l_quantity,l_extendedprice}.npy
    OUT/sf<SF>/orders/{o_orderkey,o_custkey,o_totalprice}.npy
    OUT/sf<SF>/meta.json
Every file is uint32: keys as they are; l_returnflag and l_linestatus as dictionary codes of
the sorted strings (A, N, R -> 0, 1, 2; F, O -> 0, 1); the decimals l_quantity,
l_extendedprice and o_totalprice in hundredths (x 100, exact). meta.json holds the scale
factor, the generator and its version, the row counts and each column's conversion (with the
dictionaries). A run that finds the same scale factor and generator already there does nothing;
otherwise it builds the data beside OUT/sf<SF> and renames it into place, so a stopped run
leaves no half-written directory. OUT/sf<SF> is this script's: a rebuild replaces it whole.
"""
import argparse
import importlib.metadata
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from decimal import Decimal, InvalidOperation
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import to_npy  # noqa: E402  (beside this script)

TABLES = {"lineitem": ["l_orderkey", "l_partkey", "l_suppkey", "l_returnflag", "l_linestatus",
                       "l_quantity", "l_extendedprice"],
          "orders": ["o_orderkey", "o_custkey", "o_totalprice"]}
DECIMALS = {"l_quantity": 2, "l_extendedprice": 2, "o_totalprice": 2}  # TPC-H: DECIMAL(15,2)
FLAGS = {"l_returnflag": ["A", "N", "R"], "l_linestatus": ["F", "O"]}  # their codes: 0, 1, 2
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "data" / "tpch"
MISSING = "tpchgen-cli not found: run `make deps` (or pip install tpchgen-cli)"


class Failure(Exception):
    """Ends the run with this message; code 2 for bad input or a missing tool."""

    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code


def sf_name(text):
    """'1', '10', '0.01': the scale factor without trailing zeros (the directory is sf<that>)."""
    try:
        sf = Decimal(text)
    except InvalidOperation:
        sf = Decimal("NaN")
    if not sf.is_finite() or sf <= 0:
        raise Failure(f"--sf {text}: expected a positive number (1, 10, 0.01)")
    return format(sf.normalize(), "f")


def find_generator():
    """TPCHGEN_CLI, else tpchgen-cli on PATH, beside this Python, or where pip put the package
    that this Python sees (pip --user: ~/.local/bin; pip --target DIR with DIR on PYTHONPATH:
    DIR/bin)."""
    named = os.environ.get("TPCHGEN_CLI")
    if named:
        if not (os.path.isfile(named) and os.access(named, os.X_OK)):
            raise Failure(f"TPCHGEN_CLI={named}: not an executable file")
        return named
    places = [Path(sys.executable).parent / "tpchgen-cli"]
    try:  # the wheel holds the executable only, no Python module to run with -m
        dist = importlib.metadata.distribution("tpchgen-cli")
        places += [Path(f.locate()) for f in dist.files or [] if f.name == "tpchgen-cli"]
        places.append(Path(dist.locate_file("bin/tpchgen-cli")))
    except importlib.metadata.PackageNotFoundError:
        pass
    found = shutil.which("tpchgen-cli") or next((str(p) for p in places if os.access(p, os.X_OK)), None)
    if not found:
        raise Failure(MISSING)
    return found


def generator_version(exe):
    run = subprocess.run([exe, "--version"], capture_output=True, text=True)
    if run.returncode != 0 or not run.stdout.strip():
        raise Failure(f"{exe} --version failed: {run.stderr.strip()}", code=1)
    return run.stdout.strip()  # "tpchgen-cli 4.0.0"


def up_to_date(target, sf, generator):
    """True when target/meta.json is for this sf and generator and every file is there with its
    rows, as uint32."""
    try:
        meta = json.loads((target / "meta.json").read_text())
        if meta["sf"] != sf or meta["generator"] != generator:
            return False
        for table, columns in TABLES.items():
            for column in columns:
                a = np.load(target / table / f"{column}.npy", mmap_mode="r")
                if a.dtype != np.uint32 or a.shape != (meta["tables"][table],):
                    return False
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False


def read_columns(raw, table, fmt):
    """(name, column) of the generated table, one column at a time (SF 10's lineitem is 60M
    rows: only the columns we keep are ever in memory, and with Parquet only one of them)."""
    if fmt == "parquet":
        import pyarrow.parquet as pq
        for column in TABLES[table]:
            yield column, pq.read_table(raw / f"{table}.parquet", columns=[column]).column(0)
    else:  # pandas: one pass over the CSV, decimals as floats (to_npy rounds them exactly)
        import pandas as pd
        types = {c: ("category" if c in FLAGS else "float64" if c in DECIMALS else "int64")
                 for c in TABLES[table]}
        frame = pd.read_csv(raw / f"{table}.csv", usecols=TABLES[table], dtype=types)
        for column in TABLES[table]:
            yield column, frame.pop(column)


def build(exe, generator, sf_text, sf, work, fmt):
    """Generate into work/raw, convert into work/<table>/, write work/meta.json."""
    raw = work / "raw"
    started = time.time()
    run = subprocess.run([exe, fmt, "-s", sf_text, "-T", ",".join(TABLES), "-o", str(raw), "-q"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise Failure(f"{exe} failed ({run.returncode}): {run.stderr.strip()}", code=1)
    generated = time.time()
    meta = {"sf": sf, "generator": generator, "tables": {}, "columns": {}}
    for table in TABLES:
        (work / table).mkdir()
        for name, column in read_columns(raw, table, fmt):
            try:
                values, info = to_npy.convert_column(name, column, "u4", DECIMALS.get(name))
            except to_npy.ConversionError as e:
                raise Failure(f"{e} (hashlab's TPC-H columns are uint32: use a smaller --sf)") from e
            if name in FLAGS and info["dictionary"] != FLAGS[name]:
                raise Failure(f"{name}: the generator wrote {info['dictionary']}, not {FLAGS[name]}", 1)
            np.save(work / table / f"{name}.npy", values)
            rows = meta["tables"].setdefault(table, len(values))
            if rows != len(values):
                raise Failure(f"{table}: column {name} has {len(values)} rows, not {rows}", code=1)
            meta["columns"][name] = dict(info, table=table, file=f"{table}/{name}.npy")
    shutil.rmtree(raw)
    (work / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta, generated - started, time.time() - generated


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__.split("\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sf", default="1", help="TPC-H scale factor: 1 is 6M lineitem rows (default 1)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="where sf<SF>/ goes (default: data/tpch in the repository)")
    p.add_argument("--format", choices=["parquet", "csv"],
                   help="what tpchgen-cli writes before the conversion (default: parquet with "
                        "pyarrow, else csv read by pandas)")
    args = p.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a kill cleans up like Ctrl-C
    try:
        name = sf_name(args.sf)
        sf = int(name) if name.isdigit() else float(name)
        fmt = args.format or ("parquet" if to_npy.pa is not None else "csv")
        if fmt == "parquet" and to_npy.pa is None:
            raise Failure("--format parquet needs pyarrow (pip install pyarrow)")
        if fmt == "csv" and importlib.util.find_spec("pandas") is None:
            raise Failure("--format csv needs pandas (pip install pandas)")
        exe = find_generator()
        generator = generator_version(exe)
        target = args.out / f"sf{name}"
        if up_to_date(target, sf, generator):
            print(f"tpch: {target} up to date ({generator}, SF {name})")
            return 0
        print(f"tpch: generating lineitem and orders at SF {name} with {generator} ({fmt}) ...", flush=True)
        args.out.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=args.out))
        try:
            umask = os.umask(0)
            os.umask(umask)
            work.chmod(0o777 & ~umask)  # mkdtemp's 0700 would stay on the final directory
            meta, gen_s, conv_s = build(exe, generator, name, sf, work, fmt)
            if target.exists():  # stale: swap, then remove the old one
                old = args.out / f".{target.name}.old-{os.getpid()}"
                target.rename(old)
                work.rename(target)
                shutil.rmtree(old)
            else:
                work.rename(target)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    except Failure as e:
        print(f"tpch: {e}", file=sys.stderr)
        return e.code
    rows = ", ".join(f"{t} {n:,} rows" for t, n in meta["tables"].items())
    print(f"tpch: {rows} -> {target} (generated in {gen_s:.1f} s, converted in {conv_s:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
