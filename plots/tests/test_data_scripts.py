"""scripts/to_npy.py and scripts/tpch.py: every column they write equals its input (issue 17).

The TPC-H tests need tpchgen-cli (scripts/requirements-data.txt, installed by `make deps`), the
Parquet and Feather ones pyarrow; without them those tests are skipped, saying so.
"""
import contextlib
import csv
import datetime as dt
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from decimal import Decimal
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import to_npy  # noqa: E402
import tpch  # noqa: E402

try:
    import pyarrow as pa
    import pyarrow.feather
    import pyarrow.parquet
except ImportError:
    pa = None
try:
    GENERATOR, NO_GENERATOR = tpch.find_generator(), ""
except tpch.Failure as e:
    GENERATOR, NO_GENERATOR = None, f"{e}: the TPC-H tests are skipped"
NO_PYARROW = "pyarrow not installed (scripts/requirements-data.txt): Parquet and Feather are not checked"
EPOCH = dt.date(1970, 1, 1)


def script(name, *args, env=None):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *map(str, args)],
                          capture_output=True, text=True, env=env)


def days(iso_dates):
    return [(dt.date.fromisoformat(str(d)) - EPOCH).days for d in iso_dates]


class Scratch(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="hashlab-data-"))
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def load(self, out, name):
        """A written column, checked against what columns.json says of it."""
        meta = json.loads((self.dir / out / "columns.json").read_text())
        info = next(c for c in meta["columns"] if c["name"] == name)
        values = np.load(self.dir / out / info["file"])
        self.assertEqual((values.dtype.str, len(values), info["rows"]), (info["dtype"], meta["rows"], meta["rows"]))
        return values, info

    def assert_column(self, out, name, dtype, expected, conversion):
        values, info = self.load(out, name)
        self.assertEqual((values.dtype, info["conversion"]), (np.dtype(dtype), conversion), name)
        self.assertEqual(values.tolist(), list(expected), name)
        return info

    def assert_codes(self, out, name, strings):
        codes, info = self.load(out, name)
        self.assertEqual((codes.dtype, info["conversion"]), (np.uint32, "dictionary"), name)
        self.assertEqual(info["dictionary"], sorted(set(strings)), name)  # sorted: code order
        self.assertEqual([info["dictionary"][c] for c in codes], list(strings), name)


# Floats whose x 100 is not exact in binary (0.29 * 100 = 28.999999999999996): fixed point
# must round them to the decimal the file says.
PRICES = [1.25, 0.29, 100.0, 1.15, 0.07, 1234567.89]
SMALL = pd.DataFrame({"k": np.array([7, -3, 7, 2**40, 0, 5], np.int64),
                      "u": np.array([1, 2, 3, 250, 0, 9], np.uint8),
                      "price": PRICES, "ratio": [0.5, -1.5, 3.25, 1e-9, 0.0, 2.0],
                      "name": ["pear", "apple", "pear", "Été", "Zebra", "apple"],
                      "day": ["2024-02-29", "1970-01-01", "1969-12-31", "2000-01-01", "1999-12-31", "2038-01-20"]})


class ToNpyCsv(Scratch):
    """A CSV through the command line: every output equals the input; pandas alone (no pyarrow)
    writes the same bytes as pyarrow."""

    def convert(self, out):
        SMALL.to_csv(self.dir / "small.csv", index=False)
        with mock.patch("builtins.print"):
            return to_npy.main([str(self.dir / "small.csv"), str(self.dir / out),
                                "--fixed", "price=2", "--dtype", "u=u4"])

    def check(self, out):
        self.assert_column(out, "k", np.int64, SMALL.k, "integer")
        self.assert_column(out, "u", np.uint32, SMALL.u, "integer")
        info = self.assert_column(out, "price", np.int64, [125, 29, 10000, 115, 7, 123456789], "fixed-point")
        self.assertEqual(info["scale"], 2)
        self.assert_column(out, "ratio", np.float64, SMALL.ratio, "float")
        self.assert_codes(out, "name", SMALL.name)
        self.assert_column(out, "day", np.int32, days(SMALL.day), "days since 1970-01-01")

    def test_every_column_equals_the_csv_with_pyarrow_and_with_pandas_alone(self):
        engines = [("pandas", {"pa": None, "pd": pd})] + ([("pyarrow", {"pa": pa})] if pa is not None else [])
        for engine, patch in engines:
            with self.subTest(engine=engine), mock.patch.multiple(to_npy, **patch):
                self.assertEqual(self.convert(engine), 0)
                self.check(engine)
        if pa is None:
            self.skipTest("pyarrow not installed: only pandas' reading of the CSV was checked")
        for name in SMALL.columns:
            self.assertEqual((self.dir / "pandas" / f"{name}.npy").read_bytes(),
                             (self.dir / "pyarrow" / f"{name}.npy").read_bytes(), name)

    def test_columns_picks_and_orders_the_columns(self):
        SMALL.to_csv(self.dir / "small.csv", index=False)
        run = script("to_npy.py", self.dir / "small.csv", self.dir / "out", "--columns", "name,k")
        self.assertEqual(run.returncode, 0, run.stderr)
        meta = json.loads((self.dir / "out" / "columns.json").read_text())
        self.assertEqual([c["name"] for c in meta["columns"]], ["name", "k"])
        self.assertEqual(sorted(p.name for p in (self.dir / "out").iterdir()), ["columns.json", "k.npy", "name.npy"])


@unittest.skipIf(pa is None, NO_PYARROW)
class ToNpyTypedFiles(Scratch):
    """Parquet, Feather and a DataFrame with decimals, dates, categoricals and booleans."""
    FRAME = pd.DataFrame({
        "key": np.array([3, 1, 4, 1, 5], np.int32),
        "amount": [Decimal("12.34"), Decimal("-0.05"), Decimal("99999999.99"), Decimal("0.00"), Decimal("7.10")],
        "day": [dt.date(1992, 1, 2), dt.date(1970, 1, 1), dt.date(1998, 12, 1), dt.date(1969, 7, 20), dt.date(2024, 2, 29)],
        "flag": pd.Categorical(["R", "A", "N", "A", "R"], categories=["N", "R", "A", "unused"]),
        "ok": [True, False, True, True, False],
        "weight": [0.5, 1.0, 2.5, -3.0, 1e6]})

    def check(self, out):
        f = self.FRAME
        self.assert_column(out, "key", np.int32, f.key, "integer")
        info = self.assert_column(out, "amount", np.int64, [int(d * 100) for d in f.amount], "fixed-point")
        self.assertEqual(info["scale"], 2)
        self.assert_column(out, "day", np.int32, [(d - EPOCH).days for d in f.day], "days since 1970-01-01")
        self.assert_codes(out, "flag", list(f.flag))
        self.assert_codes(out, "ok", list(f.ok))
        self.assert_column(out, "weight", np.float64, f.weight, "float")

    def test_a_dataframe(self):
        to_npy.write_table(self.FRAME, self.dir / "frame")
        self.check("frame")

    def test_parquet_and_feather_files(self):
        table = pa.Table.from_pandas(self.FRAME, preserve_index=False)
        self.assertEqual(table.schema.field("amount").type, pa.decimal128(10, 2))
        pyarrow.parquet.write_table(table, self.dir / "t.parquet")
        pyarrow.feather.write_feather(table, self.dir / "t.feather")
        for name in ("t.parquet", "t.feather"):
            with self.subTest(file=name):
                run = script("to_npy.py", self.dir / name, self.dir / name.replace(".", "_"))
                self.assertEqual(run.returncode, 0, run.stderr)
                self.check(name.replace(".", "_"))

    def test_fixed_rescales_decimals_and_parses_strings_exactly(self):
        frame = pd.DataFrame({"d": [Decimal("1.5"), Decimal("-2.25")], "s": ["10.5", "-0.01"]})
        to_npy.write_table(frame, self.dir / "out", fixed={"d": 3, "s": 2})
        self.assert_column("out", "d", np.int64, [1500, -2250], "fixed-point")
        self.assert_column("out", "s", np.int64, [1050, -1], "fixed-point")
        with self.assertRaisesRegex(to_npy.ConversionError, "column 'd'"):
            to_npy.write_table(frame, self.dir / "out", fixed={"d": 1})  # -2.25 has 2 decimals

    def test_a_time_zone_is_unsupported_naming_the_column(self):
        when = pa.array([0, 86400], pa.timestamp("s", tz="Europe/Paris"))
        pyarrow.parquet.write_table(pa.table({"when": when}), self.dir / "t.parquet")
        run = script("to_npy.py", self.dir / "t.parquet", self.dir / "out")
        self.assertEqual(run.returncode, 2)
        self.assertIn("column 'when': unsupported type timestamp", run.stderr)


class ToNpyBadInput(Scratch):
    """Each bad input: exit 2 and one line on stderr that names the file, option or column."""

    def fails(self, csv_text, *args, says):
        """With pyarrow (when installed) and with pandas alone."""
        (self.dir / "in.csv").write_text(csv_text)
        for engine in [{"pa": None, "pd": pd}] + ([{"pa": pa}] if pa is not None else []):
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr), \
                    mock.patch.multiple(to_npy, **engine):
                code = to_npy.main([str(self.dir / "in.csv"), str(self.dir / "out"), *args])
            self.assertEqual(code, 2, stdout.getvalue() + stderr.getvalue())
            self.assertEqual(len(stderr.getvalue().strip().splitlines()), 1, stderr.getvalue())
            self.assertIn(says, stderr.getvalue())
            self.assertFalse((self.dir / "out" / "columns.json").exists())

    def test_a_null_names_its_column_and_row(self):
        self.fails("a,b\n1,2\n3,\n", says="column 'b': 1 null or NaN values (the first at row 1)")

    def test_a_nan_is_a_null(self):
        self.fails("a,b\n1,2.5\n3,nan\n", says="column 'b'")

    def test_an_empty_string_is_a_null(self):
        self.fails("a,s\n1,x\n2,\n3,y\n", says="column 's': 1 null or NaN values (the first at row 1)")

    def test_fixed_on_strings_that_are_not_decimals(self):
        self.fails("s\n1.2\n1.25x\n", "--fixed", "s=1", says="column 's': not all decimals with at most 1 digits")

    def test_a_null_in_a_dataframe(self):
        frames = [pd.DataFrame({"s": ["x", None]}), pd.DataFrame({"i": pd.array([1, None], "Int64")})]
        for frame in frames:
            with self.assertRaisesRegex(to_npy.ConversionError, f"column '{frame.columns[0]}': 1 null"):
                to_npy.write_table(frame, self.dir / "out")

    def test_an_unknown_column(self):
        self.fails("a,b\n1,2\n", "--columns", "a,zz", says="no column 'zz'")

    def test_an_unknown_column_in_dtype(self):
        self.fails("a,b\n1,2\n", "--dtype", "zz=u4", says="--dtype: no column 'zz'")

    def test_a_value_out_of_dtype_range_is_named(self):
        self.fails("a,b\n1,2\n-1,5\n", "--dtype", "a=u4", says="column 'a': value -1 does not fit uint32")
        self.fails("a,b\n1,4294967296\n", "--dtype", "b=u4", says="column 'b': value 4294967296 does not fit uint32")

    def test_not_a_dtype(self):
        self.fails("a\n1\n", "--dtype", "a=u9", says="--dtype a=u9: not a numpy dtype")

    def test_a_float_with_more_decimals_than_fixed(self):
        self.fails("p\n2.675\n", "--fixed", "p=2", says="column 'p': 2.675 has more than 2 digits")

    def test_fixed_on_an_integer_column(self):
        self.fails("a\n1\n", "--fixed", "a=2", says="column 'a': --fixed applies to")

    def test_a_missing_file_and_an_unknown_type(self):
        run = script("to_npy.py", self.dir / "nothere.csv", self.dir / "out")
        self.assertEqual((run.returncode, run.stderr.strip()), (2, f"to_npy: {self.dir / 'nothere.csv'}: no such file"))
        (self.dir / "x.xlsx").write_text("")
        run = script("to_npy.py", self.dir / "x.xlsx", self.dir / "out")
        self.assertEqual(run.returncode, 2)
        self.assertIn("x.xlsx: unknown file type '.xlsx'", run.stderr)

    def test_help_explains_the_conversions(self):
        run = script("to_npy.py", "--help")
        self.assertEqual(run.returncode, 0)
        for words in ("dictionary codes", "fixed-point", "days since 1970-01-01", "--dtype", "--fixed", "null"):
            self.assertIn(words, run.stdout)


class ToNpyDatetimes(Scratch):
    """pandas' datetime64 columns: days when every time is midnight, else an error."""

    def test_midnights_are_days_and_a_time_of_day_is_an_error(self):
        for engine in [{"pa": None, "pd": pd}] + ([{"pa": pa}] if pa is not None else []):
            with self.subTest(pyarrow=engine.get("pa") is not None), mock.patch.multiple(to_npy, **engine):
                dates = pd.DataFrame({"d": pd.to_datetime(["2024-02-29", "1969-12-31", "1970-01-01"])})
                to_npy.write_table(dates, self.dir / "out")
                self.assert_column("out", "d", np.int32, [19782, -1, 0], "days since 1970-01-01")
                times = pd.DataFrame({"t": pd.to_datetime(["2024-02-29 00:00", "1969-12-31 12:30"])})
                with self.assertRaisesRegex(to_npy.ConversionError, "column 't': has times of day"):
                    to_npy.write_table(times, self.dir / "out")


class TpchHelpers(unittest.TestCase):
    def test_scale_factor_names(self):
        for given, name in [("1", "1"), ("10", "10"), ("10.0", "10"), ("0.010", "0.01"), ("1e1", "10"), ("0.5", "0.5")]:
            self.assertEqual(tpch.sf_name(given), name)
        for bad in ("0", "-1", "abc", "inf", "nan"):
            with self.assertRaisesRegex(tpch.Failure, f"--sf {bad}: expected a positive number"):
                tpch.sf_name(bad)

    def test_no_generator_says_how_to_install_it(self):
        with mock.patch.dict(os.environ, {"TPCHGEN_CLI": ""}), \
                mock.patch.object(tpch.shutil, "which", return_value=None), \
                mock.patch.object(tpch.sys, "executable", "/nonexistent/python3"), \
                mock.patch.object(tpch.importlib.metadata, "distribution",
                                  side_effect=tpch.importlib.metadata.PackageNotFoundError):
            with self.assertRaises(tpch.Failure) as caught:
                tpch.find_generator()
        self.assertEqual(str(caught.exception),
                         "tpchgen-cli not found: run `make deps` (or pip install tpchgen-cli)")
        self.assertEqual(caught.exception.code, 2)

    def test_a_bad_tpchgen_cli_variable_is_named(self):
        run = script("tpch.py", "--sf", "0.01", "--out", "/nonexistent/tpch",
                     env=dict(os.environ, TPCHGEN_CLI="/nonexistent/tpchgen-cli"))
        self.assertEqual((run.returncode, run.stderr.strip()),
                         (2, "tpch: TPCHGEN_CLI=/nonexistent/tpchgen-cli: not an executable file"))


@unittest.skipIf(GENERATOR is None, NO_GENERATOR)
class Tpch(unittest.TestCase):
    """SF 0.01 through scripts/tpch.py, against the generator's own CSV of the same tables."""
    SF = 0.01
    FILES = {f"{t}/{c}.npy" for t, cs in tpch.TABLES.items() for c in cs} | {"meta.json"}

    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="hashlab-tpch-"))
        cls.first = script("tpch.py", "--sf", "0.010", "--out", cls.dir)
        cls.second = script("tpch.py", "--sf", "0.01", "--out", cls.dir)
        cls.sf = cls.dir / "sf0.01"
        subprocess.run([GENERATOR, "csv", "-s", "0.01", "-T", "lineitem,orders", "-o", cls.dir / "raw", "-q"], check=True)
        cls.raw = {}
        for table in tpch.TABLES:
            with open(cls.dir / "raw" / f"{table}.csv", newline="") as f:
                rows = list(csv.DictReader(f))
            cls.raw[table] = {c: [r[c] for r in rows] for c in tpch.TABLES[table]}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def column(self, name):
        table = "lineitem" if name.startswith("l_") else "orders"
        return np.load(self.sf / table / f"{name}.npy")

    def test_the_layout_exactly(self):
        self.assertEqual(self.first.returncode, 0, self.first.stderr)
        self.assertIn("lineitem 60,175 rows, orders 15,000 rows", self.first.stdout)
        files = {str(p.relative_to(self.sf)) for p in self.sf.rglob("*") if p.is_file()}
        self.assertEqual(files, self.FILES)
        self.assertEqual(sorted(p.name for p in self.dir.iterdir()), ["raw", "sf0.01"])  # no temp dirs left
        meta = json.loads((self.sf / "meta.json").read_text())
        self.assertEqual(meta["sf"], 0.01)
        self.assertEqual(meta["generator"], subprocess.run([GENERATOR, "--version"], capture_output=True, text=True).stdout.strip())
        self.assertRegex(meta["generator"], r"^tpchgen-cli \d+\.\d+")
        self.assertEqual(meta["tables"], {t: len(self.raw[t][cs[0]]) for t, cs in tpch.TABLES.items()})
        for name in (f for f in self.FILES if f.endswith(".npy")):
            a = np.load(self.sf / name)
            self.assertEqual((a.dtype.str, a.shape), ("<u4", (meta["tables"][name.split("/")[0]],)), name)
            self.assertEqual(meta["columns"][Path(name).stem]["file"], name)

    def test_row_counts_and_cardinalities_follow_the_spec(self):
        # TPC-H 4.2.5: 1.5M orders, 10K suppliers, 200K parts, 150K customers per unit of scale;
        # 1 to 7 lines per order; only customers whose key is not a multiple of 3 order.
        orders, lines = len(self.column("o_orderkey")), len(self.column("l_orderkey"))
        self.assertEqual(orders, 15000)
        self.assertTrue(4 * orders * 0.97 < lines < 4 * orders * 1.03, lines)
        self.assertEqual(len(np.unique(self.column("o_orderkey"))), orders)
        self.assertEqual(set(np.unique(self.column("l_orderkey"))), set(self.column("o_orderkey").tolist()))
        for name, per_sf in (("l_suppkey", 10_000), ("l_partkey", 200_000), ("o_custkey", 150_000)):
            keys = self.column(name)
            self.assertTrue(1 <= keys.min() and keys.max() <= per_sf * self.SF, name)
            distinct = len(np.unique(keys))
            self.assertTrue(0.6 * per_sf * self.SF <= distinct <= per_sf * self.SF, (name, distinct))
        self.assertEqual(len(np.unique(self.column("l_suppkey"))), 100)
        self.assertFalse((self.column("o_custkey") % 3 == 0).any())

    def test_flags_are_codes_of_the_sorted_strings(self):
        meta = json.loads((self.sf / "meta.json").read_text())
        for name, dictionary in (("l_returnflag", ["A", "N", "R"]), ("l_linestatus", ["F", "O"])):
            self.assertEqual(meta["columns"][name]["dictionary"], dictionary)
            self.assertEqual([dictionary[c] for c in self.column(name)], self.raw["lineitem"][name], name)

    def test_keys_and_fixed_point_values_equal_the_generated_text(self):
        for table, columns in tpch.TABLES.items():
            for name in columns:
                if name in tpch.FLAGS:
                    continue
                scale = 100 if name in tpch.DECIMALS else 1
                expected = [int(Decimal(v) * scale) for v in self.raw[table][name]]
                self.assertEqual(self.column(name).tolist(), expected, name)

    def test_a_second_run_is_up_to_date_and_a_stale_one_is_rebuilt(self):
        self.assertEqual(self.second.returncode, 0, self.second.stderr)
        self.assertIn("up to date", self.second.stdout)
        meta_file = self.sf / "meta.json"
        before = {f: (self.sf / f).read_bytes() for f in self.FILES if f != "meta.json"}
        meta = json.loads(meta_file.read_text())
        meta_file.write_text(json.dumps(dict(meta, generator="tpchgen-cli 0.0")))
        # The rebuild goes through CSV and pandas: the other reader, the same bytes.
        run = script("tpch.py", "--sf", "0.01", "--out", self.dir, "--format", "csv")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertNotIn("up to date", run.stdout)
        self.assertEqual(json.loads(meta_file.read_text())["generator"], meta["generator"])
        for name, data in before.items():
            self.assertEqual((self.sf / name).read_bytes(), data, name)
        self.assertEqual(sorted(p.name for p in self.dir.iterdir()), ["raw", "sf0.01"])


if __name__ == "__main__":
    unittest.main()
