"""The CPU references from Python against pandas on NumPy-written data."""
import numpy as np
import pandas as pd
import pytest

import hashlab

AGGS = ["sum", "min", "max", "count", "mean"]


def pandas_groupby(df, by, values, aggs):
    """pandas' answer in hashlab's layout: keys ascending, then "<agg>_<value>" columns."""
    grouped = df.groupby(by, sort=True)
    out = grouped.size().reset_index()[by]
    for v in values:
        for a in aggs:
            out[f"{a}_{v}"] = grouped[v].agg(a).to_numpy()
    return out


def assert_same_groups(got, expected):
    assert list(got.columns) == list(expected.columns)
    assert len(got) == len(expected)
    for name in expected.columns:
        if expected[name].dtype.kind == "f" or got[name].dtype.kind == "f":
            np.testing.assert_allclose(got[name].to_numpy(float), expected[name].to_numpy(float), rtol=1e-12)
        else:
            np.testing.assert_array_equal(got[name].to_numpy(np.int64), expected[name].to_numpy(np.int64))


@pytest.fixture
def table():
    n = 20000
    keys = hashlab.generate_keys(n, "uniform", distinct=300, columns=2, seed=21)
    return pd.DataFrame({
        "k1": keys[0], "k2": keys[1],
        "ints": hashlab.generate_values(n, -1000, 1000, dtype="int64", seed=22),
        "u32": hashlab.generate_values(n, 0, 50, seed=23),
        "reals": hashlab.generate_values(n, -1.0, 1.0, dtype="float64", seed=24),
    })


@pytest.mark.parametrize("sorted_reference", [False, True])
def test_groupby_of_two_keys_three_values_five_aggregations_agrees_with_pandas(table, sorted_reference):
    values = ["ints", "u32", "reals"]
    got = hashlab.reference.groupby(table, values, AGGS, by=["k1", "k2"], sorted=sorted_reference)
    assert_same_groups(got, pandas_groupby(table, ["k1", "k2"], values, AGGS))
    assert got["sum_ints"].dtype == np.int64 and got["mean_ints"].dtype == np.float64


def test_groupby_of_arrays_names_its_columns_key_and_value(table):
    got = hashlab.reference.groupby(table["k1"].to_numpy(), table["u32"].to_numpy(), "max")
    assert list(got.columns) == ["key", "max_value"]
    assert_same_groups(got.rename(columns={"key": "k1", "max_value": "max_u32"}),
                       pandas_groupby(table, ["k1"], ["u32"], ["max"]))


def test_groupby_values_default_to_every_other_column(table):
    got = hashlab.reference.groupby(table[["k1", "ints", "reals"]], aggs="count", by="k1")
    assert list(got.columns) == ["k1", "count_ints", "count_reals"]


@pytest.mark.parametrize("call, message", [
    (lambda t: hashlab.reference.groupby(t, "ints", "median", by="k1"), "median"),
    (lambda t: hashlab.reference.groupby(t, "nope", by="k1"), "no column 'nope'"),
    (lambda t: hashlab.reference.groupby(t, "ints", []), "by= names the key column"),
    (lambda t: hashlab.reference.groupby(t, "ints", [], by="k1"), "no aggregation given"),
    (lambda t: hashlab.reference.groupby(t["k1"].to_numpy(), t["ints"].to_numpy()[:5]),
     "value: 5 rows, but key has 20000"),
    (lambda t: hashlab.reference.groupby(np.zeros(0, np.uint32), np.zeros(0)), "key: no rows"),
    (lambda t: hashlab.reference.groupby([t["k1"].to_numpy()] * 9, t["ints"].to_numpy()), "9 key columns; at most 8"),
    (lambda t: hashlab.reference.groupby(np.array([1, 1]), np.array([2 ** 62, 2 ** 62])), "may exceed 64-bit"),
])
def test_groupby_refuses_bad_input_with_the_commands_words(table, call, message):
    with pytest.raises(ValueError, match=message):
        call(table)


def test_join_count_and_pairs_agree_with_pandas_merge():
    r = hashlab.generate_keys(3000, "uniform", distinct=500, seed=31)
    s = hashlab.generate_keys(2000, "uniform", distinct=500, seed=32)
    merged = pd.DataFrame({"k": r, "r_index": np.arange(len(r))}).merge(
        pd.DataFrame({"k": s, "s_index": np.arange(len(s))}), on="k")
    expected = merged[["r_index", "s_index"]].sort_values(["r_index", "s_index"]).reset_index(drop=True)
    assert hashlab.reference.join_count(r, s) == len(expected)
    assert hashlab.reference.join_count(r, s, sorted=True) == len(expected)
    got = hashlab.reference.join(r, s)
    np.testing.assert_array_equal(got.to_numpy(np.int64), expected.to_numpy(np.int64))


def test_pkpk_join_agrees_with_pandas_and_names_a_repeated_key():
    r, s = hashlab.generate_pkpk(4000, 3000, match_rate=0.5, seed=33)
    got = hashlab.reference.pkpk_join(r, s)
    merged = pd.DataFrame({"key": r, "r_index": np.arange(len(r))}).merge(
        pd.DataFrame({"key": s, "s_index": np.arange(len(s))}), on="key").sort_values("key")
    np.testing.assert_array_equal(got.to_numpy(np.int64), merged[["key", "r_index", "s_index"]].to_numpy(np.int64))
    with pytest.raises(ValueError, match="7"):
        hashlab.reference.pkpk_join(np.array([7, 7], dtype=np.uint32), np.array([7], dtype=np.uint32))


def test_lookups_agree_with_a_python_dict():
    keys = hashlab.generate_keys(1000, "unique", domain=5000, seed=34)
    values = hashlab.generate_values(1000, 0, 10 ** 6, seed=35)
    queries = hashlab.generate_keys(3000, "uniform", distinct=2000, domain=5000, seed=36)
    table = dict(zip(keys.tolist(), values.tolist()))
    found = hashlab.reference.map_lookup(keys, values, queries)
    assert found.tolist() == [table.get(q, hashlab.reference.NOT_FOUND) for q in queries.tolist()]
    assert hashlab.reference.set_contains(keys, queries).tolist() == [q in table for q in queries.tolist()]
    assert np.array_equal(hashlab.reference.distinct_keys(queries), np.unique(queries))
    assert np.array_equal(hashlab.reference.sort_keys(queries), np.sort(queries))
    with pytest.raises(ValueError):
        hashlab.reference.map_lookup(np.array([1, 1]), np.array([1, 2]), np.array([1]))


def test_sort_pairs_is_stable_and_the_multimap_finds_every_value():
    keys = np.array([3, 1, 3, 2, 1], dtype=np.uint32)
    values = np.array([50, 40, 30, 20, 10], dtype=np.uint32)
    k, v = hashlab.reference.sort_pairs(keys, values)
    assert k.tolist() == [1, 1, 2, 3, 3] and v.tolist() == [40, 10, 20, 50, 30]
    counts, offsets, found = hashlab.reference.multimap(keys, values, np.array([1, 3, 9]))
    assert counts.tolist() == [2, 2, 0]
    assert found[offsets[0]:offsets[1]].tolist() == [10, 40] and found[offsets[1]:offsets[2]].tolist() == [30, 50]
    count, smallest = hashlab.reference.lookup(keys, values, np.array([1, 3, 9]))
    assert count.tolist() == [2, 2, 0] and smallest.tolist() == [10, 30, 0]


def test_a_list_of_numbers_is_one_column_and_a_list_of_arrays_several():
    got = hashlab.reference.groupby([1, 2, 2], [3, 4, 5], "sum")
    assert got.to_dict("list") == {"key": [1, 2], "sum_value": [3, 9]}
    got = hashlab.reference.groupby([[1, 2, 2], [7, 7, 8]], [3, 4, 5], "count")
    assert list(got.columns) == ["key0", "key1", "count_value"] and len(got) == 3
