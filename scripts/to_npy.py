#!/usr/bin/env python3
"""Turn a table into one .npy file per column, the form hashlab's commands read.

From a file (Parquet, Feather / Arrow IPC, CSV or TSV):
    python3 scripts/to_npy.py sales.parquet data/sales --columns store,item,amount
From Python (a pandas DataFrame or a pyarrow Table):
    sys.path.insert(0, "scripts"); import to_npy
    to_npy.write_table(df, "data/sales", dtypes={"store": "u4"}, fixed={"amount": 2})

Every column becomes OUT/<name>.npy; OUT/columns.json gives each file's name, dtype, rows and
how it was converted:
  integers      keep their integer dtype (int64 stays int64)
  floats        float64
  decimals      fixed-point integers, int64: the value x 10^scale, the scale from the decimal
                type (12.34 with scale 2 is 1234); --fixed COL=2 does the same for floats or
                strings that hold decimals (a value with more digits is an error)
  strings, categoricals, booleans
                dictionary codes, uint32: code i is the i-th distinct value in sorted order;
                the dictionary is in columns.json
  dates         days since 1970-01-01, int32
--dtype COL=u4 stores an integer result as another dtype (u4 = uint32, i8 = int64, ...),
checking that every value fits. hashlab has no nulls: a null (or NaN) is an error; fill or drop
them first. pyarrow reads the files when it is installed; without it pandas reads CSV only.
"""
import argparse
import json
import re
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path

import numpy as np

try:
    import pyarrow as pa
    import pyarrow.compute as pc
    pd = None  # not needed: pyarrow converts a DataFrame's columns itself
except ImportError:
    pa = None
    try:
        import pandas as pd  # reads CSV instead
    except ImportError:
        pd = None


class ConversionError(Exception):
    """Bad input; the message names the file, option or column."""


FORMATS = {".parquet": "parquet", ".pq": "parquet", ".feather": "feather", ".arrow": "feather",
           ".ipc": "feather", ".csv": "csv", ".tsv": "tsv"}
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def read_table(path, columns=None):
    """The file's columns (all, or the named ones in that order) as a pyarrow Table, or as a
    pandas DataFrame when pyarrow is missing (CSV and TSV only)."""
    path = Path(path)
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise ConversionError(f"{path}: unknown file type '{path.suffix}' "
                              f"(expected {', '.join(sorted(FORMATS))})")
    if not path.is_file():
        raise ConversionError(f"{path}: no such file")
    sep = "\t" if kind == "tsv" else ","
    try:
        if pa is None:
            if kind not in ("csv", "tsv"):
                raise ConversionError(f"{path}: reading {kind} files needs pyarrow (pip install pyarrow)")
            _check_columns(path, list(pd.read_csv(path, sep=sep, nrows=0).columns), columns)
            return pd.read_csv(path, sep=sep, usecols=columns)[columns] if columns else pd.read_csv(path, sep=sep)
        if kind == "parquet":
            import pyarrow.parquet as pq
            _check_columns(path, pq.read_schema(path).names, columns)
            return pq.read_table(path, columns=columns)
        if kind == "feather":
            import pyarrow.feather as feather
            table = feather.read_table(path)
            _check_columns(path, table.column_names, columns)
            return table.select(columns) if columns else table
        import pyarrow.csv as pacsv
        parse = pacsv.ParseOptions(delimiter=sep)
        with pacsv.open_csv(path, parse_options=parse) as reader:
            _check_columns(path, reader.schema.names, columns)
        convert = pacsv.ConvertOptions(include_columns=columns, strings_can_be_null=True)  # as pandas
        return pacsv.read_csv(path, parse_options=parse, convert_options=convert)
    except ConversionError:
        raise
    except Exception as e:  # pyarrow's and pandas' parse errors: say which file
        raise ConversionError(f"{path}: cannot read it as {kind}: {e}") from e


def _check_columns(path, names, wanted):
    for name in wanted or []:
        if name not in names:
            raise ConversionError(f"{path}: no column '{name}' (it has: {', '.join(map(str, names))})")


def convert_column(name, column, dtype=None, fixed=None):
    """One column (pyarrow Array / ChunkedArray, pandas Series or numpy array) as a numpy array,
    and a dict saying how it was converted. dtype: the integer dtype to store (range-checked);
    fixed: the number of decimals of a fixed-point result."""
    if pa is not None:
        if not isinstance(column, (pa.Array, pa.ChunkedArray)):
            column = pa.array(column, from_pandas=True)  # NaN and None become nulls
        values, info = _from_arrow(name, column, fixed)
    else:
        values, info = _from_pandas(name, pd.Series(column), fixed)
    if values.dtype.kind == "f" and np.isnan(values).any():
        _null_error(name, np.isnan(values))
    if dtype is not None:
        values = _narrow(name, values, dtype)
    return values, dict(name=name, dtype=values.dtype.str, rows=len(values), **info)


def _from_arrow(name, col, fixed):
    t = col.type
    if col.null_count:
        _null_error(name, np.asarray(pc.is_null(col)))
    info = {"source_type": str(t)}
    if pa.types.is_dictionary(t):  # e.g. a pandas categorical: decode, then code it again
        col, t = col.cast(t.value_type), t.value_type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or "string_view" in str(t):
        col, t = col.cast(pa.large_string()), pa.large_string()  # one string type from here on
    strings = pa.types.is_large_string(t)
    if fixed is not None and (pa.types.is_decimal(t) or strings):
        try:  # exact: fails rather than drop a digit
            col, t = col.cast(pa.decimal128(38, fixed)), pa.decimal128(38, fixed)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise ConversionError(f"column '{name}': not all decimals with at most {fixed} digits "
                                  f"after the point ({e})") from e
    if pa.types.is_decimal(t):
        return _unscaled(name, col), dict(info, conversion="fixed-point", scale=t.scale)
    if fixed is not None and not pa.types.is_floating(t):
        raise ConversionError(f"column '{name}': --fixed applies to float, decimal or string "
                              f"columns, not {t}")
    if strings or pa.types.is_boolean(t):
        dictionary = pc.unique(col)
        dictionary = dictionary.take(pc.array_sort_indices(dictionary))
        codes = pc.index_in(col, value_set=dictionary).to_numpy().astype(np.uint32)
        return codes, dict(info, conversion="dictionary", dictionary=dictionary.to_pylist())
    if pa.types.is_date(t):
        days = col.cast(pa.date32()).cast(pa.int32()).to_numpy()
        return days, dict(info, conversion="days since 1970-01-01")
    if pa.types.is_timestamp(t) and not t.tz:  # pandas' datetime64: dates if all at midnight
        ticks = col.cast(pa.int64()).to_numpy()
        per_day = 86400 * {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[t.unit]
        if (ticks % per_day).any():
            raise ConversionError(f"column '{name}': has times of day (dates are supported)")
        return (ticks // per_day).astype(np.int32), dict(info, conversion="days since 1970-01-01")
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return _number(name, col.to_numpy(), fixed, info)
    raise ConversionError(f"column '{name}': unsupported type {t} (integers, floats, decimals, "
                          "strings, booleans and dates are)")


def _unscaled(name, col):
    """A decimal128 column's stored integers (the value x 10^scale, exactly) as int64."""
    parts = []
    for chunk in (col.chunks if isinstance(col, pa.ChunkedArray) else [col]):
        if not pa.types.is_decimal128(chunk.type):  # decimal32, 64 or 256
            try:
                chunk = chunk.cast(pa.decimal128(38, chunk.type.scale))
            except pa.ArrowInvalid as e:
                raise ConversionError(f"column '{name}': a value does not fit 38 digits ({e})") from e
        words = np.frombuffer(chunk.buffers()[1], dtype="<i8")[2 * chunk.offset:2 * (chunk.offset + len(chunk))]
        low, high = words[0::2], words[1::2]  # each value is 128 bits, low word first
        if not np.array_equal(high, low >> 63):
            bad = chunk[int(np.flatnonzero(high != low >> 63)[0])]
            raise ConversionError(f"column '{name}': value {bad} does not fit a 64-bit integer")
        parts.append(low)
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def _from_pandas(name, s, fixed):
    """The same conversions without pyarrow, for what pandas reads from a CSV."""
    if s.isna().any():
        _null_error(name, s.isna().to_numpy())
    info = {"source_type": str(s.dtype)}
    if isinstance(s.dtype, pd.CategoricalDtype):
        s = s.astype(s.cat.categories.dtype)
    a = s.to_numpy()
    if a.dtype.kind in "iuf":
        return _number(name, a, fixed, info)
    if a.dtype.kind == "M":
        days = a.astype("datetime64[D]")
        if (days != a).any():
            raise ConversionError(f"column '{name}': has times of day (dates are supported)")
        return days.astype(np.int32), dict(info, conversion="days since 1970-01-01")
    if fixed is not None:
        return _parse_fixed(name, a, fixed), dict(info, conversion="fixed-point", scale=fixed)
    if a.dtype.kind == "O" and len(a) and all(isinstance(v, str) and ISO_DATE.match(v) for v in a):
        try:  # as pyarrow's CSV reader does with ISO dates; "2024-13-01" stays a string
            return a.astype("datetime64[D]").astype(np.int32), dict(info, conversion="days since 1970-01-01")
        except ValueError:
            pass
    if a.dtype.kind == "b" or all(isinstance(v, str) for v in a):
        dictionary, codes = np.unique(a, return_inverse=True)
        return codes.astype(np.uint32).reshape(-1), dict(info, conversion="dictionary",
                                                         dictionary=dictionary.tolist())
    raise ConversionError(f"column '{name}': unsupported values of type {s.dtype} "
                          "(without pyarrow: integers, floats, strings, booleans and dates)")


def _parse_fixed(name, strings, scale):
    out = np.empty(len(strings), np.int64)
    for i, text in enumerate(strings):
        try:
            v = Decimal(str(text)).scaleb(scale)
        except InvalidOperation:
            v = Decimal("NaN")
        if not v.is_finite() or v != v.to_integral_value():
            raise ConversionError(f"column '{name}': not all decimals with at most {scale} digits "
                                  f"after the point ('{text}')")
        out[i] = int(v)
    return out


def _number(name, a, fixed, info):
    if a.dtype.kind in "iu":
        if fixed is not None:
            raise ConversionError(f"column '{name}': --fixed applies to float, decimal or string "
                                  f"columns, not {a.dtype}")
        return a, dict(info, conversion="integer")
    a = a.astype(np.float64)
    if fixed is None:
        return a, dict(info, conversion="float")
    if np.isnan(a).any():
        _null_error(name, np.isnan(a))
    scaled = np.round(a * 10.0 ** fixed)
    # 12.34 is stored as the nearest double; x 100 is near 1234, and 1234 / 100 rounds back to
    # exactly that double. A value that does not has more than `fixed` decimals (or is huge).
    wrong = (scaled / 10.0 ** fixed != a) | (np.abs(scaled) >= 2.0 ** 53)
    if wrong.any():
        raise ConversionError(f"column '{name}': {float(a[wrong.argmax()])!r} has more than {fixed} "
                              "digits after the point (or is too large)")
    return scaled.astype(np.int64), dict(info, conversion="fixed-point", scale=fixed)


def _narrow(name, values, dtype):
    try:
        target = np.dtype(dtype)
    except TypeError as e:
        raise ConversionError(f"--dtype {name}={dtype}: not a numpy dtype (u4, i8, ...)") from e
    if target.kind not in "iu" or values.dtype.kind not in "iu":
        raise ConversionError(f"--dtype {name}={dtype}: only integer results are retyped "
                              f"(this column is {values.dtype}; floats take --fixed)")
    limits = np.iinfo(target)
    if len(values):
        for bad in (values.min(), values.max()):
            if not limits.min <= int(bad) <= limits.max:
                raise ConversionError(f"column '{name}': value {bad} does not fit {target} "
                                      f"({limits.min} .. {limits.max})")
    return values.astype(target)


def _null_error(name, mask):
    rows = np.flatnonzero(mask)
    raise ConversionError(f"column '{name}': {len(rows)} null or NaN values (the first at row "
                          f"{rows[0]}); hashlab has no nulls: fill or drop them first")


def table_columns(table, columns=None):
    """(name, column) pairs of a pyarrow Table or pandas DataFrame, all or the named ones."""
    names = [str(n) for n in (table.column_names if pa is not None and isinstance(table, pa.Table)
                              else table.columns)]
    if len(set(names)) != len(names):
        raise ConversionError("the table has two columns of the same name")
    for name in columns or []:
        if name not in names:
            raise ConversionError(f"no column '{name}' (the table has: {', '.join(names)})")
    pick = columns or names
    if pa is not None and isinstance(table, pa.Table):
        return [(n, table.column(n)) for n in pick]
    return [(n, table[table.columns[names.index(n)]]) for n in pick]


def write_table(table, out_dir, columns=None, dtypes=None, fixed=None, source=None, log=None):
    """Write the table's columns as OUT/<name>.npy plus OUT/columns.json; returns the latter's
    content. dtypes / fixed: {column: dtype} / {column: decimals}."""
    dtypes, fixed = dtypes or {}, fixed or {}
    pairs = table_columns(table, columns)
    names = [n for n, _ in pairs]
    for option, given in (("--dtype", dtypes), ("--fixed", fixed)):
        for name in given:
            if name not in names:
                raise ConversionError(f"{option}: no column '{name}' among {', '.join(names)}")
    for name in names:
        if not name or name.startswith(".") or "/" in name or "\\" in name:
            raise ConversionError(f"column '{name}': not usable as a file name; rename it")
    converted = [convert_column(n, c, dtypes.get(n), fixed.get(n)) for n, c in pairs]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    infos = []
    for values, info in converted:
        np.save(out_dir / f"{info['name']}.npy", values)
        infos.append(dict(info, file=f"{info['name']}.npy"))
        if log:
            log(f"  {info['name']:<20} {info['source_type']:<18} -> {info['dtype']:<4} {info['conversion']}")
    meta = {"source": str(source) if source else None,
            "rows": infos[0]["rows"] if infos else 0, "columns": infos}
    (out_dir / "columns.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def _pairs(option, texts, convert):
    out = {}
    for text in texts or []:
        for item in text.split(","):
            name, eq, value = item.partition("=")
            if not eq or not name or not value:
                raise ConversionError(f"{option} '{item}': expected COLUMN=VALUE")
            try:
                out[name] = convert(value)
            except ValueError as e:
                raise ConversionError(f"{option} '{item}': {e}") from e
    return out


def _decimals(text):
    if not text.isdigit() or int(text) > 18:
        raise ValueError("the number of decimals is 0 to 18")
    return int(text)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__.split("\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="a .parquet, .feather / .arrow, .csv or .tsv file")
    p.add_argument("out_dir", help="where the .npy files and columns.json go (created)")
    p.add_argument("--columns", help="comma-separated columns to convert (default: all)")
    p.add_argument("--dtype", action="append", metavar="COL=DTYPE",
                   help="store an integer result as DTYPE (u4, i4, u8, ...), range-checked; repeatable")
    p.add_argument("--fixed", action="append", metavar="COL=DECIMALS",
                   help="store a float / string / decimal column as value x 10^DECIMALS, int64; repeatable")
    args = p.parse_args(argv)
    try:
        columns = args.columns.split(",") if args.columns else None
        dtypes = _pairs("--dtype", args.dtype, str)
        fixed = _pairs("--fixed", args.fixed, _decimals)
        if pa is None and pd is None:
            raise ConversionError("needs pyarrow or pandas (pip install pyarrow)")
        table = read_table(args.input, columns)
        meta = write_table(table, args.out_dir, columns, dtypes, fixed, source=args.input, log=print)
    except ConversionError as e:
        print(f"to_npy: {e}", file=sys.stderr)
        return 2
    print(f"to_npy: {len(meta['columns'])} columns of {meta['rows']} rows -> {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
