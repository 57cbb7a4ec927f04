"""Figures and cross-paper verdicts of compare/ (results/compare/*.csv).

plot(results_dir) draws each comparison with the hardware limit that bounds it (hs.limits, from
`hashlab probe`): the random 8-byte atomic rate for builds and group-bys (an insert or an
aggregation needs at least one random atomic), the random 8-byte read rate for lookups (at least
one random read each), and for joins of |R| = |S| the rate of one atomic per R row plus one read
per S row. The claims and questions of compare/ are data (compare/claims.toml), judged by
plots/verdicts.py.
"""
import math
import os

import hashlab_style as hs

PAPER = "compare"

LABELS = {
    "cuckoo": "cuckoo (4 fn; multivalue for repeats)",
    "hashgraph_v1": "HashGraph V1",
    "hashgraph_v2": "HashGraph V2",
    "linear_probing": "linear probing (cuDF stand-in)",
    "sorted_array": "sorted array (binary search)",
    "rapids": "RAPIDS hash group-by",
    "sp_ega": "SP-EGA",
    "lphga": "LPHGA",
    "sort": "sort-based (CUB)",
    "cpu": "CPU multi-threaded",
    "bsp": "BSP-sort pk-pk join",
    "hashgraph": "HashGraph probe-new (materialised)",
    "hash_join": "GPU hash join",
    "sort_join": "full sort join",
    "mp_ega": "MP-EGA (host data)",
    "hash": "hash (cuDF-style)",
    "cpu_join": "CPU join (multi-threaded)",
    "cpu_stl": "CPU single-threaded (STL)",
    "sort_join_hmap": "full sort join, the report's hmaps",
}

# compare/tpch's queries (the point's named axis; compare/include/hashlab/compare/tpch.hpp).
TPCH_GROUPBY = [("q1", "Q1: (l_returnflag,\nl_linestatus)"), ("suppkey", "l_suppkey"), ("partkey", "l_partkey"),
                ("orderkey", "l_orderkey")]
TPCH_JOIN = "q18"


def label(v):
    return LABELS.get(v, v)


def _param(name):
    return lambda r: r.get("param_name") == name


def _join_limit(atomic, read):
    """Input rows/s of a join of |R| = |S|: one random atomic per R row, one random read per S row."""
    if not atomic or not read:
        return None
    return 2.0 / (1.0 / atomic + 1.0 / read)


def _tpch_value(rows, variant, param_name, query, metric):
    """(median, min, max) of one verified tpch point's metric, or None."""
    for r in hs.verified(rows):
        if (r["variant"] == variant and r["metric"] == metric and r.get("param_name") == param_name
                and r["param_value"] == query):
            return r["median"], r["min"], r["max"]
    return None


def _sf_of(rows):
    """The scale factor in the points' notes ('TPC-H SF 1, ...'), or ''."""
    for r in rows:
        note = r.get("note") or ""
        if "TPC-H SF " in note:
            return note.split("TPC-H SF ", 1)[1].split(",", 1)[0]
    return ""


def plot_tpch(results_dir, rows, out, atomic, read):
    """Group-by rates per query (bars: TPC-H's keys; outlines: uniform keys of the same number of
    distinct values, same rows), and the Q18 join rates."""
    written = []
    sf = _sf_of(rows)
    groupbys = [v for v in hs.variants(rows, "groupby_rate")]
    if groupbys:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "tpch", f"SF {sf}: lineitem group-by, sum, count, min, max "
                                                                  "of 2 columns"), "grouped by", "G rows/s", logy=True, size=(9.0, 4.6))
        width = 0.8 / len(groupbys)
        for i, v in enumerate(groupbys):
            color = hs.COLORS[i % len(hs.COLORS)]
            for param_name, hollow in (("query", False), ("uniform", True)):
                xs, med, err = [], [], [[], []]
                for k, (query, _) in enumerate(TPCH_GROUPBY):
                    got = _tpch_value(rows, v, param_name, query, "groupby_rate")
                    if got:
                        xs.append(k - 0.4 + (i + 0.5) * width)
                        med.append(got[0])
                        err[0].append(got[0] - got[1])
                        err[1].append(got[2] - got[0])
                if not xs:
                    continue
                if hollow:
                    ax.bar(xs, med, width, fill=False, edgecolor="black", linestyle="--", linewidth=0.9, zorder=3)
                else:
                    ax.bar(xs, med, width, color=color, label=label(v), yerr=err, capsize=2,
                           error_kw={"linewidth": 0.8})
        ax.bar([0], [0], 0, fill=False, edgecolor="black", linestyle="--",
               label="dashed outline: uniform keys, as many distinct values")
        names = []
        for query, name in TPCH_GROUPBY:
            groups = next((r["median"] for r in hs.verified(rows) if r["metric"] == "groups"
                           and r.get("param_name") == "query" and r["param_value"] == query), None)
            names.append(name + (f"\n{int(groups):,} groups" if groups else ""))
        ax.set_xticks(range(len(TPCH_GROUPBY)))
        ax.set_xticklabels(names, fontsize=8)
        low, high = ax.get_ylim()
        ax.set_ylim(low, high * (high / low) ** 1.1)  # room above the bars for the legend
        ax.grid(False, axis="x")
        written.append(hs.save(fig, ax, os.path.join(out, "tpch_groupby.png"), rows,
                               note="Q1: the group-bys that take two key columns"))
    joins = [v for v in hs.variants(rows, "join_rate")]
    if joins:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "tpch", f"SF {sf}: Q18's join, orders with lineitem grouped "
                                                                  "by l_orderkey"), "join", "G input rows/s")
        for i, v in enumerate(joins):
            got = _tpch_value(rows, v, "query", TPCH_JOIN, "join_rate")
            if got:
                ax.bar([i], [got[0]], 0.6, color=hs.COLORS[i % len(hs.COLORS)], label=label(v),
                       yerr=[[got[0] - got[1]], [got[2] - got[0]]], capsize=3)
        ax.set_xticks(range(len(joins)))
        ax.set_xticklabels([label(v) for v in joins], fontsize=7, rotation=15)
        hs.hardware_line(ax, _join_limit(atomic, read), "one random atomic per R row + one random read per S row")
        written.append(hs.save(fig, ax, os.path.join(out, "tpch_join.png"), rows,
                               note="|orders| = |grouped lineitem|; every key matches"))
    return written


def plot(results_dir):
    out = os.path.join(results_dir, PAPER)
    limits = hs.limits(results_dir)
    atomic = limits.get("atomic_cas_gops_large")
    read = limits.get("random_read_gops_large")
    written = []

    rows = hs.load(results_dir, PAPER, "tables")
    if rows:
        for metric, aspect, ylabel, limit, limit_label in [
                ("build_rate", "build rate vs load factor", "G keys/s", atomic,
                 "random 8-byte atomic rate (one per insert)"),
                ("lookup_rate", "lookup rate vs load factor, all hits", "G queries/s",
                 read, "random 8-byte read rate (one per lookup)"),
                ("bytes_per_key", "device bytes per key vs load factor", "bytes / key", None, None)]:
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "tables", aspect), "load factor (keys / slots; HashGraph: keys / vertices)", ylabel, logx=True)
            hs.plot_series(ax, rows, metric, x="param_value", label_of=label, where=_param("load_factor"))
            hs.hardware_line(ax, limit, limit_label or "")
            written.append(hs.save(fig, ax, os.path.join(out, f"tables_{metric.split('_')[0]}_load.png"), rows,
                                   note="sorted array: one point, load 1"))
        for metric, aspect, ylabel, limit, limit_label in [
                ("build_rate", "build rate vs multiplicity", "G keys/s", atomic, "random 8-byte atomic rate"),
                ("lookup_rate", "lookup, count per key, vs multiplicity", "G queries/s", read,
                 "random 8-byte read rate"),
                ("bytes_per_key", "bytes per key vs multiplicity", "bytes / key", None, None)]:
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "tables", aspect), "average rows per key", ylabel, logx=True)
            hs.plot_series(ax, rows, metric, x="param_value", label_of=label, where=_param("multiplicity"))
            hs.hardware_line(ax, limit, limit_label or "")
            written.append(hs.save(fig, ax, os.path.join(out, f"tables_{metric.split('_')[0]}_multiplicity.png"),
                                   rows))

    rows = hs.load(results_dir, PAPER, "groupby")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "groupby", "vs number of groups"),
                                "groups (rightmost: every key distinct)",
                                "G rows/s", logy=True)
        ax.set_xscale("log")
        hs.plot_series(ax, rows, "groupby_rate", x="param_value", label_of=label, where=_param("groups"))
        hs.hardware_line(ax, atomic, "random 8-byte atomic rate (one per row)")
        written.append(hs.save(fig, ax, os.path.join(out, "groupby_groups.png"), rows))
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "groupby", "vs Zipf skew"), "Zipf exponent s", "G rows/s", logy=True)
        hs.plot_series(ax, rows, "groupby_rate", x="param_value", label_of=label, where=_param("zipf_exponent"))
        hs.hardware_line(ax, atomic, "random 8-byte atomic rate (one per row)")
        written.append(hs.save(fig, ax, os.path.join(out, "groupby_zipf.png"), rows))

    rows = hs.load(results_dir, PAPER, "joins")
    if rows:
        limit = _join_limit(atomic, read)
        default_rate = 0.5
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "joins", f"vs table size, match rate {default_rate:g}"),
                                "rows per table", "G input rows/s", logx=True)
        hs.plot_series(ax, rows, "join_rate", label_of=label,
                       where=lambda r: r["param_value"] is not None and math.isclose(r["param_value"], default_rate))
        hs.hardware_line(ax, limit, "one random atomic per R row + one random read per S row")
        written.append(hs.save(fig, ax, os.path.join(out, "joins_size.png"), rows))
        largest = max(r["n"] for r in hs.verified(rows)) if hs.verified(rows) else None
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "joins",
                                         f"vs match rate, {int(largest or 0) >> 20}Mi rows per table"),
                                "match rate", "G input rows/s")
        hs.plot_series(ax, rows, "join_rate", x="param_value", label_of=label, where=lambda r: r["n"] == largest)
        hs.hardware_line(ax, limit, "one random atomic per R row + one random read per S row")
        written.append(hs.save(fig, ax, os.path.join(out, "joins_match_rate.png"), rows))

    rows = hs.load(results_dir, PAPER, "tpch")
    if hs.verified(rows):
        written += plot_tpch(results_dir, rows, out, atomic, read)
    return written


if __name__ == "__main__":
    hs.script_main(__doc__, plot)
