"""Figures and claims of HashGraph (Green et al.), from results/hashgraph/*.csv.

plot(results_dir) draws Fig. 2-9 of the paper with the numbers it states as hollow stars (they
come from a GV100, section 4); claims(results_dir) sets the paper's quantitative claims beside our
measurements. The paper's text gives a few of its ratios without their numbers (lost in the
extraction, e.g. "HashGraph-V2 is roughly [?] faster than HashGraph-V1"): for those we check the
direction of the claim and say so.
"""
import argparse
import math
import os

import hashlab_style as hs

PAPER = "hashgraph"
PAPER_N = 2**25  # "both input arrays will have 32M keys unless mentioned otherwise" (section 4)

# Numbers the paper states (GV100, N = 32M).
PAPER_BUILD_RATE = 2.5        # abstract: "build a hash-table at a rate of 2.5 billion keys per second"
PAPER_PROBE_PEAK = 1.8        # 5.2: "At peak, HashGraph can probe at a rate of 1.8 billion keys per second"
PAPER_FIG8_BUILD = {0.5: 1.6, 4.0: 2.4}  # 5.3: "from about 1.6 ... to roughly 2.4 billion keys per second"

LABELS = {
    "v1": "HashGraph-V1", "v2": "HashGraph-V2", "build_v2": "HashGraph-V2 build",
    "linear_probing": "linear probing (cuDF stand-in)",
    "linear_probing_0.5": "linear probing, load 0.5", "linear_probing_0.8": "linear probing, load 0.8",
    "probe_standard": "HashGraph probe-standard", "probe_new": "HashGraph probe-new",
    "hashgraph": "HashGraph (V2 build + probe-new)", "cpu_join": "CPU multi-threaded hash join (MC-Hash stand-in)",
}


def label(v):
    if v.startswith("bins_"):
        return f"{int(v[5:]) // 1024}K bins"
    return LABELS.get(v, v)


def size_label(n):
    return f"{int(n) >> 20}M"


def _load(results_dir, name):
    return hs.load(results_dir, PAPER, name)


def plot(results_dir):
    out = os.path.join(results_dir, PAPER)
    limits = hs.limits(results_dir)
    atomic = limits.get("atomic_cas_gops_large")
    read = limits.get("random_read_gops_large")
    written = []

    rows = _load(results_dir, "fig2")
    if rows:
        fig, ax = hs.new_figure("Fig. 2: build rate vs load factor (sequence input)", "load factor (keys / hash range)",
                                "G keys/s")
        hs.plot_series(ax, rows, "build_rate", x="param_value", label_of=label)
        hs.paper_marker(ax, 1.0, PAPER_BUILD_RATE, "paper: 2.5 G keys/s (GV100)")
        hs.hardware_line(ax, atomic, "random 8-byte atomic rate (one per insert)")
        written.append(hs.save(fig, ax, os.path.join(out, "fig2.png"), rows))

    rows = _load(results_dir, "fig3")
    if rows:
        fig, ax = hs.new_figure("Fig. 3: build rate vs average appearances per key", "average appearances",
                                "G keys/s", logx=True)
        hs.plot_series(ax, rows, "build_rate", x="param_value", label_of=label)
        hs.hardware_line(ax, atomic, "random 8-byte atomic rate")
        written.append(hs.save(fig, ax, os.path.join(out, "fig3.png"), rows))

    rows = _load(results_dir, "fig4")
    if rows:
        sizes = sorted({r["n"] for r in rows})
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 4.0), sharey=True, squeeze=False)
        for ax, n in zip(axes[0], sizes):
            ax.set_title(f"Fig. 4: V2 bins, N = {size_label(n)}", fontsize=10)
            ax.set_xlabel("average appearances")
            ax.set_xscale("log", base=2)
            ax.grid(True, which="both", alpha=0.3)
            variants = sorted(hs.variants(rows, "build_rate"), key=lambda v: int(v[5:]))
            for i, v in enumerate(variants):
                xs, med, _, _ = hs.series(rows, "build_rate", v, x="param_value", where=lambda r, n=n: r["n"] == n)
                if xs:
                    ax.plot(xs, med, label=label(v), color=hs.COLORS[i % len(hs.COLORS)],
                            marker=hs.MARKERS[i % len(hs.MARKERS)], markersize=4)
        axes[0][0].set_ylabel("G keys/s")
        written.append(hs.save(fig, axes[0][-1], os.path.join(out, "fig4.png"), rows))

    rows = _load(results_dir, "fig5")
    if rows:
        fig, ax = hs.new_figure("Fig. 5: V2 build rate vs average appearances, by input size", "average appearances",
                                "G keys/s", logx=True)
        for i, n in enumerate(sorted({r["n"] for r in rows})):
            xs, med, lo, hi = hs.series(rows, "build_rate", "v2", x="param_value", where=lambda r, n=n: r["n"] == n)
            if xs:
                ax.errorbar(xs, med, yerr=[[m - l for m, l in zip(med, lo)], [h - m for m, h in zip(med, hi)]],
                            label=f"N = {size_label(n)}", color=hs.COLORS[i % len(hs.COLORS)],
                            marker=hs.MARKERS[i % len(hs.MARKERS)], markersize=4, capsize=2)
        written.append(hs.save(fig, ax, os.path.join(out, "fig5.png"), rows))

    rows = _load(results_dir, "fig6")
    if rows:
        fig, ax = hs.new_figure("Fig. 6: probe rate vs load factor (sequence probed with itself)",
                                "load factor", "G queries/s")
        hs.plot_series(ax, rows, "probe_rate", x="param_value", label_of=label)
        hs.paper_marker(ax, 2.0, PAPER_PROBE_PEAK, "paper: peak 1.8 G keys/s (GV100)")
        hs.hardware_line(ax, read, "random 8-byte read rate (one per query)")
        written.append(hs.save(fig, ax, os.path.join(out, "fig6.png"), rows))

    rows = _load(results_dir, "fig7")
    if rows:
        fig, ax = hs.new_figure("Fig. 7: probe rate vs average appearances", "average appearances", "G queries/s",
                                logx=True, logy=True)
        hs.plot_series(ax, rows, "probe_rate", x="param_value", label_of=label)
        hs.hardware_line(ax, read, "random 8-byte read rate")
        written.append(hs.save(fig, ax, os.path.join(out, "fig7.png"), rows))

    rows = _load(results_dir, "fig8")
    if rows:
        fig, ax = hs.new_figure("Fig. 8: build and probe vs hash range (2N at load 0.5 .. N/4 at load 4)",
                                "load factor (N / hash range)", "G keys/s")
        lines = [("build_rate", v) for v in hs.variants(rows, "build_rate")] + \
                [("probe_rate", v) for v in hs.variants(rows, "probe_rate")]
        for i, (metric, v) in enumerate(lines):  # one colour per line across both metrics
            xs, med, lo, hi = hs.series(rows, metric, v, x="param_value")
            if xs:
                ax.errorbar(xs, med, yerr=[[m - l for m, l in zip(med, lo)], [h - m for m, h in zip(med, hi)]],
                            label=label(v), color=hs.COLORS[i % len(hs.COLORS)],
                            marker=hs.MARKERS[i % len(hs.MARKERS)], markersize=4, capsize=2)
        for i, (x, y) in enumerate(sorted(PAPER_FIG8_BUILD.items())):
            hs.paper_marker(ax, x, y, "paper: V2 build 1.6 .. 2.4 G keys/s (GV100)" if i == 0 else None)
        written.append(hs.save(fig, ax, os.path.join(out, "fig8.png"), rows))

    rows = _load(results_dir, "fig9")
    if rows:
        fig, ax = hs.new_figure("Fig. 9: join of two random inputs (rate counts both)", "average appearances",
                                "G input keys/s", logx=True, logy=True)
        hs.plot_series(ax, rows, "join_rate", x="param_value", label_of=label)
        written.append(hs.save(fig, ax, os.path.join(out, "fig9.png"), rows))
    return written


# ---- claims -------------------------------------------------------------------------------------

def _value(rows, metric, variant, param=None, n=None):
    """The median of one verified point, or None."""
    for r in hs.verified(rows):
        if r["metric"] != metric or r["variant"] != variant:
            continue
        if param is not None and (r["param_value"] is None or not math.isclose(r["param_value"], param)):
            continue
        if n is not None and r["n"] != n:
            continue
        return r["median"]
    return None


def _largest_n(rows):
    ns = [r["n"] for r in hs.verified(rows) if r["n"]]
    return max(ns) if ns else None


def _fmt(x, unit=" G keys/s"):
    return "not measured" if x is None else f"{x:.2f}{unit}"


def _ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def _verdict(ok, why_not="differs"):
    if ok is None:
        return "not measured"
    return "reproduced" if ok else why_not


def claims(results_dir):
    out = []

    def add(claim, paper, measured, ok, why_not="differs"):
        out.append({"claim": claim, "paper": paper, "measured": measured, "verdict": _verdict(ok, why_not)})

    def add_bar(claim, paper, value, n, at_least):
        """One of the issue's bars, stated for N = 32M: judged only at that size."""
        measured = _fmt(value) + (f" at N = {size_label(n)}" if n else "")
        if value is not None and n != PAPER_N:
            out.append({"claim": claim, "paper": paper, "measured": measured,
                        "verdict": "not judged (quick profile: run --full for N = 32M)"})
        else:
            add(claim, paper, measured, None if value is None else value >= at_least)

    fig2 = _load(results_dir, "fig2")
    n2 = _largest_n(fig2)
    v2 = _value(fig2, "build_rate", "v2", 1.0, n2)
    v1 = _value(fig2, "build_rate", "v1", 1.0, n2)
    add("V2 builds the sequence at 2.5 G keys/s (abstract, load 1, N = 32M)", "2.5 G keys/s on a GV100",
        _fmt(v2), None if v2 is None else v2 >= PAPER_BUILD_RATE)
    add_bar("issue bar: V2 >= 8 G keys/s at load 1, sequence, 32M (H100)", ">= 8 G keys/s", v2, n2, 8.0)
    r = _ratio(v2, v1)
    add("V2 is faster than V1 (5.1, Fig. 2; the factor is lost in the text)", "V2 > V1",
        "not measured" if r is None else f"V2 / V1 = {r:.2f}x at load 1", None if r is None else r > 1.0)
    lp = _value(fig2, "build_rate", "linear_probing", 0.5, n2)
    r = _ratio(_value(fig2, "build_rate", "v2", 0.5, n2), lp)
    add("V2 is faster than cuDF at load 0.5 (5.1, Fig. 2)", "V2 > cuDF (linear probing)",
        "not measured" if r is None else f"V2 / linear probing = {r:.2f}x at load 0.5", None if r is None else r > 1.0)
    lo, hi = _value(fig2, "build_rate", "v2", 0.5, n2), _value(fig2, "build_rate", "v2", 4.0, n2)
    r = _ratio(hi, lo)
    add("V2's build rate rises as the load factor grows (5.1: fewer vertices, fewer loop iterations)",
        "rate(load 4) > rate(load 0.5)", "not measured" if r is None else f"rate(4) / rate(0.5) = {r:.2f}x",
        None if r is None else r > 1.0)

    fig3 = _load(results_dir, "fig3")
    n3 = _largest_n(fig3)
    m1, m32 = _value(fig3, "build_rate", "v2", 1.0, n3), _value(fig3, "build_rate", "v2", 32.0, n3)
    r = _ratio(m32, m1)
    add("V2's build rate barely changes with duplicates (5.1, Fig. 3; summary: little loss at 32 appearances)",
        "small drop at 32 appearances", "not measured" if r is None else f"rate(32) / rate(1) = {r:.2f}",
        None if r is None else r >= 0.75)
    add_bar("issue bar: V2 >= 6 G keys/s at 32 appearances, 32M (H100)", ">= 6 G keys/s", m32, n3, 6.0)
    for m in (2.0, 8.0, 32.0):
        best_lp = max([x for x in (_value(fig3, "build_rate", "linear_probing_0.5", m, n3),
                                   _value(fig3, "build_rate", "linear_probing_0.8", m, n3)) if x is not None],
                      default=None)
        r = _ratio(_value(fig3, "build_rate", "v2", m, n3), best_lp)
        add(f"V2 is faster than the faster cuDF load at {int(m)} appearances (5.1, Fig. 3)", "V2 > cuDF",
            "not measured" if r is None else f"V2 / best linear probing = {r:.2f}x", None if r is None else r > 1.0)

    fig4 = _load(results_dir, "fig4")
    for n in sorted({r["n"] for r in hs.verified(fig4)}):
        best = {}
        for row in hs.verified(fig4):
            if row["metric"] == "build_rate" and row["n"] == n:
                best.setdefault(row["variant"], []).append(row["median"])
        if best:
            winner = max(best, key=lambda v: sum(best[v]) / len(best[v]))
            bins = int(winner[5:])
            add(f"16K or 32K bins build fastest (5.1, Fig. 4), N = {size_label(n)}", "16K-32K bins",
                f"best: {label(winner)} (mean over appearances)", 8192 <= bins <= 65536,
                "differs (best bin count is another)")

    fig5 = _load(results_dir, "fig5")
    ns = sorted({r["n"] for r in hs.verified(fig5)})
    if len(ns) >= 2:
        small = [x for x in [_value(fig5, "build_rate", "v2", 1.0, n) for n in ns] if x is not None]
        if small:
            spread = max(small) / min(small)
            add("V2's rate stays roughly the same as the input grows (section 4, Fig. 5)", "roughly constant",
                f"max / min over {size_label(ns[0])}..{size_label(ns[-1])} = {spread:.2f}x", spread <= 2.0)

    fig6 = _load(results_dir, "fig6")
    n6 = _largest_n(fig6)
    peak = max([r["median"] for r in hs.verified(fig6) if r["metric"] == "probe_rate" and r["variant"].startswith("probe_")],
               default=None)
    add("HashGraph probes at 1.8 G keys/s at peak (5.2, Fig. 6)", "1.8 G keys/s on a GV100", _fmt(peak),
        None if peak is None else peak >= PAPER_PROBE_PEAK)
    std_rates = [r["median"] for r in hs.verified(fig6) if r["metric"] == "probe_rate" and r["variant"] == "probe_standard"]
    if std_rates:
        spread = max(std_rates) / min(std_rates)
        add("probe-standard is near constant across load factors (5.2, Fig. 6)", "near constant",
            f"max / min = {spread:.2f}x", spread <= 1.5)
    r = _ratio(_value(fig6, "probe_rate", "probe_new", 4.0, n6), _value(fig6, "probe_rate", "probe_new", 0.5, n6))
    add("probe-new speeds up as the load factor grows (5.2, Fig. 6)", "rate(load 4) > rate(load 0.5)",
        "not measured" if r is None else f"rate(4) / rate(0.5) = {r:.2f}x", None if r is None else r > 1.0)
    probe = _value(fig6, "probe_time", "probe_new", 1.0, n6)
    build = _value(fig6, "query_build_time", "probe_new", 1.0, n6)
    share = _ratio(build, probe)
    add("most of probe-new's time builds the second table (5.2; the share is lost in the text)",
        "build share > 50%", "not measured" if share is None else f"{100 * share:.0f}% at load 1",
        None if share is None else share > 0.5)

    fig7 = _load(results_dir, "fig7")
    n7 = _largest_n(fig7)
    pn1 = _value(fig7, "probe_rate", "probe_new", 1.0, n7)
    add_bar("issue bar: probe-new >= 5 G keys/s at 1 appearance, 32M (H100)", ">= 5 G keys/s", pn1, n7, 5.0)
    best_lp = max([x for x in (_value(fig7, "probe_rate", "linear_probing_0.5", 32.0, n7),
                               _value(fig7, "probe_rate", "linear_probing_0.8", 32.0, n7)) if x is not None],
                  default=None)
    r = _ratio(_value(fig7, "probe_rate", "probe_new", 32.0, n7), best_lp)
    add("probe-new is faster than cuDF at 32 appearances (5.2, Fig. 7)", "probe-new > cuDF",
        "not measured" if r is None else f"probe-new / best linear probing = {r:.2f}x", None if r is None else r > 1.0)

    fig8 = _load(results_dir, "fig8")
    n8 = _largest_n(fig8)
    lo, hi = _value(fig8, "build_rate", "build_v2", 0.5, n8), _value(fig8, "build_rate", "build_v2", 4.0, n8)
    r = _ratio(hi, lo)
    add("V2's build rate grows from hash range 2N to N/4 (5.3, Fig. 8: 1.6 -> 2.4 G keys/s, 1.5x)", "1.5x",
        "not measured" if r is None else f"{_fmt(lo)} -> {_fmt(hi)} ({r:.2f}x)", None if r is None else r > 1.0)
    best = {}
    for v in ("probe_standard", "probe_new"):
        pts = [(row["param_value"], row["median"]) for row in hs.verified(fig8)
               if row["metric"] == "probe_rate" and row["variant"] == v and row["n"] == n8]
        if pts:
            best[v] = max(pts, key=lambda p: p[1])[0]
    if best:
        add("probing peaks at load factors 1 to 2 (5.3, Fig. 8)", "peak at load 1-2",
            ", ".join(f"{label(v)} peaks at load {x:g}" for v, x in best.items()),
            all(1.0 <= x <= 2.0 for x in best.values()))

    fig9 = _load(results_dir, "fig9")
    n9 = _largest_n(fig9)
    ratios = []
    for row in hs.verified(fig9):
        if row["metric"] == "join_rate" and row["variant"] == "hashgraph" and row["n"] == n9:
            cpu = _value(fig9, "join_rate", "cpu_join", row["param_value"], n9)
            if cpu:
                ratios.append((row["param_value"], row["median"] / cpu))
    if ratios:
        ratios.sort()
        add("one GPU joins faster than a 48-core CPU (MC-Hash), more so with many duplicates (5.4, Fig. 9)",
            "HashGraph > MC-Hash", ", ".join(f"{int(m)}: {x:.1f}x" for m, x in ratios) + " (GPU / CPU)",
            all(x > 1.0 for _, x in ratios))

    largest = _load(results_dir, "largest_input")
    if largest:
        n = _largest_n(largest)
        rate = _value(largest, "build_rate", "v2", None, n)
        add("largest table built on one GPU (section 4; 32 GB GV100, exponent lost in the text)", "2^? keys",
            "not measured" if n is None else f"{n / 2**20:.0f}M keys = 2^{math.log2(n):.2f} at {_fmt(rate)}",
            None if n is None else n >= 2**29)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", default="results")
    args = parser.parse_args()
    for path in plot(args.results):
        print(path)
    for c in claims(args.results):
        print(f"{c['verdict']:>14}  {c['claim']}: paper {c['paper']}, measured {c['measured']}")
