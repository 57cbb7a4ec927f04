"""What the notebooks of docs/notebooks/ share: where the repository and its committed reference
runs are, a reference figure's series, a recorded demo trace, and the verdicts of plots/verdicts.py.
Imported by each notebook's first cell (Jupyter and `python -m hashlab.notebook` run a notebook
from its own folder)."""
import os
import sys

import numpy as np
import pandas as pd

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "plots"))

import verdicts  # noqa: E402  (plots/ is on the path now)

# Verdicts' reasons are sentences: show them whole.
pd.set_option("display.max_colwidth", 400)
pd.set_option("display.width", 200)

#: The committed reference runs: the figures are the H200's, the demo traces the H100's.
REFERENCE = os.path.join(REPO, "results", "reference", "h200")
TRACES = os.path.join(REPO, "results", "reference", "h100_80gb_hbm3", "logs")


def reference(module, experiment):
    """A reference run's rows (the columns of docs/design.md's result files), measured points only."""
    rows = pd.read_csv(os.path.join(REFERENCE, module, f"{experiment}.csv"))
    return rows[rows["status"] == "ok"] if "status" in rows else rows


def series(rows, variant, metric, **where):
    """(x, median) of one variant's metric, x the parameter when the rows have one, else n."""
    s = rows[(rows["variant"] == variant) & (rows["metric"] == metric)]
    for column, value in where.items():
        s = s[s[column] == value]
    x = "param_value" if s["param_name"].notna().any() and not where.get("param_value") else "n"
    s = s.sort_values(x)
    return s[x].to_numpy(float), s["median"].to_numpy(float)


def unit(rows, metric):
    return rows[rows["metric"] == metric]["unit"].iloc[0]


def trace(paper):
    """The demo trace `hashlab demo <paper>` recorded on the reference GPU."""
    with open(os.path.join(TRACES, f"demo_{paper}.log"), encoding="utf-8") as f:
        return f.read()


def same(got, expected):
    """Whether two answers (DataFrames) hold the same columns and values (reals within 1e-9)."""
    if list(got.columns) != list(expected.columns) or len(got) != len(expected):
        return False
    return all(np.allclose(got[c].to_numpy(float), expected[c].to_numpy(float), rtol=1e-9, atol=0)
               for c in expected.columns)


def claim_verdicts(module, ids):
    """The verdicts of the named claims on the committed reference run, by plots/verdicts.py."""
    found = [v for v in verdicts.evaluate(REFERENCE, [module]) if v.id in ids]
    return pd.DataFrame({"claim": [v.id for v in found], "verdict": [v.verdict for v in found],
                         "measured": [v.measured for v in found], "reason": [v.reason for v in found]})
