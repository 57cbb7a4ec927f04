"""The generator in Python: seeded, the distributions' promises kept, errors as ValueError."""
import numpy as np
import pytest

import hashlab


def test_the_same_seed_draws_the_same_keys_and_another_seed_others():
    a = hashlab.generate_keys(5000, "uniform", distinct=100, seed=11)
    b = hashlab.generate_keys(5000, "uniform", distinct=100, seed=11)
    c = hashlab.generate_keys(5000, "uniform", distinct=100, seed=12)
    assert a.dtype == np.uint32 and np.array_equal(a, b) and not np.array_equal(a, c)


@pytest.mark.parametrize("n", [1, 1000, 70000])
def test_unique_keys_are_distinct_and_avoid_the_reserved_key(n):
    keys = hashlab.generate_keys(n, "unique", seed=3)
    assert len(np.unique(keys)) == n
    assert not np.any(keys == hashlab.RESERVED_KEY)


def test_sequence_and_shuffled_sequence():
    assert np.array_equal(hashlab.generate_keys(100, "sequence"), np.arange(100))
    shuffled = hashlab.generate_keys(100, "shuffled", seed=4)
    assert np.array_equal(np.sort(shuffled), np.arange(100)) and not np.array_equal(shuffled, np.arange(100))


def test_uniform_draws_exactly_the_distinct_keys_asked_for_within_the_domain():
    keys = hashlab.generate_keys(20000, "uniform", distinct=1000, domain=5000, seed=5)
    assert len(np.unique(keys)) == 1000
    assert keys.max() < 5000
    assert hashlab.generator.describe_keys(20000, "uniform", distinct=1000, domain=5000) == \
        ("uniform distinct=1000 domain=5000", 1000)


def test_multiplicity_gives_rows_per_key():
    keys = hashlab.generate_keys(1000, "uniform", multiplicity=10, seed=6)
    assert len(np.unique(keys)) == 100


def test_zipf_puts_the_most_rows_on_few_keys():
    keys = hashlab.generate_keys(50000, "zipf", distinct=1000, zipf_exponent=1.5, seed=7)
    _, counts = np.unique(keys, return_counts=True)
    assert len(counts) <= 1000
    assert np.sort(counts)[-1] > 0.2 * len(keys)  # rank 1 draws 1 / zeta(1.5) ~ 38% of the rows


def test_key_columns_form_the_groups_and_each_column_repeats_values():
    keys = hashlab.generate_keys(5000, "uniform", distinct=50, columns=3, seed=8)
    assert keys.shape == (3, 5000)
    assert len({tuple(row) for row in keys.T}) == 50
    assert len(np.unique(keys[0])) < 50  # one column alone does not tell the groups apart


def test_values_lie_in_their_range_with_their_dtype():
    for dtype, lo, hi in [("uint32", 5, 9), ("int32", -3, 3), ("int64", -1000, 1000), ("float32", 0.5, 1.5),
                          ("float64", -2.0, 2.0)]:
        v = hashlab.generate_values(10000, lo, hi, dtype=dtype, seed=9)
        assert v.dtype == np.dtype(dtype)
        assert v.min() >= lo and v.max() <= hi
    ints = hashlab.generate_values(10000, 5, 9, seed=9)
    assert set(np.unique(ints)) == {5, 6, 7, 8, 9}


def test_pkpk_tables_match_at_the_rate_asked_for():
    r, s = hashlab.generate_pkpk(10000, 8000, match_rate=0.25, seed=10)
    assert len(np.unique(r)) == 10000 and len(np.unique(s)) == 8000
    assert len(np.intersect1d(r, s)) == 2000
    assert r.max() < 100_000_000


@pytest.mark.parametrize("call, message", [
    (lambda: hashlab.generate_keys(10, "gaussian"), "unknown key distribution 'gaussian'"),
    (lambda: hashlab.generate_keys(100, "unique", domain=50), "needs 100 distinct keys but the domain holds only 50"),
    (lambda: hashlab.generate_keys(10, "uniform"), "the number of distinct keys must be at least 1"),
    (lambda: hashlab.generate_keys(10, "uniform", distinct=2, columns=9), "key columns must be between 1 and 8"),
    (lambda: hashlab.generate_values(10, 0, 1.5), "lo and hi must be integers"),
    (lambda: hashlab.generate_values(10, 0, 1, dtype="int8"), "dtype 'int8' is not drawn here"),
    (lambda: hashlab.generate_pkpk(10, 10, match_rate=2), "the match rate must lie in"),
])
def test_a_spec_that_cannot_be_drawn_is_a_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
