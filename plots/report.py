"""Writes report.md (and report.html with the same content): the device and its measured limits,
the summary, the headline claims, then per module its experiments, figures and the table of its
claims beside our measurements with the verdict the engine (plots/verdicts.py) decided by the
rules of docs/verdicts.md. This script renders; it decides nothing.

    python3 plots/report.py --results results                 # report of your own run, written there
    python3 plots/report.py --results results/reference/<gpu> # a committed run; written to results/
    python3 plots/report.py --readme                          # print the README's headline table

A report of a committed reference run is written outside results/reference/ unless --out names
that folder (how the committed report itself is regenerated)."""
import argparse
import glob
import html
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import modules as md  # noqa: E402
import result_files  # noqa: E402
import verdicts as ve  # noqa: E402



def reference_dirs():
    return sorted(d for d in glob.glob(os.path.join(ROOT, "results", "reference", "*")) if os.path.isdir(d))


def is_reference(path):
    ref = os.path.realpath(os.path.join(ROOT, "results", "reference"))
    return os.path.realpath(path).startswith(ref + os.sep)


def point_counts(results_dir, module):
    """(experiments, points, sampled, skipped, failed points) of a module's CSVs."""
    csvs = sorted(glob.glob(os.path.join(results_dir, module, "*.csv")))
    points, sampled, skipped, failed = set(), set(), set(), set()
    res = ve.Results(results_dir)
    for path in csvs:
        experiment = os.path.splitext(os.path.basename(path))[0]
        for r in res.rows(module, experiment) or []:
            key = (experiment, r["variant"], r["n"], r.get("param_name"), r["param_value"])
            points.add(key)
            if r.get("status") == "skipped":
                skipped.add(key)
            elif r.get("verified") == "sampled":
                sampled.add(key)
            elif r.get("verified") != "true":
                failed.add(key)
    return len(csvs), len(points), len(sampled - failed), len(skipped), len(failed)


def sidecar_values(results_dir, key, default="?", width=None):
    """The values of one field over the JSON sidecars of a results folder's experiments (its module
    folders only: not device.json, nor a nested run such as full/), cut to `width` characters."""
    values = set()
    for m in md.known(results_dir):
        for path in glob.glob(os.path.join(results_dir, m, "*.json")):
            values.add(str(result_files.read_json(path).get(key, default))[:width])
    return values


def provenance(results_dir):
    shas = sidecar_values(results_dir, "git_sha", width=12)
    dates = sidecar_values(results_dir, "started", default="", width=10) - {""}
    profiles = sidecar_values(results_dir, "profile")
    if not shas:
        return []
    return [f"Runs from {', '.join(sorted(dates)) or 'unknown dates'}, git revision(s) {', '.join(sorted(shas))}, "
            f"profile {', '.join(sorted(profiles))}. Every point is checked against the CPU reference: in full "
            f"(`verified`), or on a documented sample for the largest inputs (`sampled`, counted apart); a point that "
            f"does not match is failed and used by no claim.", ""]


def cell(text):
    return str(text).replace("|", "/").replace("\n", " ")


def verdict_cell(v):
    out = f"**{v.verdict}**"
    if v.reason:
        out += f": {v.reason}"
    if v.sampled:
        out += " (rests on sampled checks)"
    if v.note:
        out += f". *{v.note}*"
    return cell(out)


def measured_cell(v):
    return cell(v.measured + "".join(f"; beside: {b}" for b in v.beside))


def claims_table(verdicts, lines, with_module=False):
    head = "| " + ("module | " if with_module else "") + "id | where | claim | paper | measured here | verdict |"
    lines.append(head)
    lines.append("|" + "---|" * (head.count("|") - 1))
    for v in verdicts:
        lines.append("| " + (f"{v.module} | " if with_module else "") +
                     f"`{v.id}` | {cell(v.where)} | {cell(v.claim)} | {cell(v.paper)} | {measured_cell(v)} | "
                     f"{verdict_cell(v)} |")
    lines.append("")


def summary_section(results_dir, verdicts, lines):
    lines.append("| module | experiments | points | sampled | skipped | failed | paper claims | reproduced | partly | "
                 "not reproduced | not measured | information | ours (questions, bars) |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    totals = [0] * 12
    for module in md.known(results_dir):
        experiments, points, sampled, skipped, failed = point_counts(results_dir, module)
        mine = [v for v in verdicts if v.module == module]
        if not experiments and not mine:
            continue
        paper = [v for v in mine if not v.ours]
        counts = ([experiments, points, sampled, skipped, failed, len(paper)] +
                  [sum(v.verdict == k for v in paper) for k in ve.VERDICTS] + [len(mine) - len(paper)])
        totals = [t + c for t, c in zip(totals, counts)]
        lines.append(f"| {module} | " + " | ".join(str(c) for c in counts) + " |")
    lines.append("| all | " + " | ".join(str(c) for c in totals) + " |")
    lines.append("")
    lines.append("Verdicts follow one rule book for every paper (`docs/verdicts.md`): a relation is "
                 "`reproduced` only if it holds at the worst repetition, `partly` if only at the median or at some of "
                 "its points; rates of rare events are judged with a 95% interval; the papers' absolute figures from "
                 "other GPUs are information (`measured`), their ratios to their own baselines are the claims. The "
                 "verdict columns count the papers' claims; a paper's claim read as information is counted under "
                 "`information` and listed with its reason below; our own questions and acceptance bars are counted "
                 "apart.")
    lines.append("")


def unjudged_section(verdicts, lines):
    """Every paper's claim that gets no verdict here: not measured, or read as information, each
    with its reason (so that neither can hide a claim)."""
    rows = [v for v in verdicts if not v.ours and v.verdict in (ve.NOT_MEASURED, ve.MEASURED)]
    lines += ["## Paper claims not judged", "",
              f"{len(rows)} of {sum(not v.ours for v in verdicts)} papers' claims get no verdict here: not measured "
              "(nothing this run measured decides them), or read as information (a paper's absolute figure from "
              "its own GPU, rule 2, or the reason the claim file gives).", ""]
    if not rows:
        lines += ["None.", ""]
        return
    lines += ["| module | id | claim | as | why |", "|---|---|---|---|---|"]
    for v in rows:
        kind = "not measured" if v.verdict == ve.NOT_MEASURED else "information"
        why = v.reason if v.verdict == ve.NOT_MEASURED else v.information
        lines.append(f"| {v.module} | `{v.id}` | {cell(v.claim)} | {kind} | {cell(why)} |")
    lines.append("")


def module_section(results_dir, module, verdicts, lines, image_root):
    csvs = sorted(glob.glob(os.path.join(results_dir, module, "*.csv")))
    mine = [v for v in verdicts if v.module == module]
    if not csvs and not mine:
        return
    lines.append(f"## {module}: {md.title(module, results_dir)}\n")
    lines.append(f"Code and deviations: `{md.docs_path(module, results_dir)}`. Claims: "
                 f"`{os.path.relpath(ve.claims_path(module), ROOT)}`.")
    lines.append("")
    res = ve.Results(results_dir)
    for path in csvs:
        experiment = os.path.splitext(os.path.basename(path))[0]
        meta = result_files.sidecar(results_dir, module, experiment)
        figure = f" ({meta.get('figure', '')}: {meta.get('description', '')})" if meta else ""
        rows = res.rows(module, experiment) or []
        point = lambda r: (r["variant"], r["n"], r.get("param_name"), r["param_value"])
        pts = {point(r) for r in rows}
        skipped = {point(r) for r in rows if r.get("status") == "skipped"}
        failed = {point(r) for r in rows if r.get("verified") not in ("true", "sampled")} - skipped
        sampled = {point(r) for r in rows if r.get("verified") == "sampled"}
        status = f"**{len(failed)} FAILED**" if failed else (
            f"all verified ({len(sampled)} on a sample)" if sampled else "all verified")
        if skipped:
            status += f"; {len(skipped)} skipped ("
            status += "; ".join(sorted({r["note"].replace("skipped: ", "") for r in rows
                                        if r.get("status") == "skipped"}))[:300] + ")"
        lines.append(f"- `{experiment}`{figure}: {len(pts)} points, {status}")
    lines.append("")
    for png in sorted(glob.glob(os.path.join(results_dir, module, "*.png"))):
        lines.append(f"![{os.path.basename(png)}]({os.path.relpath(png, image_root)})\n")
    if mine:
        claims_table(mine, lines)


def shorten(text, limit=220):
    """The start of a long cell, cut after a whole item ('; ' or ', '), for the README."""
    if len(text) <= limit:
        return text
    cut = max(text.rfind("; ", 0, limit), text.rfind(", ", 0, limit))
    return text[:cut if cut > limit // 3 else limit] + " ..."


def headline_table(verdicts, compact=False):
    """The claims marked headline, as the engine judged them (compact: the README's form, without
    the notes and the side measurements, which the report has)."""
    lines = ["| paper | claim | measured here | verdict |", "|---|---|---|---|"]
    for v in verdicts:
        if not v.headline:
            continue
        if compact:
            verdict = f"**{v.verdict}**" + (f": {v.reason}" if v.reason else "")
            lines.append(f"| {v.module} | {cell(v.claim)} | {cell(shorten(v.measured))} | {cell(verdict)} |")
        else:
            lines.append(f"| {v.module} | {cell(v.claim)} | {measured_cell(v)} | {verdict_cell(v)} |")
    return lines


README_BEGIN, README_END = "<!-- headline: generated by plots/report.py --readme -->", "<!-- headline end -->"


def readme_block(verdicts, source):
    return [README_BEGIN, f"From `{source}`, judged by `plots/verdicts.py` (rules: `docs/verdicts.md`); the "
            f"report there gives every claim with its notes.", ""] + headline_table(verdicts, compact=True) + [README_END]


def inline(text):
    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)
    return re.sub(r"\*([^*]+)\*", r"<i>\1</i>", out)


def to_html(markdown_lines, title):
    body, table, items = [], [], []

    def flush_table():
        if table:
            rows = [f"<tr>{''.join(f'<th>{inline(c)}</th>' for c in table[0])}</tr>"]
            rows += [f"<tr>{''.join(f'<td>{inline(c)}</td>' for c in r)}</tr>" for r in table[1:]]
            body.append("<table border=1 cellspacing=0 cellpadding=4>" + "".join(rows) + "</table>")
            table.clear()

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
            f"<body style='font-family:sans-serif;max-width:1100px;margin:auto'>\n" + "\n".join(body) +
            "\n</body></html>\n")


def measured_limits(limits):
    """(key, label) of each limit a device.json holds, in its order, labelled as the file itself says
    under "fields" (what `hashlab probe` writes from its one list of limits, harness/probe.hpp: the
    label and the unit); a file without "fields" (an earlier revision's: scripts/upgrade_results.py
    adds them) by its keys."""
    fields = limits.get("fields")
    if isinstance(fields, dict):
        return [(key, ", ".join(x for x in (f.get("label", key), f.get("unit", "")) if x))
                for key, f in fields.items() if key in limits]
    return [(key, key) for key, value in limits.items() if isinstance(value, (int, float))]


def run_modules(results_dir):
    """The modules a results folder holds results of (all of them when it holds none)."""
    return md.in_results(results_dir) or md.known(results_dir)


def device_name(results_dir):
    return ve.Results(results_dir).limits().get("device") or os.path.basename(os.path.normpath(results_dir))


def revisions(results_dir):
    return ", ".join(sorted(sidecar_values(results_dir, "git_sha", width=12))) or "?"


def verdict_brief(v, with_reason=False):
    """A verdict and what was measured, cut for a table cell that sets several runs side by side."""
    out = f"**{v.verdict}**: {cell(shorten(v.measured))}"
    return out + (f" ({cell(v.reason)})" if with_reason and v.reason else "")


def gpus_section(results_dir, verdicts, lines):
    """This run beside every other committed reference GPU that ran the same modules: the measured
    limits, the claims about hardware (each GPU's rate beside its own limits), and the other claims
    whose verdict the GPU changes. Nothing when there is no other GPU to show. A reference of another
    host kind that ran none of this run's modules (a multi-GPU host's run of gpu_servers beside the
    single-GPU runs of the papers) is not another GPU for these claims."""
    order = md.known(results_dir)
    modules = sorted({v.module for v in verdicts}, key=lambda m: order.index(m) if m in order else len(order))
    others = [d for d in reference_dirs() if os.path.realpath(d) != os.path.realpath(results_dir)
              and device_name(d) != device_name(results_dir)
              and sidecar_values(d, "profile") == sidecar_values(results_dir, "profile")
              and set(md.in_results(d)) & set(modules)]
    if not others:
        return
    runs = [(results_dir, verdicts)] + [(d, ve.evaluate(d, modules)) for d in others]
    names = [device_name(d) for d, _ in runs]
    by_id = [{(v.module, v.id): v for v in vs} for _, vs in runs]
    lines += ["## On other GPUs", "",
              "The same claims judged on the committed reference run of each other GPU (`results/reference/`, the "
              "same profile), "
              "each against its own measured limits. Revisions: " +
              "; ".join(f"{name}: {revisions(d)}" for name, (d, _) in zip(names, runs)) +
              ". A verdict that differs between two runs of different revisions may owe to the code as well "
              "as to the GPU.", ""]
    lines.append("| measured limit | " + " | ".join(names) + " |")
    lines.append("|---|" + "---|" * len(names))
    limits = [ve.Results(d).limits() for d, _ in runs]
    labelled = {}
    for lim in limits:
        for key, label in measured_limits(lim):
            labelled.setdefault(key, label)
    for key, label in labelled.items():
        lines.append(f"| {label} | " + " | ".join(f"{lim[key]:.4g}" if key in lim else "-" for lim in limits) + " |")
    lines.append("")

    def rows(keys):
        head = "| module | id | claim | " + " | ".join(names) + " |"
        out = [head, "|" + "---|" * (head.count("|") - 1)]
        for key in keys:
            first = by_id[0][key]
            cells = [verdict_brief(m[key]) if key in m else "-" for m in by_id]
            out.append(f"| {first.module} | `{first.id}` | {cell(first.claim)} | " + " | ".join(cells) + " |")
        return out + [""]

    hardware = [(v.module, v.id) for v in verdicts if v.hardware]
    lines += ["Claims about the hardware (a rate against a measured limit, or a paper's absolute figure):", ""]
    lines += rows(hardware)
    changed = [key for key, v in by_id[0].items() if not v.hardware and
               any(key in m and ve.differs(m[key], v) for m in by_id[1:])]
    lines += [f"The other claims whose verdict (or winner) differs between the GPUs ({len(changed)} of "
              f"{len(verdicts) - len(hardware)}):", ""]
    lines += rows(changed) if changed else ["None.", ""]


def full_section(results_dir, verdicts, lines):
    """The claims judged again on the run at the papers' own sizes (`<results_dir>/full/`, the FULL
    profile), for the modules it holds: the verdict counts of both profiles and every claim whose
    verdict the sizes change. Nothing when there is no such run."""
    full = os.path.join(results_dir, "full")
    if not os.path.isdir(full) or not glob.glob(os.path.join(full, "*", "*.csv")):
        return
    ran = run_modules(full)
    modules = [m for m in ran if any(v.module == m for v in verdicts)]
    quick = {(v.module, v.id): v for v in verdicts if v.module in modules}
    at_full = {(v.module, v.id): v for v in ve.evaluate(full, modules)}
    missing = [m for m in md.known(results_dir) if m not in modules and any(v.module == m for v in verdicts)]
    lines += ["## At the papers' sizes (FULL)", "",
              f"Everything above is the **quick** profile. `{os.path.relpath(full, ROOT) if is_reference(full) else full}` "
              f"holds the run at the papers' own sizes (`--full`, revision(s) {revisions(full)}) of "
              f"{', '.join(ran)}" + (f"; not yet of {', '.join(missing)}" if missing else "") +
              ". Its figures are in its module folders, its own report beside them. The same claims judged on it:", ""]
    lines.append("| module | profile | " + " | ".join(ve.VERDICTS) + " |")
    lines.append("|---|---|" + "---|" * len(ve.VERDICTS))
    for m in modules:
        for name, table in (("quick", quick), ("full", at_full)):
            counts = [sum(v.module == m and v.verdict == k for v in table.values()) for k in ve.VERDICTS]
            lines.append(f"| {m} | {name} | " + " | ".join(str(c) for c in counts) + " |")
    lines.append("")
    # A claim that reads an experiment not yet run at full has no data there: not a change of verdict.
    waiting = [k for k in quick if k in at_full and at_full[k].verdict == ve.NOT_MEASURED
               and at_full[k].reason.startswith("no results for")]
    changed = [k for k in quick if k in at_full and k not in waiting and ve.differs(quick[k], at_full[k])]
    lines += [f"Where the papers' sizes change a verdict or a winner ({len(changed)} of {len(quick)} claims"
              + (f"; {len(waiting)} more read an experiment not yet run at full: "
                 + ", ".join(f"`{k[1]}`" for k in waiting) if waiting else "") + "):", ""]
    if not changed:
        lines += ["None.", ""]
        return
    lines += ["| module | id | claim | quick | full |", "|---|---|---|---|---|"]
    for key in changed:
        q, f = quick[key], at_full[key]
        lines.append(f"| {q.module} | `{q.id}` | {cell(q.claim)} | {verdict_brief(q, True)} | {verdict_brief(f, True)} |")
    lines.append("")


def report_lines(results_dir, image_root, note=""):
    """The report of one results folder, as markdown lines; figures linked relative to image_root
    (the folder report.md is written to)."""
    modules = run_modules(results_dir)
    verdicts = ve.evaluate(results_dir, modules)
    lines = ["# hashlab report", ""]
    if note:
        lines += [note, ""]
    absent = [m for m in md.known(results_dir) if m not in modules]
    if absent:
        lines += [f"This run holds results of {', '.join(modules)} only: the claims of {', '.join(absent)} are not "
                  f"judged here.", ""]
    limits = ve.Results(results_dir).limits()
    if limits:
        lines.append(f"Device: **{limits.get('device', 'unknown')}**. Measured limits (`hashlab probe`):")
        lines.append("")
        lines += [f"- {label}: {limits[key]:.4g}" for key, label in measured_limits(limits)]
        lines.append("")
    lines += provenance(results_dir)
    lines += ["## Summary", ""]
    summary_section(results_dir, verdicts, lines)
    lines += ["## Headline claims", ""] + headline_table(verdicts) + [""]
    unjudged_section(verdicts, lines)
    gpus_section(results_dir, verdicts, lines)
    full_section(results_dir, verdicts, lines)
    for module in modules:
        module_section(results_dir, module, verdicts, lines, image_root)
    return lines


def build_report(results_dir, out_dir, note=""):
    lines = report_lines(results_dir, out_dir, note)
    os.makedirs(out_dir, exist_ok=True)
    out_md = os.path.join(out_dir, "report.md")
    with open(out_md, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out_dir, "report.html"), "w") as f:
        f.write(to_html(lines, "hashlab report"))
    return out_md


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default="results", help="the results folder to report on")
    parser.add_argument("--out", default=None, help="where report.md goes (default: --results, or results/ for a "
                                                    "committed reference run)")
    parser.add_argument("--readme", action="store_true", help="print the README's headline block and exit")
    parser.add_argument("--from-reference", default="",
                        help="the committed reference folder that --results is a copy of (no GPU here)")
    args = parser.parse_args(argv)
    results, note = args.results, ""
    if args.from_reference:
        note = (f"No CUDA GPU on the machine that built this report: it shows the committed reference results in "
                f"`{args.from_reference}`.")
    try:
        if args.readme:
            source = results if os.path.isdir(os.path.join(results, "cuckoo")) else reference_dirs()[0]
            print("\n".join(readme_block(ve.evaluate(source), os.path.relpath(source, ROOT))))
            return 0
        if not os.path.isdir(results):
            print(f"report: no results folder {results!r}", file=sys.stderr)
            return 2
        has_own = bool(md.in_results(results))
        out = args.out
        if not has_own:
            refs = reference_dirs()
            if not refs:
                print("report: no results and no committed reference results", file=sys.stderr)
                return 2
            note = (f"No results of this machine's own in `{results}`: this report shows the committed reference "
                    f"results in `{os.path.relpath(refs[0], ROOT)}`.")
            out = out or results
            results = refs[0]
        out = out or (os.path.join(ROOT, "results") if is_reference(results) else results)
        print(f"report: {build_report(results, out, note)} and report.html")
    except ve.ClaimError as e:
        print(f"report: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
