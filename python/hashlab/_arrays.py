"""The conversion layer: what a caller passes becomes a column hashlab reads in place, and what
hashlab computes comes back as NumPy (host) or device arrays.

In:
- a NumPy array, a pandas Series or anything ``numpy.asarray`` takes: host memory. A contiguous
  array is read where it is; a strided one is made contiguous first (on the host).
- an object with ``__cuda_array_interface__`` (CuPy, PyTorch, Numba, hashlab.DeviceArray): device
  memory used in place; hashlab's work waits for the producer's stream (the interface's "stream").
- an object with ``__dlpack__`` on a CUDA device (JAX, ...): the same through DLPack, the producer
  asked to make the data ready on the legacy default stream (``__dlpack__(stream=1)``).

Out: device results are CuPy arrays when CuPy is installed (``device="torch"``: PyTorch tensors),
else hashlab.DeviceArray, which exposes both protocols. Either way no copy is made.
"""
from collections.abc import Mapping

import numpy as np

from . import _core

# DLPack device types (dlpack.h): CPU, CUDA, CUDA pinned host memory, CUDA managed memory.
_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13


def column(obj, name):
    """`obj` as a hashlab._core.Column named `name` (the name the error messages give)."""
    if isinstance(obj, _core.Column):
        return obj
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return _from_cuda_array_interface(obj, cai, name)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__") and not isinstance(obj, np.ndarray):
        device_type = int(obj.__dlpack_device__()[0])
        if device_type in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            try:
                capsule = obj.__dlpack__(stream=1)
            except TypeError:  # a producer that predates the stream argument
                capsule = obj.__dlpack__()
            return _core.Column.from_dlpack(name, capsule, 0)
        if device_type not in (_KDL_CPU, _KDL_CUDA_HOST):
            raise ValueError(f"{name}: DLPack device type {device_type} is not read here (CPU or CUDA memory)")
        obj = np.from_dlpack(obj)
    array = np.asarray(obj)
    if array.ndim != 1:
        raise ValueError(f"{name}: a column is one-dimensional; got shape {array.shape}")
    array = np.ascontiguousarray(array)
    return _core.Column(name, array.ctypes.data, array.dtype.str, array.shape[0], False, 0, array)


def _from_cuda_array_interface(obj, cai, name):
    shape = tuple(cai["shape"])
    if len(shape) != 1:
        raise ValueError(f"{name}: a column is one-dimensional; got shape {shape}")
    typestr = cai["typestr"]
    strides = cai.get("strides")
    if strides is not None and shape[0] > 1 and tuple(strides) != (np.dtype(typestr).itemsize,):
        raise ValueError(f"{name}: the device array is strided ({strides}); pass a contiguous one "
                         "(cupy.ascontiguousarray, tensor.contiguous())")
    if cai.get("mask") is not None:
        raise ValueError(f"{name}: masked device arrays are not read here (the commands have no null values)")
    address = cai["data"][0] or 0
    return _core.Column(name, address, typestr, shape[0], True, cai.get("stream") or 0, obj)


def is_device_array(obj):
    """Whether `obj` lives in device memory (as column() would read it)."""
    if hasattr(obj, "__cuda_array_interface__"):
        return True
    if hasattr(obj, "__dlpack_device__") and not isinstance(obj, np.ndarray):
        return int(obj.__dlpack_device__()[0]) in (_KDL_CUDA, _KDL_CUDA_MANAGED)
    return False


def device_result(array, device=True):
    """A hashlab.DeviceArray as the caller wants it: `device` True or "cupy" (CuPy when installed,
    else the DeviceArray itself), "torch" (a PyTorch tensor), "raw" (the DeviceArray)."""
    if device == "raw":
        return array
    if device in (True, "cupy"):
        try:
            import cupy
        except ImportError:
            if device == "cupy":
                raise
            return array
        return cupy.asarray(array)  # through __cuda_array_interface__: a view that keeps `array` alive
    if device == "torch":
        import torch

        return torch.from_dlpack(array)
    raise ValueError(f"device={device!r}: False (NumPy), True or 'cupy', 'torch' or 'raw'")


def to_numpy(array):
    """A host NumPy view or copy of any array hashlab returns or takes."""
    if isinstance(array, np.ndarray):
        return array
    if hasattr(array, "get") and hasattr(array, "__cuda_array_interface__"):  # CuPy
        return array.get()
    if hasattr(array, "cpu") and hasattr(array, "numpy"):  # PyTorch
        return array.cpu().numpy()
    if isinstance(array, _core.DeviceArray):
        return array.get()
    return np.asarray(array)


def named_columns(data, names, default_prefix):
    """[(name, array)] from a table (a DataFrame or a mapping name -> array) and column names,
    or from arrays alone (one array, or a list of arrays named prefix0, prefix1, ...; one array
    in a list, or a list of numbers, is one column named prefix)."""
    if data is not None:
        if isinstance(names, str):
            names = [names]
        missing = [n for n in names if n not in _column_names(data)]
        if missing:
            raise ValueError(f"no column {missing[0]!r} (columns: {', '.join(map(str, _column_names(data)))})")
        return [(str(n), data[n]) for n in names]
    if names is None:
        return []
    if _is_list_of_columns(names):
        if len(names) == 1:
            return [(default_prefix, names[0])]
        return [(f"{default_prefix}{i}", a) for i, a in enumerate(names)]
    return [(default_prefix, names)]


def _is_list_of_columns(obj):
    """A list or tuple of arrays (several columns), not a list of numbers (one column)."""
    return isinstance(obj, (list, tuple)) and len(obj) > 0 and all(
        hasattr(e, "__len__") and not isinstance(e, (str, bytes)) for e in obj)


def _column_names(data):
    if isinstance(data, Mapping):
        return list(data.keys())
    return list(data.columns)


def is_table(obj):
    """Whether `obj` is a table of named columns (a pandas DataFrame or a mapping)."""
    if isinstance(obj, Mapping):
        return True
    try:
        import pandas
    except ImportError:
        return False
    return isinstance(obj, pandas.DataFrame)
