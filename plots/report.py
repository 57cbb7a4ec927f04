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
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hashlab_style as hs  # noqa: E402
from make_plots import MODULES, has_results  # noqa: E402


def module_section(results_dir, module, lines):
    csvs = sorted(glob.glob(os.path.join(results_dir, module, "*.csv")))
    if not csvs:
        return
    lines.append(f"## {module}\n")
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
    script = os.path.join(HERE, module + ".py")
    if os.path.exists(script):
        mod = importlib.import_module(module)
        if hasattr(mod, "claims"):
            claims = mod.claims(results_dir)
            if claims:
                lines.append("| claim in the paper | paper | measured here | verdict |")
                lines.append("|---|---|---|---|")
                for c in claims:
                    lines.append(f"| {c['claim']} | {c['paper']} | {c['measured']} | {c['verdict']} |")
                lines.append("")


def to_html(markdown_lines, title):
    body = []
    for line in markdown_lines:
        if line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("!["):
            src = line[line.index("(") + 1:line.rindex(")")]
            body.append(f'<p><img src="{html.escape(src)}" style="max-width:720px"></p>')
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(set(c) <= set("-") for c in cells):
                continue
            tag = "th" if body and not body[-1].startswith("<tr") else "td"
            body.append("<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in cells) + "</tr>")
        elif line.startswith("- "):
            body.append(f"<li>{html.escape(line[2:])}</li>")
        elif line.strip():
            body.append(f"<p>{html.escape(line)}</p>")
    joined = "\n".join(body).replace("</tr>\n<tr>", "</tr><tr>")
    joined = joined.replace("<tr>", "<table border=1 cellspacing=0 cellpadding=4><tr>", 1) if "<tr>" in joined else joined
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body style='font-family:sans-serif;max-width:900px;margin:auto'>{joined}</body></html>\n")


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
                lines.append(f"- {label}: {limits[key]:.3g}")
        lines.append("")
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
