"""The CPU references: the single-threaded, written-for-clarity oracles every GPU answer of the
suite is checked against (common/include/hashlab/reference/), plus the sort-based multi-threaded
ones that stand in for them on large inputs. They run on any machine; device arrays are copied to
the host first.

    reference.groupby(df, "v", ["sum", "mean"], by=["k1", "k2"])   # DataFrame
    reference.join(r, s)               # every (r_index, s_index) with r[i] == s[j]
    reference.map_lookup(keys, values, queries)
"""
import numpy as np

from . import _core
from ._arrays import column
from ._tables import aggregations, as_columns, frame, groupby_columns, output_names

NOT_FOUND = _core.NOT_FOUND
"""What map_lookup returns for a query whose key is absent (0xffffffff)."""


def groupby(data, values=None, aggs="sum", *, by=None, sorted=False, threads=0):
    """The reference group-by of `data` (the key array(s), with `values` the value array(s); or a
    DataFrame or mapping whose key columns `by` names, `values` naming value columns, by default
    every other column): groups in ascending key order, then one column per (value column,
    aggregation) named "<agg>_<value>". Aggregations: sum, min, max, count, mean. Integer values
    aggregate exactly (int64), reals and every mean as float64. sorted=True: the sort-based
    multi-threaded reference (equal bit for bit), on `threads` threads (0: one per 64Ki rows)."""
    keys, vals = groupby_columns(data, by, values)
    ops = aggregations(aggs)
    key_arrays, agg_arrays = _core.reference_groupby(as_columns(keys), as_columns(vals), ops, sorted, threads)
    return frame(output_names(keys, vals, ops), key_arrays + agg_arrays)


def join_count(r, s, *, sorted=False, threads=0):
    """The number of (i, j) with r[i] == s[j] (keys may repeat on both sides). sorted=True: by
    radix sorts and a merge on `threads` threads (the checks' answer for large inputs)."""
    return _core.reference_join_count(column(r, "r"), column(s, "s"), sorted, threads)


def join(r, s):
    """Every (r_index, s_index) with r[r_index] == s[s_index], sorted by (r_index, s_index), as a
    DataFrame."""
    ri, si = _core.reference_inner_join(column(r, "r"), column(s, "s"))
    return frame(["r_index", "s_index"], [ri, si])


def pkpk_join(r, s):
    """The join of two key columns whose keys are unique within each (ValueError naming a key that
    repeats): (key, r_index, s_index) sorted by key."""
    key, ri, si = _core.reference_pkpk_join(column(r, "r"), column(s, "s"))
    return frame(["key", "r_index", "s_index"], [key, ri, si])


def map_lookup(keys, values, queries):
    """Per query, the value stored with its key (keys unique: ValueError naming a repeat), or
    NOT_FOUND."""
    return _core.reference_map_lookup(column(keys, "keys"), column(values, "values"), column(queries, "queries"))


def distinct_keys(keys):
    """The distinct keys, ascending."""
    return _core.reference_distinct_keys(column(keys, "keys"))


def set_contains(keys, queries):
    """Per query, whether its key is among `keys` (a bool array)."""
    return _core.reference_set_contains(column(keys, "keys"), column(queries, "queries")).astype(bool)


def sort_keys(keys):
    """The keys in ascending order."""
    return _core.reference_sort_keys(column(keys, "keys"))


def sort_pairs(keys, values):
    """(keys, values) sorted by key, pairs with equal keys in input order (a stable sort)."""
    return _core.reference_sort_pairs(column(keys, "keys"), column(values, "values"))


def multimap(keys, values, queries):
    """A multimap from each key to all its values, probed with `queries`: (counts, offsets, found)
    where query i's values (ascending) are found[offsets[i]:offsets[i + 1]]."""
    return _core.reference_multimap(column(keys, "keys"), column(values, "values"), column(queries, "queries"))


def lookup(keys, values, queries):
    """Per query: (count, value), the build rows holding its key and the smallest of their values
    (0 when count is 0): the answer `hashlab table` gives, from the multimap."""
    counts, offsets, found = multimap(keys, values, queries)
    smallest = np.zeros(len(counts), dtype=np.uint32)
    hit = counts > 0
    smallest[hit] = found[offsets[:-1][hit]]
    return counts, smallest
