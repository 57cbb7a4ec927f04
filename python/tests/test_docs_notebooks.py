"""The notebooks of docs/notebooks/ run from start to end here (their GPU cells, without a GPU,
say they are skipped; with one, they run): nothing the reader runs is broken. Their outputs are
not rewritten.

Each notebook runs in a process of its own (notebook_canary.py, the fault handler on), with a
canary of host allocations after every cell: a cell that raises fails its notebook's test with the
cell's traceback in the test's output; a crash of the interpreter (a segmentation fault in compiled
code, on a GPU where the GPU cells run) or a heap that a cell corrupted fails that notebook's test,
at that cell, with the fault handler's stack, and not the tests after it."""
import glob
import json
import os
import signal
import subprocess
import sys

import pytest

import hashlab

NOTEBOOKS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "notebooks", "*.ipynb")))
# The GPU cells re-measure figures at up to 2^24 rows; on a machine without a GPU a notebook takes seconds.
TIMEOUT_S = 600


CANARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "notebook_canary.py")


def run_notebook(path):
    """`python -X faulthandler notebook_canary.py path` in a process of its own, importing the
    package this test imported: (exit status, what it printed)."""
    env = dict(os.environ)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(hashlab.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in [package_parent, env.get("PYTHONPATH", "")] if p)
    env.setdefault("MPLBACKEND", "Agg")
    done = subprocess.run([sys.executable, "-X", "faulthandler", CANARY, path], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT_S)
    return done.returncode, done.stdout


def describe_exit(returncode):
    if returncode >= 0:
        return f"exit status {returncode}"
    try:
        return f"killed by {signal.Signals(-returncode).name}"
    except ValueError:
        return f"killed by signal {-returncode}"


def require_ran(path, returncode, output):
    """Fails with the notebook's own report (a cell's traceback, or the fault handler's stack)."""
    if returncode != 0:
        pytest.fail(f"{os.path.basename(path)}: {describe_exit(returncode)}\n{output}", pytrace=False)


def test_there_is_a_notebook_per_paper():
    names = {os.path.splitext(os.path.basename(p))[0] for p in NOTEBOOKS}
    assert names == {"cuckoo", "hashgraph", "rapids_groupby", "ega", "pkpk_join"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: os.path.basename(p))
def test_a_notebook_runs_start_to_end(path):
    pytest.importorskip("matplotlib")
    require_ran(path, *run_notebook(path))


def write_notebook(path, *sources):
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": s.splitlines(keepends=True)} for s in sources]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return str(path)


def test_a_cell_that_raises_fails_with_its_traceback_in_the_report(tmp_path):
    path = write_notebook(tmp_path / "raises.ipynb", "x = 1", "def f():\n    return {}['no such key']\nf()")
    returncode, output = run_notebook(path)
    assert returncode == 1
    assert "FAILED" in output and "cell 1 raised KeyError" in output
    assert 'File "<raises.ipynb cell 1>", line 2, in f' in output  # the cell's own traceback
    assert "canary after raises.ipynb cell 0: ok" in output and "canary after raises.ipynb cell 1: ok" in output
    with pytest.raises(pytest.fail.Exception, match=r"(?s)raises.ipynb: exit status 1.*no such key"):
        require_ran(path, returncode, output)


def test_a_crash_of_the_interpreter_fails_its_notebook_alone_with_the_stack(tmp_path):
    """A segmentation fault in a cell (here: ctypes reading address 0) ends that notebook's
    process; its report names the signal and the cell, and this process goes on."""
    path = write_notebook(tmp_path / "crashes.ipynb", "import ctypes", "ctypes.string_at(0)")
    returncode, output = run_notebook(path)
    assert returncode == -signal.SIGSEGV
    assert "Segmentation fault" in output and "<crashes.ipynb cell 1>" in output
    assert output.rstrip().count("canary after crashes.ipynb cell 0: ok") == 1  # the last cell that ran whole
    with pytest.raises(pytest.fail.Exception, match="crashes.ipynb: killed by SIGSEGV"):
        require_ran(path, returncode, output)
