"""Device arrays (CuPy, PyTorch, DLPack) in place and device answers, on a GPU: every test here is
marked `gpu` and skips, with the reason, without one."""
import numpy as np
import pytest

import hashlab
from hashlab._arrays import column
from test_arrays import DlpackOnly

pytestmark = pytest.mark.gpu


@pytest.fixture
def cupy():
    return pytest.importorskip("cupy", reason="needs CuPy (cupy-cuda13x)")


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch", reason="needs PyTorch")
    if not torch.cuda.is_available():
        pytest.skip("needs PyTorch built with CUDA")
    return torch


@pytest.mark.parametrize("distribution, extra", [
    ("sequence", {}), ("shuffled", {}), ("unique", {}), ("uniform", {"distinct": 1000}),
    ("zipf", {"distinct": 1000, "zipf_exponent": 1.2}),
])
def test_device_keys_equal_host_keys_bit_for_bit(cupy, distribution, extra):
    n = 100_003
    host = hashlab.generate_keys(n, distribution, seed=51, **extra)
    device = hashlab.generate_keys(n, distribution, seed=51, device=True, **extra)
    assert isinstance(device, cupy.ndarray) and device.dtype == np.uint32
    np.testing.assert_array_equal(device.get(), host)
    two = hashlab.generate_keys(n, "uniform", distinct=500, columns=2, seed=52, device=True)
    assert two.shape == (2, n)
    np.testing.assert_array_equal(two.get(), hashlab.generate_keys(n, "uniform", distinct=500, columns=2, seed=52))


@pytest.mark.parametrize("dtype, lo, hi", [("uint32", 0, 1000), ("int32", -50, 50), ("int64", -10 ** 6, 10 ** 6),
                                           ("float32", -1.0, 1.0), ("float64", 0.0, 3.0)])
def test_device_values_equal_host_values_bit_for_bit(cupy, dtype, lo, hi):
    device = hashlab.generate_values(70_001, lo, hi, dtype=dtype, seed=53, device=True)
    np.testing.assert_array_equal(device.get(), hashlab.generate_values(70_001, lo, hi, dtype=dtype, seed=53))


def test_device_pkpk_tables_equal_host_ones(cupy):
    r, s = hashlab.generate_pkpk(50_000, 40_000, match_rate=0.3, seed=54, device=True)
    hr, hs = hashlab.generate_pkpk(50_000, 40_000, match_rate=0.3, seed=54)
    np.testing.assert_array_equal(r.get(), hr)
    np.testing.assert_array_equal(s.get(), hs)


def test_out_fills_a_cupy_array_in_place(cupy):
    out = cupy.zeros(10_000, dtype=cupy.uint32)
    address = out.data.ptr
    assert hashlab.generate_keys(10_000, "unique", seed=55, out=out) is None
    assert out.data.ptr == address
    np.testing.assert_array_equal(out.get(), hashlab.generate_keys(10_000, "unique", seed=55))
    with pytest.raises(ValueError, match="out: out= holds 10000 elements; this call writes 5"):
        hashlab.generate_keys(5, out=out)
    with pytest.raises(ValueError, match="out= holds float32; this call writes uint32"):
        hashlab.generate_keys(5, out=cupy.zeros(5, dtype=cupy.float32))


def test_out_fills_a_torch_tensor_in_place(torch):
    out = torch.zeros(1000, dtype=torch.int64, device="cuda")
    hashlab.generate_values(1000, -5, 5, dtype="int64", seed=56, out=out)
    np.testing.assert_array_equal(out.cpu().numpy(), hashlab.generate_values(1000, -5, 5, dtype="int64", seed=56))


def test_a_cupy_array_is_read_in_place_not_copied(cupy):
    keys = cupy.arange(1000, dtype=cupy.uint32)
    c = column(keys, "keys")
    assert c.on_device and c.address == keys.data.ptr
    address, in_place = hashlab._core.device_view_info(c, "<u4")
    assert in_place and address == keys.data.ptr
    # A host column is copied in: the algorithm reads hashlab's buffer, not the NumPy array.
    host = np.arange(1000, dtype=np.uint32)
    address, in_place = hashlab._core.device_view_info(column(host, "keys"), "<u4")
    assert not in_place and address != host.ctypes.data


def test_a_torch_tensor_and_a_dlpack_only_array_are_read_in_place(torch, cupy):
    t = torch.arange(100, dtype=torch.int32, device="cuda")
    address, in_place = hashlab._core.device_view_info(column(t, "t"), "<i4")
    assert in_place and address == t.data_ptr()
    d = cupy.arange(100, dtype=cupy.uint32)
    c = column(DlpackOnly(d), "d")
    assert c.on_device and c.address == d.data.ptr
    assert hashlab._core.device_view_info(c, "<u4") == (d.data.ptr, True)


def test_a_device_column_of_another_type_is_refused_not_converted_behind_the_callers_back(cupy):
    with pytest.raises(ValueError, match=r"keys: a device column of int64 where uint32 is taken; convert it on the "
                                         r"device first \(cupy: x.astype\('uint32'\)"):
        hashlab._core.device_view_info(column(cupy.arange(10), "keys"), "<u4")


def test_device_answers_come_back_as_cupy_sharing_hashlabs_memory(cupy):
    raw = hashlab.generate_keys(1000, "unique", seed=57, device="raw")
    assert isinstance(raw, hashlab.DeviceArray)
    cai = raw.__cuda_array_interface__
    assert cai["shape"] == (1000,) and cai["typestr"] == "<u4" and cai["data"][0] == raw.ptr
    view = cupy.asarray(raw)
    assert view.data.ptr == raw.ptr
    through_dlpack = cupy.from_dlpack(raw)
    assert through_dlpack.data.ptr == raw.ptr
    del raw  # the views keep the memory alive
    np.testing.assert_array_equal(view.get(), hashlab.generate_keys(1000, "unique", seed=57))
    np.testing.assert_array_equal(through_dlpack.get(), view.get())


def test_device_answers_as_torch_tensors(torch):
    t = hashlab.generate_keys(1000, "sequence", device="torch")
    assert t.is_cuda and t.cpu().numpy().tolist() == list(range(1000))


def test_the_references_take_device_arrays_and_agree_with_numpy(cupy):
    keys = hashlab.generate_keys(20_000, "uniform", distinct=100, seed=58, device=True)
    vals = hashlab.generate_values(20_000, 0, 9, seed=59, device=True)
    got = hashlab.reference.groupby(keys, vals, ["sum", "mean"])
    expected = hashlab.reference.groupby(keys.get(), vals.get(), ["sum", "mean"])
    assert got.equals(expected)
    assert hashlab.cpu.join_count(keys, keys) == hashlab.cpu.join_count(keys.get(), keys.get())


def test_work_on_a_non_default_cupy_stream_is_waited_for(cupy):
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        keys = cupy.arange(1 << 22, dtype=cupy.uint32)
        keys *= 3  # still queued on `stream` when hashlab reads it
        found = hashlab.reference.distinct_keys(keys)
    np.testing.assert_array_equal(found, np.arange(1 << 22, dtype=np.uint32) * 3)


def test_a_device_allocation_that_does_not_fit_is_a_memory_error():
    with pytest.raises(MemoryError, match="cannot allocate"):
        hashlab.generate_values(1 << 40, 0, 1, dtype="int64", device="raw")  # 8 TiB


def test_a_key_that_the_device_interface_puts_on_host_memory_is_refused(cupy):
    host = np.arange(4, dtype=np.uint32)

    class Lying:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<u4", "data": (host.ctypes.data, False), "version": 3}

    with pytest.raises(ValueError, match="not device memory"):
        column(Lying(), "keys")
