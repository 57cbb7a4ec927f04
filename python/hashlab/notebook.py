"""Running the notebooks of docs/notebooks/ without Jupyter: a small executor that runs a
notebook's code cells in order in one namespace and records what each printed, its last
expression's value and the matplotlib figures it drew (as PNG) into the .ipynb file, as Jupyter
would. A GPU node without network access has no notebook runner; this needs only the package and
matplotlib.

    python -m hashlab.notebook docs/notebooks/*.ipynb            # run, write outputs in place
    python -m hashlab.notebook --check docs/notebooks/*.ipynb    # run, write nothing (CI)

A cell that needs a GPU starts with ``if needs_gpu():``, which on a machine without one prints
why the cell is skipped and returns False, in Jupyter and here alike. A cell that raises stops the
run (exit status 1) with the traceback recorded in that cell's outputs and printed on stderr. The
command runs with the fault handler on: a crash of the interpreter (a segmentation fault in
compiled code) prints the Python stack, whose frames name the cell ("<name.ipynb cell 8>").
"""
import argparse
import ast
import base64
import contextlib
import faulthandler
import io
import json
import os
import subprocess
import sys
import time
import traceback

from ._device import gpu_status


def needs_gpu():
    """True with a usable CUDA GPU; else prints why the cell is skipped and returns False."""
    available, why = gpu_status()
    if not available:
        print(f"skipped on this machine: this cell needs a CUDA GPU ({why})")
    return available


class CellError(Exception):
    """A cell raised: the message names the notebook and the cell; `cell` is the cell's index and
    `traceback` the cell's traceback as text (what the notebook records in the cell's outputs)."""

    def __init__(self, message, cell=None, traceback=""):
        super().__init__(message)
        self.cell = cell
        self.traceback = traceback


def _stream(name, text):
    return {"output_type": "stream", "name": name, "text": text.splitlines(keepends=True)}


def _mime_bundle(value):
    """A value as Jupyter shows it: text/plain always, text/html when the object renders so."""
    bundle = {"text/plain": repr(value).splitlines(keepends=True) or [""]}
    html = getattr(value, "_repr_html_", None)
    if callable(html):
        try:
            rendered = html()
        except Exception:  # a broken _repr_html_ costs the HTML, not the run
            rendered = None
        if rendered:
            bundle["text/html"] = rendered.splitlines(keepends=True)
    return bundle


class _Run:
    """One notebook's namespace and the outputs of the cell being run."""

    def __init__(self):
        self.namespace = {"__name__": "__main__", "display": self.display, "needs_gpu": needs_gpu}
        self.outputs = []
        self.stdout = io.StringIO()
        self.stderr = io.StringIO()

    def flush_streams(self):
        for name, buffer in (("stdout", self.stdout), ("stderr", self.stderr)):
            text = buffer.getvalue()
            if text:
                self.outputs.append(_stream(name, text))
            buffer.seek(0)
            buffer.truncate()

    def display(self, *values):
        """IPython's display(): each value (or a figure) as an output of the running cell."""
        self.flush_streams()
        for value in values:
            if _is_figure(value):
                self.outputs.append(_figure_output(value))
            else:
                self.outputs.append({"output_type": "display_data", "data": _mime_bundle(value), "metadata": {}})

    def run_cell(self, source, filename):
        self.outputs = []
        tree = ast.parse(source, filename=filename)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        value = None
        with contextlib.redirect_stdout(self.stdout), contextlib.redirect_stderr(self.stderr):
            exec(compile(tree, filename, "exec"), self.namespace)
            if last is not None:
                value = eval(compile(last, filename, "eval"), self.namespace)
        self.flush_streams()
        if value is not None and not _is_figure(value) and not _is_artist_list(value):
            self.outputs.append({"output_type": "execute_result", "data": _mime_bundle(value), "metadata": {}})
        self.outputs.extend(_open_figures())
        return self.outputs


def _is_figure(value):
    return type(value).__name__ == "Figure" and hasattr(value, "savefig")


def _is_artist_list(value):
    """A plot call's return value (a list of lines, a text object, ...), which Jupyter would echo
    and nobody wants to read."""
    if isinstance(value, (list, tuple)) and value:
        value = value[0]
    return type(value).__module__.startswith("matplotlib.")


def _figure_output(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight", dpi=100)
    return {"output_type": "display_data",
            "data": {"image/png": base64.b64encode(buffer.getvalue()).decode("ascii"),
                     "text/plain": [repr(figure)]},
            "metadata": {}}


def _open_figures():
    """The PNG of every figure the cell left open (then closed), as Jupyter's inline backend shows them."""
    if "matplotlib.pyplot" not in sys.modules:
        return []
    import matplotlib.pyplot as plt

    outputs = [_figure_output(plt.figure(n)) for n in plt.get_fignums()]
    plt.close("all")
    return outputs


def _revision(folder):
    """The revision the notebook ran at: HASHLAB_GIT_SHA when set (a tree shipped without its .git,
    as scripts/gpu_check.sh takes it), else git's."""
    if os.environ.get("HASHLAB_GIT_SHA"):
        return os.environ["HASHLAB_GIT_SHA"]
    try:
        return subprocess.run(["git", "-C", folder, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def execute(path, write=True, after_cell=None):
    """Runs the notebook at `path`; with `write`, stores every code cell's outputs (and the GPU
    and revision it ran on) into the file. Raises CellError when a cell raises (the file then holds
    the outputs up to that cell and its traceback). Returns the seconds it took.

    `after_cell(index)`, when given, is called after each code cell that ran (one that raised
    included), in the notebook's folder: a check between cells (the package's tests exercise the
    allocator there, so that a cell that corrupts memory fails at that cell, not later)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    with open(path, encoding="utf-8") as f:
        notebook = json.load(f)
    folder = os.path.dirname(os.path.abspath(path))
    run = _Run()
    started = time.perf_counter()
    count = 0
    failure = None
    old_cwd = os.getcwd()
    os.chdir(folder)  # a notebook's relative paths are from its own folder, as in Jupyter
    sys.path.insert(0, folder)
    try:
        for index, cell in enumerate(notebook.get("cells", [])):
            if cell.get("cell_type") != "code":
                continue
            count += 1
            source = "".join(cell.get("source", []))
            try:
                outputs = run.run_cell(source, f"<{os.path.basename(path)} cell {index}>")
            except Exception as error:  # recorded in the notebook, then reported
                run.flush_streams()
                lines = traceback.format_exception(type(error), error, error.__traceback__)
                outputs = run.outputs + [{
                    "output_type": "error", "ename": type(error).__name__, "evalue": str(error),
                    "traceback": lines}]
                failure = CellError(f"{path}: cell {index} raised {type(error).__name__}: {error}", index,
                                    "".join(lines))
            cell["outputs"] = outputs
            cell["execution_count"] = count
            if after_cell is not None:
                after_cell(index)
            if failure:
                break
    finally:
        os.chdir(old_cwd)
        sys.path.remove(folder)
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
    seconds = time.perf_counter() - started
    if write:
        available, why = gpu_status()
        from . import _core

        notebook.setdefault("metadata", {})["hashlab"] = {
            "gpu": _core.device_info()["name"] if available else f"none ({why})",
            "revision": _revision(folder),
            "seconds": round(seconds, 1),
            "failed": failure is not None,
        }
        with open(path, "w", encoding="utf-8") as f:
            json.dump(notebook, f, indent=1, ensure_ascii=False)
            f.write("\n")
    if failure:
        raise failure
    return seconds


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m hashlab.notebook", description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", help=".ipynb files")
    parser.add_argument("--check", action="store_true", help="run without writing the outputs into the files")
    args = parser.parse_args(argv)
    if not faulthandler.is_enabled():
        faulthandler.enable()  # a crash in compiled code prints the stack (the cell's name among its frames)
    failed = 0
    for path in args.notebooks:
        try:
            seconds = execute(path, write=not args.check)
            print(f"{path}: ran in {seconds:.1f} s" + ("" if args.check else ", outputs written"), flush=True)
        except CellError as error:
            print(f"FAILED {error}\n{error.traceback}", file=sys.stderr, flush=True)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
