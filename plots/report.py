"""Writes results/report.md (and report.html with the same content): the device and its
measured limits, then per paper its figures and the table of the paper's quantitative claims
beside our measurements (each paper's plot script provides `claims(results_dir)`), then the
cross-paper comparisons. Without results of its own it reports on the committed reference
results and says so."""
import argparse
import glob
import html
import importlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hashlab_style as hs  # noqa: E402
from make_plots import MODULES, has_results  # noqa: E402


TITLES = {
    "baselines": "Shared baselines (the yardsticks of DESIGN.md)",
    "cuckoo": 'Alcantara et al., "Building an Efficient Hash Table on the GPU"',
    "hashgraph": 'Green et al., "HashGraph: Scalable Hash Tables Using a Sparse Graph Data Structure"',
    "rapids_groupby": 'Chen, Cui, Kiran, Patterson, "Rapids Group-by GPU Hash Based Implementation"',
    "ega": 'Wang, Shen, Lei, "EGA: An Efficient GPU Accelerated Groupby Aggregation Algorithm"',
    "pkpk_join": 'Dash, "Parallel Pk-Pk Join Algorithm Using GPU Servers"',
    "compare": "Side by side: the questions no single paper asks",
}


def module_claims(module, results_dir):
    if not os.path.exists(os.path.join(HERE, module + ".py")):
        return []
    mod = importlib.import_module(module)
    return mod.claims(results_dir) if hasattr(mod, "claims") else []


def verdict_kind(verdict):
    """Sorts a claim's verdict into the summary's columns. compare/ states its claims as 'holds' /
    'does not hold'; its own questions ('which ... wins') answer 'measured: ...'."""
    v = verdict.lower()
    if v.startswith("reproduced") or v.startswith("extended") or v.startswith("holds"):
        return "reproduced"
    if v.startswith("not measured"):
        return "not measured"
    if v.startswith("measured"):  # a question of ours answered by a number, not a paper claim
        return "ours"
    if v.startswith("not reproduced") or v.startswith("no") or v.startswith("does not hold"):
        return "not reproduced"
    return "differs"


def provenance(results_dir):
    """Which runs the results come from: git revisions, dates, command lines (JSON sidecars)."""
    shas, dates, profiles = set(), set(), set()
    for path in glob.glob(os.path.join(results_dir, "*", "*.json")):
        with open(path) as f:
            meta = json.load(f)
        shas.add(str(meta.get("git_sha", "?"))[:12])
        dates.add(str(meta.get("started", meta.get("timestamp", "")))[:10])
        profiles.add(str(meta.get("profile", "?")))
    if not shas:
        return []
    dates.discard("")
    return [f"Runs from {', '.join(sorted(dates)) or 'unknown dates'}, git revision(s) "
            f"{', '.join(sorted(shas))}, profile {', '.join(sorted(profiles))}. Every point is checked against the CPU reference; a point that "
            f"does not match is counted as failed below and not plotted.", ""]


def summary_section(results_dir, lines):
    lines.append("| module | experiments | points | failed | claims reproduced | differ / partly | not reproduced | not measured | our questions, measured |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for module in MODULES:
        csvs = sorted(glob.glob(os.path.join(results_dir, module, "*.csv")))
        if not csvs:
            continue
        points = failed = 0
        for path in csvs:
            rows = hs.load(results_dir, module, os.path.splitext(os.path.basename(path))[0])
            points += len({(r["variant"], r["n"], r["param_value"]) for r in rows})
            failed += len(hs.failed_points(rows))
        kinds = [verdict_kind(c["verdict"]) for c in module_claims(module, results_dir)]
        lines.append(f"| {module} | {len(csvs)} | {points} | {failed} | {kinds.count('reproduced')} | "
                     f"{kinds.count('differs')} | {kinds.count('not reproduced')} | {kinds.count('not measured')} | {kinds.count('ours')} |")
    lines.append("")


def module_section(results_dir, module, lines):
    csvs = sorted(glob.glob(os.path.join(results_dir, module, "*.csv")))
    if not csvs:
        return
    lines.append(f"## {module}: {TITLES.get(module, '')}\n")
    readme = "papers/" + module + "/README.md" if module not in ("baselines", "compare") else \
        ("compare/README.md" if module == "compare" else "common/include/hashlab/baselines/")
    lines.append(f"Code and deviations: `{readme}`.")
    lines.append("")
    for path in csvs:
        experiment = os.path.splitext(os.path.basename(path))[0]
        rows = hs.load(results_dir, module, experiment)
        sidecar = os.path.splitext(path)[0] + ".json"
        figure = ""
        if os.path.exists(sidecar):
            with open(sidecar) as f:
                meta = json.load(f)
            figure = f" ({meta.get('figure', '')}: {meta.get('description', '')})"
        failed = hs.failed_points(rows)
        points = {(r["variant"], r["n"], r["param_value"]) for r in rows}
        status = "all verified" if not failed else f"**{len(failed)} FAILED**"
        lines.append(f"- `{experiment}`{figure}: {len(points)} points, {status}")
    lines.append("")
    for png in sorted(glob.glob(os.path.join(results_dir, module, "*.png"))):
        lines.append(f"![{os.path.basename(png)}]({os.path.relpath(png, results_dir)})\n")
    claims = module_claims(module, results_dir)
    if claims:
        lines.append("| claim in the paper | paper | measured here | verdict |")
        lines.append("|---|---|---|---|")
        for c in claims:
            lines.append(f"| {c['claim']} | {c['paper']} | {c['measured']} | {c['verdict']} |")
        lines.append("")


def inline(text):
    """Markdown's inline `code` and **bold** as HTML (everything else escaped)."""
    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)


def to_html(markdown_lines, title):
    body = []
    table = []  # rows of the table being read

    def flush_table():
        if not table:
            return
        rows = [f"<tr>{''.join(f'<th>{inline(c)}</th>' for c in table[0])}</tr>"]
        rows += [f"<tr>{''.join(f'<td>{inline(c)}</td>' for c in r)}</tr>" for r in table[1:]]
        body.append("<table border=1 cellspacing=0 cellpadding=4>" + "".join(rows) + "</table>")
        table.clear()

    items = []

    def flush_items():
        if items:
            body.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for line in markdown_lines:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-") for c in cells):
                table.append(cells)
            continue
        flush_table()
        if line.startswith("- "):
            items.append(line[2:])
            continue
        flush_items()
        if line.startswith("# "):
            body.append(f"<h1>{inline(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{inline(line[3:])}</h2>")
        elif line.startswith("!["):
            src = line[line.index("(") + 1:line.rindex(")")]
            body.append(f'<p><img src="{html.escape(src)}" style="max-width:720px"></p>')
        elif line.strip():
            body.append(f"<p>{inline(line)}</p>")
    flush_table()
    flush_items()
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body style='font-family:sans-serif;max-width:960px;margin:auto'>\n" + "\n".join(body) +
            "\n</body></html>\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", default="results")
    parser.add_argument("--from-reference", default="",
                        help="the committed reference folder that --results is a copy of (no GPU here)")
    args = parser.parse_args()
    results = args.results
    lines = ["# hashlab report", ""]
    if args.from_reference:
        lines.append(f"No CUDA GPU on the machine that built this report: it shows the committed reference "
                     f"results in `{args.from_reference}`.")
        lines.append("")
    if not any(has_results(results, m) for m in MODULES):
        refs = sorted(d for d in glob.glob(os.path.join(os.path.dirname(HERE), "results", "reference", "*"))
                      if os.path.isdir(d))
        if not refs:
            print("report: no results and no committed reference results")
            return 0
        results = refs[0]
        lines.append(f"No results of this machine's own: this report is built from the committed reference "
                     f"results in `{os.path.relpath(results, os.path.dirname(HERE))}`.")
        lines.append("")
    limits = hs.limits(results)
    if limits:
        lines.append(f"Device: **{limits.get('device', 'unknown')}**. Measured limits (`hashlab probe`):")
        lines.append("")
        for key, label in [("copy_gbps", "device-to-device copy, GB/s"),
                           ("atomic_exch_gops_large", "random 8-byte atomicExch, >= 1 GiB table, G ops/s"),
                           ("atomic_cas_gops_large", "random 8-byte atomicCAS, >= 1 GiB table, G ops/s"),
                           ("random_read_gops_large", "random 8-byte reads, >= 1 GiB table, G reads/s"),
                           ("h2d_pinned_gbps", "host to device, pinned, GB/s")]:
            if key in limits:
                lines.append(f"- {label}: {limits[key]:.4g}")
        lines.append("")
    lines += provenance(results)
    lines.append("## Summary")
    lines.append("")
    summary_section(results, lines)
    for module in MODULES:
        module_section(results, module, lines)
    out_md = os.path.join(results, "report.md")
    with open(out_md, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(results, "report.html"), "w") as f:
        f.write(to_html(lines, "hashlab report"))
    print(f"report: {out_md} and report.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
