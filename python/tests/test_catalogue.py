"""The catalogue from Python on a CPU: every entry listed with its options and statistics, the
CPU entries against pandas and the references, bad input as ValueError, GPU entries refused with
the reason on a machine without a GPU."""
import numpy as np
import pandas as pd
import pytest

import hashlab
from test_reference import AGGS, assert_same_groups, pandas_groupby

CPU_GROUPBYS = [e["name"] for e in hashlab.entries("groupby") if not e["needs_gpu"]]


def test_the_catalogue_lists_every_operations_entries_with_options_and_statistics():
    table = hashlab.catalogue()
    assert set(table["operation"]) == {"groupby", "join", "table"}
    names = {(o, n) for o, n in zip(table["operation"], table["name"])}
    for expected in [("groupby", "rapids"), ("groupby", "sp_ega"), ("groupby", "mp_ega"), ("groupby", "hash"),
                     ("groupby", "cpu"), ("join", "bsp"), ("join", "hashgraph"), ("table", "cuckoo"),
                     ("table", "hashgraph"), ("table", "linear_probing"), ("table", "sorted_array")]:
        assert expected in names
    for e in hashlab.entries():
        assert e["description"] and isinstance(e["needs_gpu"], bool)
        for s in e["statistics"]:
            assert s["name"] and "unit" in s
    assert CPU_GROUPBYS


def test_the_catalogue_says_which_entries_run_across_gpu_servers():
    # What hashlab groupby / join --gpus N take (README, "Your own tables across servers")
    across = {(e["operation"], e["name"]) for e in hashlab.entries() if e["across_servers"]}
    assert across == {("groupby", n) for n in ["rapids", "sp_ega", "lphga", "sort", "hash"]} | \
        {("join", n) for n in ["bsp", "sort_join", "hash_join"]}
    assert list(hashlab.catalogue()["across_servers"]) == [e["across_servers"] for e in hashlab.entries()]


@pytest.mark.parametrize("algo", CPU_GROUPBYS)
def test_cpu_group_bys_of_the_catalogue_agree_with_pandas(algo):
    n = 30000
    df = pd.DataFrame({"k": hashlab.generate_keys(n, "uniform", distinct=700, seed=61),
                       "ints": hashlab.generate_values(n, -50, 50, dtype="int64", seed=62),
                       "u32": hashlab.generate_values(n, 0, 9, seed=63),
                       "reals": hashlab.generate_values(n, -1.0, 1.0, dtype="float64", seed=64)})
    r = hashlab.groupby(df, ["ints", "u32", "reals"], AGGS, by="k", algo=algo)
    assert r.algo == algo
    assert_same_groups(r.frame, pandas_groupby(df, ["k"], ["ints", "u32", "reals"], AGGS))
    assert r.stats["groups"] == 700


def test_a_made_group_by_runs_times_and_counts():
    keys = hashlab.generate_keys(20000, "uniform", distinct=100, seed=65)
    g = hashlab.GroupBy("cpu", keys, hashlab.generate_values(20000, 0, 5), ["sum", "count"])
    t = g.time(warmup=1, reps=3)
    assert t.repetitions == 3 and 0 < t.min_ms <= t.median_ms <= t.max_ms and t.clock == "host clock"
    r = g.result()
    assert len(r.frame) == 100 and r.stats.numbers["passes"] == 2
    assert list(r.frame.columns) == ["key", "sum_value", "count_value"]


def test_the_cpu_join_of_the_catalogue_agrees_with_the_reference():
    r, s = hashlab.generate_pkpk(5000, 4000, match_rate=0.4, seed=66)
    got = hashlab.join(r, s, algo="cpu_join")
    expected = hashlab.reference.pkpk_join(r, s)
    np.testing.assert_array_equal(got.frame["key"].to_numpy(), expected["key"].to_numpy())
    np.testing.assert_array_equal(got.frame["r_value"].to_numpy(), expected["r_index"].to_numpy())  # row numbers
    np.testing.assert_array_equal(got.frame["s_value"].to_numpy(), expected["s_index"].to_numpy())
    assert got.device is None


def test_a_host_algorithm_answers_on_the_host_whatever_device_asks():
    """`device` is the call's keyword, not an algorithm's option; the CPU entries read host columns
    (no device addresses) and answer there."""
    keys = hashlab.generate_keys(5000, "uniform", distinct=50, seed=67)
    for device in (None, False, True):
        g = hashlab.GroupBy("cpu", keys, hashlab.generate_values(5000, 0, 5, seed=68), "sum")
        r = g.result(device=device)
        assert r.device is None and len(r.frame) == 50 and g.device_inputs() == []
    rk, sk = hashlab.generate_pkpk(300, 200, match_rate=0.5, seed=69)
    j = hashlab.join(rk, sk, algo="cpu_join", device=True)
    assert j.device is None and len(j.frame) == 100


def test_gpu_entries_say_they_need_a_gpu_on_a_machine_without_one():
    if hashlab.gpu_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(RuntimeError, match="--algo sp_ega needs a CUDA GPU"):
        hashlab.groupby([1, 2], [3, 4], algo="sp_ega")
    with pytest.raises(RuntimeError, match="--algo cuckoo needs a CUDA GPU"):
        hashlab.Table("cuckoo", np.arange(10, dtype=np.uint32))


@pytest.mark.parametrize("call, message", [
    (lambda: hashlab.groupby([1, 2], [3, 4], algo="quick"), "quick"),
    (lambda: hashlab.groupby([1, 2], [3, 4], algo="cpu", nonsense=1), "takes no option 'nonsense'"),
    (lambda: hashlab.groupby([1, 2], [3.0, np.nan], algo="cpu"), "row 1 is NaN"),
    (lambda: hashlab.groupby([1, -2], [3, 4], algo="cpu"), "row 1 holds key -2"),
    (lambda: hashlab.join([1, 1], [1], algo="cpu_join"), "1"),
])
def test_bad_input_to_the_catalogue_is_a_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
