"""The multi-threaded CPU algorithms from Python against pandas and the references."""
import numpy as np
import pandas as pd
import pytest

import hashlab
from test_reference import AGGS, assert_same_groups, pandas_groupby


@pytest.mark.parametrize("distinct", [10, 5000, 60000])  # few groups: no partitioning; many: partitioned
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_cpu_groupby_agrees_with_pandas(distinct, dtype):
    n = 80000
    df = pd.DataFrame({"k": hashlab.generate_keys(n, "uniform", distinct=distinct, seed=41),
                       "v": hashlab.generate_values(n, -100, 100, dtype=dtype, seed=42),
                       "w": hashlab.generate_values(n, 0, 7, seed=43)})
    got = hashlab.cpu.groupby(df, ["v", "w"], AGGS, by="k", threads=4)
    assert_same_groups(got, pandas_groupby(df, ["k"], ["v", "w"], AGGS))


def test_cpu_groupby_equals_the_reference_bit_for_bit():
    keys = hashlab.generate_keys(50000, "zipf", distinct=2000, zipf_exponent=1.1, seed=44)
    vals = hashlab.generate_values(50000, -1.0, 1.0, dtype="float64", seed=45)
    got = hashlab.cpu.groupby(keys, vals, ["sum", "mean"], threads=3)
    expected = hashlab.reference.groupby(keys, vals, ["sum", "mean"])
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-12)


def test_cpu_groupby_takes_one_key_column():
    keys = hashlab.generate_keys(100, "uniform", distinct=5, columns=2, seed=46)
    with pytest.raises(ValueError, match="groups by one 32-bit key column; 2 key columns given"):
        hashlab.cpu.groupby(list(keys), np.ones(100))


def test_cpu_joins_agree_with_the_reference():
    r = hashlab.generate_keys(30000, "uniform", distinct=4000, seed=47)
    s = hashlab.generate_keys(20000, "uniform", distinct=4000, seed=48)
    assert hashlab.cpu.join_count(r, s, threads=3) == hashlab.reference.join_count(r, s)
    pd.testing.assert_frame_equal(hashlab.cpu.join(r, s, threads=3), hashlab.reference.join(r, s))


def test_estimate_groups_is_exact_on_small_inputs():
    keys = hashlab.generate_keys(60000, "uniform", distinct=777, seed=49)
    assert hashlab.cpu.estimate_groups(keys) == 777
    assert hashlab.cpu.default_threads() >= 1
