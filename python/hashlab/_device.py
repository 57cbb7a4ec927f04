"""Whether a CUDA GPU is there, and what it is."""
from . import _core


def gpu_status():
    """(True, "") with a usable CUDA GPU, else (False, why): no driver, no device, ..."""
    available, why = _core.gpu_available()
    return bool(available), why


def gpu_available():
    """True when a usable CUDA GPU is present (never raises)."""
    return gpu_status()[0]


def require_gpu(what="this call"):
    """Raises RuntimeError naming `what` and the reason when there is no usable GPU."""
    available, why = gpu_status()
    if not available:
        raise RuntimeError(f"{what} needs a CUDA GPU ({why})")


def device_info():
    """The current GPU's properties as a dict (name, compute_capability, memory, clocks, versions)."""
    require_gpu("device_info()")
    return _core.device_info()


def device_memory():
    """(free, total) bytes of device memory."""
    require_gpu("device_memory()")
    return _core.device_memory()
