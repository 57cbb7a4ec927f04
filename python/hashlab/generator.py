"""The suite's seeded data generator (common/include/hashlab/common/generator.hpp): the same
columns on the host and on the device, bit for bit, so that a CPU-only notebook draws the data a
GPU experiment ran on.

    keys = generate_keys(1000, "zipf", distinct=100, zipf_exponent=1.2, seed=7)   # NumPy uint32
    d_keys = generate_keys(1 << 27, "unique", device=True)                      # on the GPU
    r, s = generate_pkpk(1 << 20, 1 << 20, match_rate=0.5)                       # pk-pk tables
"""
import math

from . import _core
from ._arrays import column, device_result
from ._device import require_gpu

MAX_KEY_DOMAIN = _core.MAX_KEY_DOMAIN
"""Keys lie in [0, MAX_KEY_DOMAIN): 2^32 - 1, the empty-slot key excluded."""
RESERVED_KEY = _core.RESERVED_KEY
"""0xffffffff: the papers' empty-slot key, which the generator never draws."""

DISTRIBUTIONS = ("sequence", "shuffled", "unique", "uniform", "zipf")


def _on_device(device, out, what):
    if out is not None or device:
        require_gpu(what)
        return True
    return False


def generate_keys(n, distribution="unique", *, distinct=0, multiplicity=None, zipf_exponent=0.0,
                  domain=MAX_KEY_DOMAIN, columns=1, seed=1, device=False, out=None):
    """n rows of keys drawn as `distribution` says (one of DISTRIBUTIONS):

    - "sequence": 0, 1, ..., n-1; "shuffled": a random permutation of them;
    - "unique": n distinct keys at random from [0, domain);
    - "uniform": every row uniform among exactly min(n, distinct) distinct keys (or give
      `multiplicity`, the average rows per key: distinct = ceil(n / multiplicity));
    - "zipf": `distinct` candidate keys, rank r drawn with probability ~ 1 / r^zipf_exponent.

    columns > 1 draws that many key columns whose tuples are the groups (shape (columns, n),
    one row per key column). seed: the same seed gives the same keys on the host and the GPU.
    device: False (NumPy), True / "cupy" / "torch" (drawn on the GPU). out: a device uint32
    array of n * columns elements to fill in place (returns None). ValueError for a spec that
    cannot be drawn.
    """
    if multiplicity is not None:
        if distribution not in ("uniform",):
            raise ValueError("multiplicity= goes with the 'uniform' distribution")
        if not multiplicity >= 1:
            raise ValueError("average multiplicity must be at least 1")
        distinct = max(1, math.ceil(n / multiplicity))
    on_device = _on_device(device, out, "generate_keys(device=...)")
    target = column(out, "out") if out is not None else None
    result = _core.generate_keys(int(n), distribution, int(distinct), float(zipf_exponent), int(domain),
                                 int(columns), int(seed), on_device, target)
    if out is not None:
        return None
    return device_result(result, device) if on_device else result


def generate_values(n, lo=0, hi=100, *, dtype="uint32", seed=2, device=False, out=None):
    """n values uniform in [lo, hi] (dtype uint32, int32, int64, float32 or float64; integer
    ranges span at most 2^32 values). seed, device and out as for generate_keys."""
    on_device = _on_device(device, out, "generate_values(device=...)")
    target = column(out, "out") if out is not None else None
    result = _core.generate_values(int(n), float(lo), float(hi), str(dtype), int(seed), on_device, target)
    if out is not None:
        return None
    return device_result(result, device) if on_device else result


def generate_pkpk(r_rows, s_rows, *, match_rate=1.0, key_domain=100_000_000, seed=1, device=False):
    """Two key columns (R, S) with unique keys each, for primary-key joins: round(match_rate *
    s_rows) of S's keys are keys of R, the others found nowhere in R; keys lie in [0, key_domain)
    (10^8 as in Dash's report). Returns (r, s)."""
    on_device = _on_device(device, None, "generate_pkpk(device=...)")
    r, s = _core.generate_pkpk(int(r_rows), int(s_rows), float(match_rate), int(key_domain), int(seed), on_device)
    if on_device:
        return device_result(r, device), device_result(s, device)
    return r, s


def describe_keys(n, distribution="unique", *, distinct=0, zipf_exponent=0.0, domain=MAX_KEY_DOMAIN):
    """(the generator's one-line description of the spec, the distinct keys n rows hold: exact
    for every distribution but Zipf, for which it is an upper bound)."""
    return _core.describe_keys(distribution, int(distinct), float(zipf_exponent), int(domain), int(n))
