"""The catalogue from Python on a GPU: every group-by, join and table against the references and
pandas, on NumPy and on device arrays, device arrays read in place (checked by changing them
between runs of one made algorithm), device answers, statistics ready to plot."""
import numpy as np
import pandas as pd
import pytest

import hashlab
from test_reference import AGGS, assert_same_groups, pandas_groupby

pytestmark = pytest.mark.gpu

GROUPBYS = [e["name"] for e in hashlab.entries("groupby")]
JOINS = [e["name"] for e in hashlab.entries("join")]
TABLES = [e["name"] for e in hashlab.entries("table")]


@pytest.fixture
def cupy():
    return pytest.importorskip("cupy", reason="needs CuPy (cupy-cuda13x)")


def table(n=50000, distinct=2000):
    return pd.DataFrame({"k": hashlab.generate_keys(n, "uniform", distinct=distinct, seed=71),
                         "a": hashlab.generate_values(n, 0, 1000, seed=72),
                         "b": hashlab.generate_values(n, 0, 7, seed=73)})


@pytest.mark.parametrize("algo", GROUPBYS)
def test_every_group_by_agrees_with_pandas_on_numpy_data(algo):
    df = table()
    r = hashlab.groupby(df, ["a", "b"], AGGS, by="k", algo=algo)
    assert_same_groups(r.frame, pandas_groupby(df, ["k"], ["a", "b"], AGGS))
    assert "groups" in r.stats and r.stats["groups"] == 2000


@pytest.mark.parametrize("algo", GROUPBYS)
def test_every_group_by_agrees_with_pandas_on_cupy_data(algo, cupy):
    df = table()
    d = {"k": cupy.asarray(df["k"].to_numpy()), "a": cupy.asarray(df["a"].to_numpy()),
         "b": cupy.asarray(df["b"].to_numpy())}
    r = hashlab.groupby(d, ["a", "b"], ["sum", "max"], by="k", algo=algo)
    assert_same_groups(r.frame, pandas_groupby(df, ["k"], ["a", "b"], ["sum", "max"]))


def test_rapids_groups_by_several_key_columns():
    keys = hashlab.generate_keys(40000, "uniform", distinct=500, columns=3, seed=74)
    df = pd.DataFrame({"k0": keys[0], "k1": keys[1], "k2": keys[2],
                       "v": hashlab.generate_values(40000, -100, 100, dtype="int32", seed=75)})
    r = hashlab.groupby(df, "v", AGGS, by=["k0", "k1", "k2"], algo="rapids")
    assert_same_groups(r.frame, pandas_groupby(df, ["k0", "k1", "k2"], ["v"], AGGS))
    assert r.stats["relaunches"] >= 0 and r.stats["predicted_groups"] > 0


def test_a_device_array_is_read_in_place_not_copied(cupy):
    """A copy made with the group-by would not see the change between its two runs."""
    keys = cupy.asarray(hashlab.generate_keys(10000, "uniform", distinct=10, seed=76))
    values = cupy.ones(10000, dtype=cupy.uint32)
    g = hashlab.GroupBy("hash", keys, values, "sum")
    assert g.result().frame["sum_value"].sum() == 10000
    values *= 3  # the caller's array, changed in place
    assert g.run().result().frame["sum_value"].sum() == 30000
    t = hashlab.Table("linear_probing", cupy.arange(1000, dtype=cupy.uint32), cupy.arange(1000, dtype=cupy.uint32))
    queries = cupy.arange(0, 2000, 2, dtype=cupy.uint32)
    found = t.find(queries)
    assert np.array_equal(found[:500], np.arange(0, 1000, 2))


@pytest.mark.parametrize("algo", JOINS)
def test_every_join_agrees_with_the_reference_on_host_and_device_data(algo, cupy):
    r, s = hashlab.generate_pkpk(30000, 20000, match_rate=0.5, seed=77)
    expected = hashlab.reference.pkpk_join(r, s)
    for rk, sk in [(r, s), (cupy.asarray(r), cupy.asarray(s))]:
        got = hashlab.join(rk, sk, algo=algo)
        np.testing.assert_array_equal(got.frame["key"].to_numpy(), expected["key"].to_numpy())
        np.testing.assert_array_equal(got.frame["r_value"].to_numpy(), expected["r_index"].to_numpy())
        np.testing.assert_array_equal(got.frame["s_value"].to_numpy(), expected["s_index"].to_numpy())
    entry = [e for e in hashlab.entries("join") if e["name"] == algo][0]
    if entry["needs_gpu"]:
        assert got.device is not None
        keys = got.device[0].get()
        assert sorted(keys.tolist()) == expected["key"].tolist()


@pytest.mark.parametrize("algo", TABLES)
def test_every_table_answers_as_the_reference(algo):
    keys = hashlab.generate_keys(20000, "unique", seed=78)
    values = hashlab.generate_values(20000, 0, 10 ** 6, seed=79)
    queries = np.concatenate([keys[::3], hashlab.generate_keys(5000, "unique", seed=80)])
    t = hashlab.Table(algo, keys, values)
    r = t.lookup(queries)
    assert t.check() == ""
    count, value = hashlab.reference.lookup(keys, values, queries)
    if r.count is not None:
        np.testing.assert_array_equal(r.count, count)
    if r.value is not None:
        np.testing.assert_array_equal(r.value[count > 0], value[count > 0])
    if r.answers == "total":
        assert r.total == count.sum()


def test_cuckoo_reports_its_eviction_chains_and_hashgraph_its_bins():
    keys = hashlab.generate_keys(100000, "unique", seed=81)
    t = hashlab.Table("cuckoo", keys, functions=4, load=0.8, count_evictions=True)
    t.lookup(keys)
    chains = t.stats.arrays["chain_lengths"]
    assert chains.sum() > 0 and t.stats["restarts"] >= 0
    h = hashlab.Table("hashgraph", hashlab.generate_keys(100000, "uniform", distinct=20000, seed=82))
    h.lookup(keys[:100])
    assert h.stats.arrays["vertex_sizes"].sum() == 100000


def test_timing_uses_the_harness_routine_on_device_arrays(cupy):
    keys = hashlab.generate_keys(1 << 20, "uniform", distinct=1000, seed=83, device=True)
    vals = hashlab.generate_values(1 << 20, 0, 9, seed=84, device=True)
    t = hashlab.GroupBy("sort", keys, vals).time(warmup=2, reps=5)
    assert t.repetitions == 5 and t.clock == "CUDA events" and 0 < t.min_ms <= t.median_ms <= t.max_ms
