"""Figures of HashGraph (Green et al.), from results/hashgraph/*.csv.

plot(results_dir) draws Fig. 2-9 of the paper with the numbers it states as hollow stars (they
come from a GV100, section 4), and the time of every step of V1's and V2's builds (Fig. 2's
traced builds, sections 3.2 and 3.3). The paper's claims and their verdicts are data:
papers/hashgraph/claims.toml, evaluated by plots/verdicts.py.
"""
import os

import hashlab_style as hs

PAPER = "hashgraph"

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


def issue_bar(ax, value, label):
    """The issue's H100 bar for N = 32M (not a paper number): a dotted line."""
    ax.axhline(value, color="grey", linestyle=":", linewidth=1.0, label=f"issue bar (H100, 32M): {label}")


def plot(results_dir):
    out = os.path.join(results_dir, PAPER)
    limits = hs.limits(results_dir)
    atomic = limits.get("atomic_cas_gops_large")
    read = limits.get("random_read_gops_large")
    written = []

    rows = _load(results_dir, "fig2")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig2"), "load factor (keys / hash range)",
                                "G keys/s")
        hs.plot_series(ax, rows, "build_rate", x="param_value", label_of=label)
        hs.paper_marker(ax, 1.0, PAPER_BUILD_RATE, "paper: 2.5 G keys/s (GV100)")
        issue_bar(ax, 8.0, "V2 >= 8 at load 1")
        hs.hardware_line(ax, atomic, "random 8-byte atomic rate (one per insert)")
        written.append(hs.save(fig, ax, os.path.join(out, "fig2.png"), rows))

    rows = _load(results_dir, "fig2")
    steps = [r for r in hs.verified(rows) if r["metric"].startswith("step_") and r["metric"].endswith("_time")]
    if steps:
        written.append(plot_steps(out, rows, steps, results_dir))

    rows = _load(results_dir, "fig3")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig3"), "average appearances",
                                "G keys/s", logx=True)
        hs.plot_series(ax, rows, "build_rate", x="param_value", label_of=label)
        hs.hardware_line(ax, atomic, "random 8-byte atomic rate")
        issue_bar(ax, 6.0, "V2 >= 6 at 32 appearances")
        written.append(hs.save(fig, ax, os.path.join(out, "fig3.png"), rows))

    rows = _load(results_dir, "fig4")
    if rows:
        sizes = sorted({r["n"] for r in rows})
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 4.0), sharey=True, squeeze=False)
        fig.suptitle(hs.wrapped(hs.title(results_dir, PAPER, "fig4"), 4.2 * len(sizes)), fontsize=11)
        for ax, n in zip(axes[0], sizes):
            ax.set_title(f"N = {size_label(n)}", fontsize=10)
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
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig5"), "average appearances",
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
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig6"),
                                "load factor", "G queries/s")
        hs.plot_series(ax, rows, "probe_rate", x="param_value", label_of=label)
        hs.paper_marker(ax, 2.0, PAPER_PROBE_PEAK, "paper: peak 1.8 G keys/s (GV100)")
        hs.hardware_line(ax, read, "random 8-byte read rate (one per query)")
        written.append(hs.save(fig, ax, os.path.join(out, "fig6.png"), rows))

    rows = _load(results_dir, "fig7")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig7"), "average appearances", "G queries/s",
                                logx=True, logy=True)
        hs.plot_series(ax, rows, "probe_rate", x="param_value", label_of=label)
        hs.hardware_line(ax, read, "random 8-byte read rate")
        issue_bar(ax, 5.0, "probe-new >= 5 at 1 appearance")
        written.append(hs.save(fig, ax, os.path.join(out, "fig7.png"), rows))

    rows = _load(results_dir, "fig8")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig8"),
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
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig9"), "average appearances",
                                "G input keys/s", logx=True, logy=True)
        hs.plot_series(ax, rows, "join_rate", x="param_value", label_of=label)
        written.append(hs.save(fig, ax, os.path.join(out, "fig9.png"), rows))
    return written


def plot_steps(out, rows, steps, results_dir):
    """Fig. 2's traced builds: one bar per step of V1 (Alg. 1's loops) and V2 (Alg. 2's phases) at
    load 1, stacked in the order they run, so that the loop that dominates is seen at a glance."""
    import matplotlib.pyplot as plt
    load = 1.0 if any(r["param_value"] == 1.0 for r in steps) else steps[0]["param_value"]
    fig, ax = plt.subplots(figsize=(7.0, 3.2))
    ax.set_title(hs.wrapped(hs.title(results_dir, PAPER, "fig2", f"V1's loops and V2's phases step by step, load {load:g}"),
                            7.0), fontsize=11)
    ax.set_xlabel("ms (median of the traced builds)")
    names = []
    for i, variant in enumerate(["v1", "v2"]):
        left = 0.0
        for j, r in enumerate(r for r in steps if r["variant"] == variant and r["param_value"] == load):
            name = r["metric"][len("step_"):-len("_time")]
            ax.barh(i, r["median"], left=left, color=hs.COLORS[j % len(hs.COLORS)], edgecolor="white")
            if r["median"] > 0.04 * max(1e-9, sum(s["median"] for s in steps if s["variant"] == variant
                                                      and s["param_value"] == load)):
                ax.text(left + r["median"] / 2, i, name, ha="center", va="center", fontsize=7)
            left += r["median"]
        names.append(label(variant))
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names)
    ax.grid(True, axis="x", alpha=0.3)
    return hs.save(fig, ax, os.path.join(out, "fig2_steps.png"), rows)


if __name__ == "__main__":
    hs.script_main(__doc__, plot)
