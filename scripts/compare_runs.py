#!/usr/bin/env python3
"""Compares two results folders of `hashlab run` point by point: for each experiment, how the
medians of the timed metrics (unit ms, us, ns or s) of the second run compare with the first's at
the same points.

    python3 scripts/compare_runs.py OLD NEW                 # a table per module (Markdown)
    python3 scripts/compare_runs.py OLD NEW --moved         # and every row that moved, one a line

Rows are joined on (paper, experiment, variant, n, param_name, param_value, metric); only points
that ran (status ok: not skipped, not failed) are compared. A row "moved" when its median changed
by more than --threshold (default 10%) and the two runs' ranges of repetitions (min..max) do not
overlap: a change the repetitions' own spread does not cover. A value a point records once (min =
max = median in both runs, such as MP-EGA's phase times of its last run) has no spread to judge
it by: beyond the threshold it is counted apart ("one value"), not as moved. The rows of one run
only (a new experiment, variant or point) are counted beside. The limits each run probed (device.json) are
printed first, since a GPU instance with other limits moves the rates that they bound.

This says what moved, never why: a cause (the GPU's limits, the host, a commit) is for a reader
to check. Standard library only; exit status 2 on a folder without results."""
import argparse
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "plots"))
import result_files  # noqa: E402  (the one reader of a results folder's files)

KEY = ("paper", "experiment", "variant", "n", "param_name", "param_value", "metric")
TIME_UNITS = {"ns", "us", "ms", "s"}


def load(folder):
    """{key: row} of every point that ran in `folder`'s <module>/<experiment>.csv files."""
    paths = sorted(glob.glob(os.path.join(folder, "*", "*.csv")))
    if not paths:
        raise SystemExit(f"compare_runs: {folder}: no <module>/<experiment>.csv here")
    rows = {}
    for path in paths:
        for row in result_files.read_rows(path):
            if row.get("status", "ok") not in ("ok", ""):
                continue
            key = tuple("" if row.get(k) is None else row[k] for k in KEY)
            rows[key] = row
    return rows


def limits(folder):
    return {k: v for k, v in result_files.limits(folder).items() if isinstance(v, (int, float))}


def shown(value):
    """A size or a parameter's value for the listing: a whole number in full, without a decimal point."""
    return f"{value:.0f}" if isinstance(value, float) and value.is_integer() else str(value)


def number(row, field):
    try:
        return float(row[field])
    except (KeyError, TypeError, ValueError):
        return None


def compare(old, new, threshold):
    """{(paper, experiment): {"compared", "ratios", "moved": [(key, ratio, old, new)], "one_value": [...
    the same], "only_new", "only_old"}} over the timed rows."""
    out = {}

    def entry(key):
        return out.setdefault(key[:2], {"compared": 0, "ratios": [], "moved": [], "one_value": [], "only_new": 0,
                                            "only_old": 0})

    for key in new.keys() - old.keys():
        entry(key)["only_new"] += 1
    for key in old.keys() - new.keys():
        entry(key)["only_old"] += 1
    for key in old.keys() & new.keys():
        o, n = old[key], new[key]
        if o.get("unit") not in TIME_UNITS or n.get("unit") != o.get("unit"):
            continue
        mo, mn = number(o, "median"), number(n, "median")
        if not mo or mn is None or mo <= 0:
            continue
        e = entry(key)
        e["compared"] += 1
        ratio = mn / mo
        e["ratios"].append(ratio)
        lo_o, hi_o = number(o, "min"), number(o, "max")
        lo_n, hi_n = number(n, "min"), number(n, "max")
        if abs(ratio - 1) <= threshold or None in (lo_o, hi_o, lo_n, hi_n):
            continue
        if lo_o == hi_o == mo and lo_n == hi_n == mn:
            e["one_value"].append((key, ratio, o, n))
        elif lo_n > hi_o or lo_o > hi_n:
            e["moved"].append((key, ratio, o, n))
    return out


def fmt(x):
    return "-" if x is None else f"{x:.3g}"


def report(old_dir, new_dir, threshold, moved_rows, out=sys.stdout):
    old, new = load(old_dir), load(new_dir)
    lo, ln = limits(old_dir), limits(new_dir)
    if lo or ln:
        print("| probed limit | old | new | new/old |", file=out)
        print("|---|---|---|---|", file=out)
        for k in sorted(set(lo) | set(ln)):
            ratio = ln[k] / lo[k] if k in lo and k in ln and lo[k] else None
            print(f"| {k} | {fmt(lo.get(k))} | {fmt(ln.get(k))} | {fmt(ratio)} |", file=out)
        print(file=out)
    table = compare(old, new, threshold)
    everything = [r for e in table.values() for r in e["ratios"]]
    moved = sum(len(e["moved"]) for e in table.values())
    single = sum(len(e["one_value"]) for e in table.values())
    print(f"{len(old)} rows old, {len(new)} new; {len(everything)} timed rows compared, "
          f"median new/old {fmt(statistics.median(everything)) if everything else '-'}, "
          f"{moved} moved (beyond {threshold:.0%}, ranges apart), {single} values recorded once beyond "
          f"{threshold:.0%}", file=out)
    for paper in sorted({p for p, _ in table}):
        print(f"\n{paper}\n", file=out)
        print("| experiment | rows compared | median new/old | quartiles | rows moved | moved up/down "
              "| one value beyond | rows new only | rows old only |", file=out)
        print("|---|---|---|---|---|---|---|---|---|", file=out)
        for (p, experiment), e in sorted(table.items()):
            if p != paper:
                continue
            r = sorted(e["ratios"])
            med = fmt(statistics.median(r)) if r else "-"
            quart = (f"{fmt(statistics.quantiles(r, n=4)[0])}-{fmt(statistics.quantiles(r, n=4)[2])}"
                     if len(r) >= 2 else "-")
            up = sum(1 for m in e["moved"] if m[1] > 1)
            print(f"| {experiment} | {e['compared']} | {med} | {quart} | {len(e['moved'])} | "
                  f"{up}/{len(e['moved']) - up} | {len(e['one_value'])} | {e['only_new']} | {e['only_old']} |", file=out)
    if moved_rows:
        print("\nrows moved, then values recorded once beyond the threshold (paper experiment variant n "
              "param metric: old median [min-max] -> new median [min-max] unit, new/old)", file=out)
        for kind in ("moved", "one_value"):
            for key, ratio, o, n in sorted((m for e in table.values() for m in e[kind]), key=lambda m: m[0]):
                paper, experiment, variant, size, pname, pvalue, metric = key
                param = f"{pname}={shown(pvalue)}" if pname else "-"
                print(f"{kind}: {paper} {experiment} {variant} {shown(size)} {param} {metric}: {o['median']} "
                      f"[{o['min']}-{o['max']}] -> {n['median']} [{n['min']}-{n['max']}] {o['unit']}, "
                      f"{ratio:.3f}", file=out)
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("old", help="the earlier results folder (<module>/<experiment>.csv, device.json)")
    parser.add_argument("new", help="the later results folder")
    parser.add_argument("--threshold", type=float, default=0.10,
                        help="a relative change of the median beyond which a row moved (default 0.10)")
    parser.add_argument("--moved", action="store_true", help="list every row that moved")
    args = parser.parse_args(argv)
    if args.threshold < 0:
        parser.error("--threshold must be >= 0")
    for folder in (args.old, args.new):
        if not os.path.isdir(folder):
            parser.error(f"{folder}: no such folder")
    try:
        report(args.old, args.new, args.threshold, args.moved)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
