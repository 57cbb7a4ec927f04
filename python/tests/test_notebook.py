"""The notebook executor (python -m hashlab.notebook): cells run in order in one namespace, and
their printed text, last values and figures land in the .ipynb file."""
import base64
import json

import pytest

import hashlab
from hashlab import notebook


def write_notebook(path, *sources):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# title"]}]
    cells += [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
               "source": s.splitlines(keepends=True)} for s in sources]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_outputs_of_text_values_and_figures_are_written_into_the_notebook(tmp_path):
    pytest.importorskip("matplotlib")
    path = write_notebook(
        tmp_path / "n.ipynb",
        "import pandas as pd\nx = 41\nprint('hello')",
        "x + 1",
        "pd.DataFrame({'a': [1, 2]})",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])",
        "display('shown')\nif needs_gpu():\n    print('on a GPU')",
    )
    notebook.execute(str(path))
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == [1, 2, 3, 4, 5]
    assert code[0]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": ["hello\n"]}]
    assert code[1]["outputs"][0]["data"]["text/plain"] == ["42"]
    assert "text/html" in code[2]["outputs"][0]["data"]
    png = [o for o in code[3]["outputs"] if "image/png" in o.get("data", {})]
    assert len(png) == 1 and base64.b64decode(png[0]["data"]["image/png"]).startswith(b"\x89PNG")
    assert not [o for o in code[3]["outputs"] if o["output_type"] == "execute_result"]  # no echo of Line2D
    text = "".join(t for o in code[4]["outputs"] for t in o.get("text", []) + o.get("data", {}).get("text/plain", []))
    assert "'shown'" in text
    assert ("on a GPU" in text) == hashlab.gpu_available()
    assert ("skipped on this machine: this cell needs a CUDA GPU" in text) != hashlab.gpu_available()
    assert nb["metadata"]["hashlab"]["failed"] is False


def test_a_cell_that_raises_stops_the_run_with_its_traceback_recorded(tmp_path, capsys):
    path = write_notebook(tmp_path / "bad.ipynb", "print('first')", "1 / 0", "print('never')")
    with pytest.raises(notebook.CellError, match=r"cell 2 raised ZeroDivisionError") as raised:
        notebook.execute(str(path))
    assert raised.value.cell == 2 and 'File "<bad.ipynb cell 2>", line 1' in raised.value.traceback
    code = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    assert code[1]["outputs"][-1]["ename"] == "ZeroDivisionError"
    assert code[2]["outputs"] == [] and code[2]["execution_count"] is None
    capsys.readouterr()
    assert notebook.main(["--check", str(path)]) == 1
    printed = capsys.readouterr().err  # the command prints the failing cell's traceback
    assert "cell 2 raised ZeroDivisionError" in printed and 'File "<bad.ipynb cell 2>", line 1' in printed


def test_a_check_after_each_cell_sees_every_cell_that_ran(tmp_path):
    path = write_notebook(tmp_path / "n.ipynb", "x = 1", "x += 1", "1 / 0", "x += 1")
    seen = []
    with pytest.raises(notebook.CellError):
        notebook.execute(str(path), write=False, after_cell=seen.append)
    assert seen == [1, 2, 3]  # cell indices (the markdown title is cell 0); the one that raised included


def test_check_mode_leaves_the_file_as_it_was(tmp_path):
    path = write_notebook(tmp_path / "n.ipynb", "print(1)")
    before = path.read_text()
    assert notebook.main(["--check", str(path)]) == 0
    assert path.read_text() == before
