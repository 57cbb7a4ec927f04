"""Tables in, tables out: the group-by's and join's inputs from a DataFrame (or a mapping of
name -> array) or from bare arrays, and their answers as pandas DataFrames."""
import numpy as np

from ._arrays import column, is_table, named_columns

AGGREGATIONS = ("sum", "min", "max", "count", "mean")


def aggregations(aggs):
    """`aggs` as a list of names: one name ("sum") or several (["sum", "mean"])."""
    return [aggs] if isinstance(aggs, str) else list(aggs)


def groupby_columns(data, by, values):
    """(key columns, value columns), each a list of (name, array):

    - `data` the key array (or a list of key arrays) and `values` the value array(s):
      groupby(keys, values, "sum");
    - `data` a DataFrame or a mapping name -> array: `by` names its key column(s), `values` its
      value column(s) (default: every other column): groupby(df, "v", by="k").
    """
    if is_table(data):
        if by is None:
            raise ValueError("by= names the key column(s) of the table")
        by_names = [by] if isinstance(by, str) else list(by)
        if values is None:
            names = list(data.keys()) if hasattr(data, "keys") and not hasattr(data, "columns") else list(data.columns)
            values = [n for n in names if n not in by_names]
        elif isinstance(values, str):
            values = [values]
        return named_columns(data, by_names, "key"), named_columns(data, values, "value")
    if by is not None:
        raise ValueError("by= names columns of a table (a DataFrame or a dict); with arrays, pass the keys "
                         "first and values=")
    if values is None:
        raise ValueError("values= gives the value array(s) to aggregate")
    return named_columns(None, data, "key"), named_columns(None, values, "value")


def as_columns(named):
    """[(name, array)] as hashlab._core.Column objects (read in place)."""
    return [column(array, name) for name, array in named]


def output_names(keys, values, aggs):
    """The key columns' names, then "<agg>_<value>" per value column and aggregation (the names
    `hashlab groupby --out` writes)."""
    return [n for n, _ in keys] + [f"{a}_{n}" for n, _ in values for a in aggs]


def frame(names, arrays):
    """A pandas DataFrame of the arrays (host arrays are taken without a copy where pandas can)."""
    import pandas

    return pandas.DataFrame({n: np.asarray(a) for n, a in zip(names, arrays)}, copy=False)
