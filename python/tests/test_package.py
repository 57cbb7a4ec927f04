"""The package imports, finds its extension and says where the GPU is (or why there is none)."""
import pytest

import hashlab


def test_imports_with_its_extension():
    assert hashlab._core.__name__ == "hashlab._core"
    for name in hashlab.__all__:
        assert hasattr(hashlab, name), name


def test_gpu_status_gives_a_reason_when_there_is_no_gpu():
    available, why = hashlab.gpu_status()
    assert isinstance(available, bool)
    assert available == hashlab.gpu_available()
    if not available:
        assert why  # the driver's words: no driver, no device, ...
        with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
            hashlab.require_gpu("the test")
        with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
            hashlab.device_info()
        with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
            hashlab.generate_keys(10, device=True)


@pytest.mark.gpu
def test_device_info_names_the_gpu():
    info = hashlab.device_info()
    assert info["name"]
    assert info["global_memory_bytes"] > 0
    free, total = hashlab.device_memory()
    assert 0 < free <= total
