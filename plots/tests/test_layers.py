"""Layers point one way: every `#include "hashlab/..."` of every source file names a folder of its own
layer's folder or of a lower layer, by the table of docs/design.md ("Layers"), which this test reads.
An include that runs back up (common including the harness, a paper including the catalogue, the
own-data commands including compare) fails here, in CPU CI.

    python3 plots/tests/test_layers.py     # the same check, with every offending line"""
import glob
import os
import re
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DESIGN = os.path.join(ROOT, "docs", "design.md")
SOURCES = (".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](hashlab/[^">]+)[">]', re.M)


def layer_table():
    """(the folders' patterns by layer, {(from, to)} the sideways includes allowed) from design.md."""
    with open(DESIGN) as f:
        text = f.read()
    m = re.search(r"<!-- layers: .*?-->\s*```(.*?)```\s*<!-- layers end -->", text, re.S)
    if not m:
        raise AssertionError("docs/design.md has no layers block (<!-- layers: ... --> ... <!-- layers end -->)")
    layers, sideways = {}, set()
    for line in m.group(1).strip().splitlines():
        key, _, rest = line.partition(":")
        if key.startswith("layer "):
            layers[int(key.split()[1])] = rest.split()
        elif key == "sideways":
            a, _, b = rest.partition("->")
            sideways.add((a.strip(), b.strip()))
        else:
            raise AssertionError(f"docs/design.md's layers block: cannot read {line!r}")
    return layers, sideways


def folders(layers):
    """{folder: layer} for every folder of the tree the table names (papers/* expanded)."""
    out = {}
    for layer, patterns in layers.items():
        for pattern in patterns:
            for path in glob.glob(os.path.join(ROOT, pattern)):
                if os.path.isdir(path):
                    out[os.path.relpath(path, ROOT)] = layer
    return out


def tracked_files():
    try:
        names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True).stdout.decode()
        return [n for n in names.split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        return [os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "**", "*"), recursive=True)]


def violations():
    layers, sideways = layer_table()
    layer_of = folders(layers)
    # Which folder a header belongs to: the one whose include/ holds it (two folders may share a
    # directory name under hashlab/, as common's and servers' testing/ do).
    def owner(header):
        for folder in layer_of:
            if os.path.isfile(os.path.join(ROOT, folder, "include", header)):
                return folder
        return None
    def check(name, text):
        """The includes of file `name` (its text) against the table."""
        folder = next((f for f in layer_of if name.startswith(f + "/")), None)
        if folder is None:
            return []  # scripts/, build helpers: not a layer
        out = []
        for m in INCLUDE.finditer(text):
            target = owner(m.group(1))
            if target is None or target == folder:
                continue
            if layer_of[target] < layer_of[folder] or (folder, target) in sideways:
                continue
            line = text.count("\n", 0, m.start()) + 1
            out.append(f"{name}:{line}: {folder} (layer {layer_of[folder]}) includes {m.group(1)} of {target} "
                       f"(layer {layer_of[target]})")
        return out
    found = []
    for name in tracked_files():
        if not name.endswith(SOURCES):
            continue
        with open(os.path.join(ROOT, name), errors="replace") as f:
            found += check(name, f.read())
    return found, layer_of, check


class Layers(unittest.TestCase):
    def test_every_folder_of_the_tree_with_headers_has_a_layer(self):
        _, layer_of, _ = violations()
        for d in glob.glob(os.path.join(ROOT, "**", "include", "hashlab", "*"), recursive=True):
            rel = os.path.relpath(d, ROOT)
            if rel.startswith(("build", "results")):
                continue
            folder = rel.split("/include/")[0]
            self.assertIn(folder, layer_of, f"{folder} has headers but no layer in docs/design.md")

    def test_no_include_points_up(self):
        found, _, _ = violations()
        self.assertEqual(found, [], "includes against the layers of docs/design.md:\n" + "\n".join(found))

    def test_the_check_sees_an_upward_include(self):
        # Not vacuous: common including the harness would be found.
        layers, sideways = layer_table()
        layer_of = folders(layers)
        self.assertLess(layer_of["common"], layer_of["harness"])
        self.assertLess(layer_of["papers/cuckoo"], layer_of["catalogue"])
        self.assertNotIn(("owndata", "compare"), sideways)
        self.assertEqual(layer_of["owndata"], layer_of["compare"])  # the same layer: neither may use the other
        # The algorithms across GPU servers are the catalogue's: the own-data commands and the
        # gpu_servers experiments share a layer above it, and neither may use the other.
        self.assertNotIn(("owndata", "gpu_servers"), sideways)
        self.assertNotIn(("gpu_servers", "owndata"), sideways)
        self.assertEqual(layer_of["owndata"], layer_of["gpu_servers"])
        self.assertLess(layer_of["servers"], layer_of["catalogue"])

    def test_an_include_against_the_table_is_reported(self):
        # The check itself, on files it has not seen: the catalogue including the own-data commands
        # (up), owndata including gpu_servers (sideways, not in the table) and gpu_servers including
        # owndata are found; the catalogue including servers/ (down) and the harness servers/ (the
        # table's sideways) are not.
        _, _, check = violations()
        for name, header in (("catalogue/src/x.cpp", "hashlab/owndata/commands.hpp"),
                             ("owndata/src/x.cpp", "hashlab/gpu_servers/inputs.hpp"),
                             ("gpu_servers/src/x.cpp", "hashlab/owndata/commands.hpp")):
            self.assertEqual(len(check(name, f'#include "{header}"\n')), 1, f"{name} including {header}")
        for name, header in (("catalogue/src/x.cpp", "hashlab/servers/group.hpp"),
                             ("owndata/src/x.cpp", "hashlab/catalogue/across_servers.hpp"),
                             ("harness/src/x.cpp", "hashlab/servers/group.hpp")):
            self.assertEqual(check(name, f'#include "{header}"\n'), [], f"{name} including {header}")


if __name__ == "__main__":
    found, _, _ = violations()
    print("\n".join(found) or "layers: no include points up")
    unittest.main()
