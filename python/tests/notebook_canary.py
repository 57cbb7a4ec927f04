"""Runs notebooks' code cells in this one process, and after every cell a canary: host work that a
heap corrupted by the cell is likely to fail, so that such a cell is found at that cell rather than
in whatever runs next (a full garbage collection, the generator's describe_keys, whose
std::ostringstream and std::string take small blocks, a reference group-by, Python objects of every
small size, glibc's malloc_trim walking its arenas). Each step prints a line, flushed, before the
next starts: after a crash the last line names the cell, and the fault handler (-X faulthandler)
prints the Python stack.

    python -X faulthandler python/tests/notebook_canary.py docs/notebooks/rapids_groupby.ipynb
    python -X faulthandler python/tests/notebook_canary.py docs/notebooks/*.ipynb \\
        --then-pytest python/tests/test_generator.py   # every notebook in one process, then tests in it

test_docs_notebooks.py runs each notebook so, one process each; python/gpu_validate.sh's `crash`
step runs them all in one process, also under the allocators' debug modes (PYTHONMALLOC=debug,
glibc's malloc check). Exit status: 0 when every cell ran and every canary passed, 1 when a cell
raised (its traceback printed; the next notebook still runs) or the tests failed.
"""
import argparse
import ctypes
import gc
import os
import sys
import time

import numpy as np

import hashlab
from hashlab import notebook

try:
    _LIBC = ctypes.CDLL(None)
    _MALLOC_TRIM = _LIBC.malloc_trim
except (OSError, AttributeError):  # not glibc
    _MALLOC_TRIM = None


def canary(label):
    """Host work on every small size of block (a corrupted free list or chunk header is met here)."""
    gc.collect()
    for i in range(200):
        text, distinct = hashlab.generator.describe_keys(20000 + i, "uniform", distinct=1000, domain=5000)
        if text != "uniform distinct=1000 domain=5000" or distinct != 1000:
            raise AssertionError(f"canary after {label}: describe_keys answered {text!r}, {distinct}")
    blocks = [bytes(n) for n in range(1, 2049)]
    keys = hashlab.generate_keys(5000, "uniform", distinct=50, seed=1)
    groups = hashlab.reference.groupby(keys, np.arange(5000), ["sum", "mean"])
    if len(groups) != 50:
        raise AssertionError(f"canary after {label}: the reference group-by found {len(groups)} groups, not 50")
    del blocks
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
    print(f"canary after {label}: ok", flush=True)


def run(path):
    """One notebook, a canary after each cell; True when every cell ran."""
    name = os.path.basename(path)
    started = [time.perf_counter()]

    def after_cell(index):
        print(f"{name} cell {index}: ran in {time.perf_counter() - started[0]:.1f} s", flush=True)
        canary(f"{name} cell {index}")
        started[0] = time.perf_counter()

    print(f"{name}: starting", flush=True)
    try:
        notebook.execute(path, write=False, after_cell=after_cell)
    except notebook.CellError as error:
        print(f"FAILED {error}\n{error.traceback}", file=sys.stderr, flush=True)
        return False
    print(f"{name}: every cell ran", flush=True)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", help=".ipynb files, run in this order in this process")
    parser.add_argument("--then-pytest", nargs="*", default=[], metavar="TEST",
                        help="pytest arguments (test files) to run in this process after the notebooks")
    args = parser.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")
    canary("start")
    ran = [run(path) for path in args.notebooks]
    status = 0 if all(ran) else 1
    if args.then_pytest:
        import pytest

        print(f"pytest {' '.join(args.then_pytest)} in this process", flush=True)
        if pytest.main(["-p", "no:cacheprovider", "-v", *args.then_pytest]) != 0:
            status = 1
    canary("the end")
    return status


if __name__ == "__main__":
    sys.exit(main())
