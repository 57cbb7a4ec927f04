"""Shared plotting style and result loading for hashlab's figures.

Every paper's script reads results/<paper>/<experiment>.csv (the schema in README.md), plots
only verified points (a FAILED point's timing is never plotted) and writes PNGs next to the
CSVs. Where the paper states numbers, scripts draw them as reference markers.
"""
import math
import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import result_files  # noqa: E402

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def load(results_dir, paper, experiment):
    """Rows of one experiment's CSV (result_files.rows: numeric fields as numbers), `verified` a bool
    (a sampled point is verified, and `sampled`); [] if absent."""
    rows = result_files.rows(results_dir, paper, experiment) or []
    for row in rows:
        row["sampled"] = row.get("verified") == "sampled"
        row["verified"] = row.get("verified") in ("true", "sampled")
    return rows


def verified(rows):
    return [r for r in rows if r["verified"]]


def failed_points(rows):
    """(variant, n, param) of points that failed verification (not those skipped because they do not
    fit this machine's memory: status 'skipped')."""
    return sorted({(r["variant"], r["n"], r["param_value"]) for r in rows
                   if not r["verified"] and r.get("status") != "skipped"},
                  key=lambda t: (t[0], t[1] or 0, t[2] or 0))


def series(rows, metric, variant, x="n", where=None):
    """(xs, medians, mins, maxs) of one variant's metric, sorted by x, verified points only."""
    pts = [r for r in verified(rows) if r["metric"] == metric and r["variant"] == variant
           and (where is None or where(r))]
    pts.sort(key=lambda r: r[x])
    return ([r[x] for r in pts], [r["median"] for r in pts], [r["min"] for r in pts], [r["max"] for r in pts])


def variants(rows, metric=None):
    seen = []
    for r in rows:
        if (metric is None or r["metric"] == metric) and r["variant"] not in seen:
            seen.append(r["variant"])
    return seen


def unit_of(rows, metric):
    for r in rows:
        if r["metric"] == metric:
            return r["unit"]
    return ""


def device_of(rows):
    for r in rows:
        if r.get("device"):
            return r["device"]
    return "unknown device"


def limits(results_dir):
    """The hardware limits hashlab probe wrote (results/device.json), or {}."""
    return result_files.limits(results_dir)


def _sidecar(results_dir, paper, experiment):
    try:
        return result_files.sidecar(results_dir, paper, experiment)
    except (OSError, ValueError):
        return {}


def first_clause(description):
    """A description's head: its text up to the first colon outside parentheses (the whole of it
    when there is none)."""
    depth = 0
    for i, c in enumerate(description):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth = max(0, depth - 1)
        elif c == ":" and depth == 0:
            return description[:i].strip()
    return description.strip()


def figure_name(results_dir, paper, experiment):
    """The paper's figure or section an experiment reproduces, as it registered it ("Fig. 4.4"); the
    experiment's name when its sidecar does not say."""
    return _sidecar(results_dir, paper, experiment).get("figure") or experiment


def title(results_dir, paper, experiment, aspect=None):
    """A figure's title from its experiment's sidecar, as the experiment registered it: "<figure>:
    <its description's head>" ("Fig. 3: build rate vs average appearances per key"), so that a
    title is written once, in the C++ that defines the experiment (the head is the description up
    to its first colon: harness/experiment.hpp). `aspect` names which of the experiment's figures
    this one is, where it draws several ("Fig. 4.4: build and retrieval rates vs N (retrieval)")."""
    sidecar = _sidecar(results_dir, paper, experiment)
    figure = sidecar.get("figure") or experiment
    head = first_clause(sidecar.get("description", ""))
    text = f"{figure}: {head}" if head else figure
    return f"{text} ({aspect})" if aspect else text


def claim(module, claim_id):
    """A claim of `module`'s claims.toml as data (its stated numbers: `within`, `at_least`, ...), so that a
    figure draws the paper's numbers from the one place they are written. Deciding the claim is the
    verdict engine's (plots/verdicts.py), not a figure's."""
    import modules  # noqa: E402 (plots/ is on the path of every plot script)
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.8-3.10 with the tomli package
        import tomli as tomllib
    with open(modules.claims_path(module), "rb") as f:
        for c in tomllib.load(f).get("claim", []):
            if c.get("id") == claim_id:
                return c
    raise KeyError(f"{module}'s claims.toml has no claim {claim_id!r}")


def new_figure(title, xlabel, ylabel, logx=False, logy=False, size=(6.4, 4.2)):
    """A figure of one axes; a title longer than the figure is wide is wrapped onto more lines."""
    fig, ax = plt.subplots(figsize=size)
    ax.set_title(wrapped(title, size[0]), fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def wrapped(title, width_inches):
    """A title cut into lines that fit a figure `width_inches` wide (at the titles' 11 points)."""
    return textwrap.fill(title, width=max(30, int(11.5 * width_inches)), break_on_hyphens=False)


def plot_series(ax, rows, metric, x="n", label_of=None, where=None, only=None):
    """One line per variant with min..max error bars; returns the number of lines drawn."""
    drawn = 0
    for i, v in enumerate(variants(rows, metric)):
        if only is not None and v not in only:
            continue
        xs, med, lo, hi = series(rows, metric, v, x=x, where=where)
        if not xs:
            continue
        err = [[m - l for m, l in zip(med, lo)], [h - m for m, h in zip(med, hi)]]
        ax.errorbar(xs, med, yerr=err, label=label_of(v) if label_of else v, color=COLORS[i % len(COLORS)],
                    marker=MARKERS[i % len(MARKERS)], markersize=4, capsize=2, linewidth=1.2)
        drawn += 1
    return drawn


def hardware_line(ax, value, label):
    """A horizontal line at a measured hardware limit (e.g. the random-atomic rate)."""
    if value:
        ax.axhline(value, color="black", linestyle="--", linewidth=0.9, alpha=0.7)
        ax.annotate(label, xy=(0.01, value), xycoords=("axes fraction", "data"), fontsize=7,
                    va="bottom", alpha=0.8)


def paper_marker(ax, x, y, label):
    """A number the paper states, drawn as a hollow star for comparison."""
    ax.plot([x], [y], marker="*", markersize=11, markerfacecolor="none", markeredgecolor="black", linestyle="none",
            label=label)


# (source folder, output folder): figures of a results folder that must not be written into (the
# committed reference runs, when `make plots` falls back to them) go to the output folder instead.
REDIRECT = None


def save(fig, ax, path, rows=None, note=None):
    """Writes the figure with its device, failed points and note in the footer; the legend is the one
    the script placed, or one of every labelled line where it placed none."""
    handles, labels = ax.get_legend_handles_labels()
    if handles and ax.get_legend() is None:
        ax.legend(fontsize=8)
    foot = device_of(rows) if rows else ""
    if rows and failed_points(rows):
        foot += f" — {len(failed_points(rows))} FAILED points not plotted"
    if note:
        foot = (foot + " — " if foot else "") + note
    if foot:
        fig.text(0.99, 0.01, foot, ha="right", va="bottom", fontsize=7, alpha=0.7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    if REDIRECT and os.path.realpath(path).startswith(os.path.realpath(REDIRECT[0]) + os.sep):
        path = os.path.join(REDIRECT[1], os.path.relpath(os.path.realpath(path), os.path.realpath(REDIRECT[0])))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def script_main(doc, plot, claims=None):
    """The command line of every plot script: draws the figures of --results, then prints the
    claims table (paper vs measured, with the verdict) when the script has one."""
    import argparse
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--results", default="results")
    args = parser.parse_args()
    for path in plot(args.results):
        print(path)
    for c in (claims(args.results) if claims else []):
        print(f"{c['verdict']}: {c['claim']} (paper: {c['paper']}; measured: {c['measured']})")


def median_of(rows, metric, variant=None, n=None, param=None, param_name=None):
    """The median of the first verified row with this metric (and variant, size, parameter value
    and name where given), or None."""
    for r in verified(rows):
        if r["metric"] != metric or (variant is not None and r["variant"] != variant):
            continue
        if n is not None and r["n"] != n:
            continue
        if param_name is not None and r.get("param_name") != param_name:
            continue
        if param is not None and (r["param_value"] is None or not math.isclose(r["param_value"], param, abs_tol=1e-9)):
            continue
        return r["median"]
    return None
