"""hashlab in Python: the suite's group-bys, joins and hash tables (the catalogue), its data
generator, CPU references and algorithms on NumPy arrays, pandas DataFrames and device arrays
(CuPy, PyTorch, anything with ``__cuda_array_interface__`` or DLPack).

    import hashlab
    hashlab.catalogue()                                                        # every algorithm
    keys = hashlab.generate_keys(1 << 20, "uniform", distinct=1000)          # NumPy, seeded
    vals = hashlab.generate_values(1 << 20, 0, 100)
    r = hashlab.groupby(keys, vals, ["sum", "mean"], algo="sp_ega")           # r.frame, r.stats
    hashlab.reference.groupby(keys, vals, ["sum", "mean"])                     # the oracle
    hashlab.Table("cuckoo", keys, load=0.8).find(keys)                         # t.stats: chains

Arrays: a NumPy array (or a pandas Series, or a list) is host data; a device array is used in
place, never copied (its address is what the GPU algorithms read), and device answers come back
on the device (CuPy arrays when CuPy is installed). Bad input raises ValueError with the wording of
the ``hashlab`` commands; a device allocation that does not fit raises MemoryError.
"""
import os as _os

# A build tree (`make`) holds the extension in <build>/python/hashlab, apart from these sources:
# HASHLAB_EXTENSION_DIR points there (`make test` sets it). An installed package has both in one place.
if _os.environ.get("HASHLAB_EXTENSION_DIR"):
    __path__.insert(0, _os.environ["HASHLAB_EXTENSION_DIR"])

try:
    from . import _core
except ImportError as _error:  # pragma: no cover - the message is the point
    raise ImportError(
        "hashlab's compiled extension (hashlab._core) is not importable: install the package with "
        "`pip install .` in the repository (add --no-build-isolation without network), or build it "
        "with `make` and set HASHLAB_EXTENSION_DIR=<build>/python/hashlab with PYTHONPATH=<repo>/python "
        f"({_error})"
    ) from _error

from ._core import CudaError, DeviceArray
from ._arrays import to_numpy
from ._device import device_info, device_memory, gpu_available, gpu_status, require_gpu
from .generator import MAX_KEY_DOMAIN, RESERVED_KEY, generate_keys, generate_pkpk, generate_values
from ._catalogue import (GroupBy, GroupByResult, Join, JoinResult, LookupResult, Statistics, Table, Timing,
                         catalogue, entries, groupby, join)
from . import cpu, reference

__all__ = [
    "CudaError",
    "DeviceArray",
    "GroupBy",
    "GroupByResult",
    "Join",
    "JoinResult",
    "LookupResult",
    "Statistics",
    "Table",
    "Timing",
    "catalogue",
    "entries",
    "groupby",
    "join",
    "MAX_KEY_DOMAIN",
    "RESERVED_KEY",
    "cpu",
    "device_info",
    "device_memory",
    "generate_keys",
    "generate_pkpk",
    "generate_values",
    "gpu_available",
    "gpu_status",
    "reference",
    "require_gpu",
    "to_numpy",
]
