"""The package imports, finds its extension and says where the GPU is (or why there is none)."""
import os
import re
import shutil
import subprocess
import sys

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


def test_formats_numbers_with_its_own_cxx_runtime_after_pyarrow():
    """pyarrow's C++ runtime loaded first must not become the extension's (python/CMakeLists.txt):
    in a process of its own, so that a crash fails this test and not the session."""
    pytest.importorskip("pyarrow")
    code = ("import pyarrow, pandas, hashlab; "
            "print(hashlab.generator.describe_keys(20000, 'uniform', distinct=1000, domain=5000))")
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], env=os.environ.copy(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert done.returncode == 0, done.stdout
    assert done.stdout.strip().endswith("('uniform distinct=1000 domain=5000', 1000)"), done.stdout


def test_exports_no_cxx_runtime_symbols():
    """No libstdc++ symbol is defined in the extension's dynamic symbol table, whichever way the
    compiler links libstdc++ (a definition there can bind to another copy's in the process)."""
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("needs binutils' nm")
    listing = subprocess.run([nm, "-D", "--defined-only", hashlab._core.__file__], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, check=True).stdout
    # libstdc++'s own classes: locale and its facets, streams, the exception classes' type names
    runtime = re.compile(r" _ZN?S?t(?:6locale|7num_put|7num_get|8ios_base|15basic_streambuf|13basic_ostream)")
    leaked = [line for line in listing.splitlines() if runtime.search(line)]
    assert not leaked, leaked[:10]
