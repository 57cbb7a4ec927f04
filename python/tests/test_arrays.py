"""The conversion layer on the host: NumPy arrays are read in place, other inputs become columns
with the commands' checks, and bad input is a ValueError with their wording (never a crash)."""
import numpy as np
import pandas as pd
import pytest

import hashlab
from hashlab._arrays import column


def test_a_contiguous_numpy_array_is_read_where_it_is():
    a = np.arange(10, dtype=np.uint32)
    c = column(a, "keys")
    assert c.address == a.ctypes.data
    assert (c.rows, c.typestr, c.on_device, c.name) == (10, "<u4", False, "keys")


def test_a_strided_array_and_a_series_and_a_list_become_columns():
    a = np.arange(20, dtype=np.int64)[::2]
    assert column(a, "x").rows == 10
    assert column(pd.Series([1, 2, 3]), "s").typestr == "<i8"
    assert column([1.5, 2.5], "l").typestr == "<f8"


class DlpackOnly:
    """An array offered through DLPack alone (as some frameworks offer theirs: JAX's device arrays,
    for one), on the host or on the device."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_a_cpu_dlpack_object_is_read_through_numpy_without_a_copy():
    a = np.arange(5, dtype=np.uint32)
    c = column(DlpackOnly(a), "keys")
    assert c.address == a.ctypes.data and not c.on_device


def test_two_dimensional_input_is_refused():
    with pytest.raises(ValueError, match="keys: a column is one-dimensional"):
        column(np.zeros((2, 3), dtype=np.uint32), "keys")


def test_an_unread_dtype_is_refused_with_the_commands_message():
    with pytest.raises(ValueError, match=r"k: dtype '<i2' is not read here \(accepted: uint32, int32, uint64, int64, "
                                         r"float32, float64; numpy: a.astype\('int64'\)"):
        column(np.zeros(3, dtype=np.int16), "k")
    with pytest.raises(ValueError, match=r"s: dtype '\|O' is not read here"):
        column(pd.Series(["a", "b"]), "s")
    # A nullable integer column with a missing value reads as float64 with NaN: refused as a null.
    with pytest.raises(ValueError, match="v: row 1 is NaN"):
        hashlab.reference.groupby({"k": np.array([1, 2, 3]), "v": pd.Series([1, None, 3], dtype="Int64")}, by="k")


def test_keys_outside_32_bits_are_refused_naming_the_row():
    with pytest.raises(ValueError, match=r"k: row 2 holds key -1; keys are unsigned 32-bit integers, 0 to 4294967295"):
        hashlab.reference.groupby({"k": np.array([1, 2, -1]), "v": np.ones(3)}, by="k")
    with pytest.raises(ValueError, match=r"row 0 holds key 4294967296"):
        hashlab.reference.distinct_keys(np.array([1 << 32], dtype=np.uint64))
    with pytest.raises(ValueError, match="keys must be integers; the column holds floating-point numbers"):
        hashlab.reference.distinct_keys(np.array([1.0]))


def test_a_nan_value_is_refused():
    with pytest.raises(ValueError, match=r"v: row 1 is NaN; the commands have no null values"):
        hashlab.reference.groupby({"k": np.array([1, 2]), "v": np.array([1.0, np.nan])}, by="k")


def test_an_address_that_is_not_device_memory_is_a_value_error_not_a_crash():
    class Fake:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<u4", "data": (0x1234, False), "version": 3}

    with pytest.raises(ValueError, match="keys: "):
        column(Fake(), "keys")


def test_a_strided_device_interface_is_refused_before_it_is_read():
    class Fake:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<u4", "data": (0x1234, False), "version": 3,
                                    "strides": (8,)}

    with pytest.raises(ValueError, match="keys: the device array is strided"):
        column(Fake(), "keys")


def test_arrays_returned_to_python_own_their_memory():
    keys = hashlab.generate_keys(1000, "unique", seed=5)
    assert keys.flags.owndata is False and keys.base is not None  # the extension's vector, no copy
    again = hashlab.generate_keys(1000, "unique", seed=5)
    del keys
    assert len(np.unique(again)) == 1000
