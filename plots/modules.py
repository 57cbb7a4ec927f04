"""The modules of the suite as the results describe them, so that no script keeps a list of them: each
experiment's JSON sidecar names its module with the registry's title, folder and order (`hashlab
list --json` gives the same), and each module's claims are `<folder>/claims.toml`. A new paper's
module appears here once it has results, or a claims file, with nothing to edit.

    modules.known()                   every module, in the registry's order
    modules.in_results(results_dir)   the modules a results folder holds results of, in that order
    modules.title(name)               the module's title ("Alcantara et al., ...")
    modules.claims_path(name)         <ROOT>/<folder>/claims.toml
"""
import functools
import glob
import os

import result_files

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _sidecars(results_dir):
    return glob.glob(os.path.join(results_dir, "*", "*.json"))


@functools.lru_cache(maxsize=None)
def _described(results_dir):
    """{name: {"name", "title", "folder", "order"}} from one results folder's sidecars."""
    out = {}
    for path in _sidecars(results_dir):
        try:
            module = result_files.read_json(path).get("module")
        except (OSError, ValueError):
            continue
        if isinstance(module, dict) and module.get("name"):
            out.setdefault(module["name"], module)
    return out


def _reference_runs():
    runs = []
    for d in sorted(glob.glob(os.path.join(ROOT, "results", "reference", "*"))):
        if os.path.isdir(d):
            runs += [d] + ([os.path.join(d, "full")] if os.path.isdir(os.path.join(d, "full")) else [])
    return runs


def _claim_files():
    """{name: path} of every claims file in the tree (papers/<name>/claims.toml, <name>/claims.toml)."""
    found = {}
    for path in glob.glob(os.path.join(ROOT, "papers", "*", "claims.toml")) + glob.glob(os.path.join(ROOT, "*", "claims.toml")):
        found.setdefault(os.path.basename(os.path.dirname(path)), path)
    return found


def describe(name, results_dir=None):
    """The module's name, title, folder and order: from `results_dir`'s sidecars, else a committed
    reference run's, else what the tree shows (the title is then the name)."""
    for d in ([results_dir] if results_dir else []) + _reference_runs():
        if name in _described(d):
            return _described(d)[name]
    claims = _claim_files().get(name)
    folder = os.path.relpath(os.path.dirname(claims), ROOT) if claims else name
    return {"name": name, "title": name, "folder": folder, "order": None}


def _order_key(results_dir=None):
    def key(name):
        order = describe(name, results_dir).get("order")
        return (order if isinstance(order, int) else 1 << 30, name)
    return key


def known(results_dir=None):
    """Every module the results (this folder's and the committed reference runs') or the claim files
    know of, in the registry's order (those it gives no order last, by name)."""
    names = set(_claim_files())
    for d in ([results_dir] if results_dir else []) + _reference_runs():
        names |= set(_described(d))
        names |= {os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(d, "*", "*.csv"))}
    return sorted(names, key=_order_key(results_dir))


def in_results(results_dir):
    """The modules a results folder holds results (CSVs) of, in the registry's order."""
    names = {os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(results_dir, "*", "*.csv"))}
    return sorted(names, key=_order_key(results_dir))


def title(name, results_dir=None):
    return describe(name, results_dir).get("title") or name


def folder(name, results_dir=None):
    return describe(name, results_dir).get("folder") or name


def claims_path(name):
    """The module's claims file: where the tree has one, else <folder>/claims.toml."""
    return _claim_files().get(name) or os.path.join(ROOT, folder(name), "claims.toml")


def docs_path(name, results_dir=None):
    """Where the module's code and deviations are described: its folder's README.md (or the folder)."""
    f = folder(name, results_dir)
    readme = os.path.join(f, "README.md")
    return readme if os.path.exists(os.path.join(ROOT, readme)) else f + "/"
