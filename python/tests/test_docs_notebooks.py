"""The notebooks of docs/notebooks/ run from start to end here (their GPU cells, without a GPU,
say they are skipped): nothing the reader runs without a GPU is broken. Their outputs are not
rewritten (--check)."""
import glob
import os

import pytest

from hashlab import notebook

NOTEBOOKS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "notebooks", "*.ipynb")))


def test_there_is_a_notebook_per_paper():
    names = {os.path.splitext(os.path.basename(p))[0] for p in NOTEBOOKS}
    assert names == {"cuckoo", "hashgraph", "rapids_groupby", "ega", "pkpk_join"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: os.path.basename(p))
def test_a_notebook_runs_start_to_end(path):
    pytest.importorskip("matplotlib")
    notebook.execute(path, write=False)
