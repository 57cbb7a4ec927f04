"""The suite's multi-threaded CPU algorithms (common/include/hashlab/reference/cpu_baselines.hpp):
the CPU baselines the papers compare against (RAPIDS' and EGA's CPU group-by, HashGraph's and the
pk-pk join's CPU joins). Radix-partitioned hash algorithms on std::thread; their answers equal the
references'.

    cpu.groupby(df, ["v", "w"], ["sum", "count"], by="k")   # DataFrame, sorted by key
    cpu.join_count(r, s)
"""
from . import _core
from ._arrays import column
from ._tables import aggregations, as_columns, frame, groupby_columns, output_names


def default_threads():
    """The threads the CPU algorithms use by default: the machine's hardware threads."""
    return _core.cpu_default_threads()


def groupby(data, values=None, aggs="sum", *, by=None, threads=0):
    """The multi-threaded CPU group-by of one key column: one pass per (value column, aggregation),
    the answer as reference.groupby gives it (groups in ascending key order, "<agg>_<value>")."""
    keys, vals = groupby_columns(data, by, values)
    if len(keys) != 1:
        raise ValueError(f"the CPU group-by groups by one 32-bit key column; {len(keys)} key columns given "
                         "(reference.groupby takes up to 8)")
    ops = aggregations(aggs)
    key_arrays, agg_arrays = _core.cpu_groupby(as_columns(keys)[0], as_columns(vals), ops, threads)
    return frame(output_names(keys, vals, ops), key_arrays + agg_arrays)


def estimate_groups(keys):
    """The number of distinct keys, estimated from a sample of 65536 rows spread over the input
    (exact up to that many rows): what the CPU group-by chooses its strategy by."""
    return _core.cpu_estimate_groups(column(keys, "keys"))


def join_count(r, s, *, threads=0):
    """Inner join count of r and s (keys may repeat): build on r, probe with s."""
    return _core.cpu_join_count(column(r, "r"), column(s, "s"), threads)


def join(r, s, *, threads=0):
    """Every (r_index, s_index) with r[r_index] == s[s_index], sorted, as a DataFrame."""
    ri, si = _core.cpu_join(column(r, "r"), column(s, "s"), threads)
    return frame(["r_index", "s_index"], [ri, si])
