"""The files of a results folder, read one way by every script (the plots, the verdict engine, the
report): an experiment's CSV (docs/design.md's result rows), its JSON sidecar (what the run and the
registry say of it), and device.json (the limits `hashlab probe` measured).

    result_files.rows(results_dir, module, experiment)     the CSV's rows, numbers as numbers; None without a CSV
    result_files.sidecar(results_dir, module, experiment)  the sidecar as a dict; {} without one
    result_files.limits(results_dir)                       device.json as a dict; {} without one
"""
import csv
import json
import os

# The fields read as numbers; a named axis' value (param_value "suppkey", "voxel_ball") stays its name.
NUMERIC = ("n", "param_value", "median", "min", "max")


def read_rows(path):
    """The rows of one result CSV as dicts, NUMERIC fields as floats (an empty field None); None when
    the file does not exist."""
    if not os.path.exists(path):
        return None
    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            for key in NUMERIC:
                try:
                    row[key] = float(row[key]) if row.get(key) not in (None, "") else None
                except ValueError:
                    row[key] = row[key] if key == "param_value" else None
            rows.append(row)
    return rows


def read_json(path):
    """A JSON file as a dict, {} when it does not exist (a malformed one raises ValueError)."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def rows(results_dir, module, experiment):
    return read_rows(os.path.join(results_dir, module, experiment + ".csv"))


def sidecar(results_dir, module, experiment):
    return read_json(os.path.join(results_dir, module, experiment + ".json"))


def limits(results_dir):
    return read_json(os.path.join(results_dir, "device.json"))
