"""Figures of the GPU servers (results/gpu_servers/*.csv, written by `hashlab run gpu_servers`): the
Pk-Pk join across GPUs, Dash's report's title taken at its word, and the MPC model's load bound.
The claims are rows of gpu_servers/claims.toml, evaluated by plots/verdicts.py."""
import os
import textwrap

import hashlab_style as hs
import matplotlib.legend
import matplotlib.lines
import matplotlib.transforms

PAPER = "gpu_servers"

LABELS = {"sampled_bsp": "sampled splitters + local BSP join (the report on servers)",
          "sampled_sort": "sampled splitters + local sort join",
          "hashed_hash": "hash partitioning + local hash join (the field's)",
          "sampled_uniform": "sampled splitters, uniform keys", "sampled_sequential": "sampled splitters, sequential keys",
          "sampled_clustered": "sampled splitters, clustered keys", "hashed_uniform": "hash, uniform keys",
          "hashed_sequential": "hash, sequential keys", "hashed_clustered": "hash, clustered keys",
          "report_rule": "the report's log2(p) samples per tile"}
PHASES = ["sample", "splitters", "partition", "all_to_all", "local_sort", "join"]
# The field's anchors, input rows per second per GPU (information: other GPUs, other systems), each
# with its own line style: the two lie 0.19 G/s apart, too close for labels written on the lines.
ANCHORS = [(0.46, "distributed-join, 8 V100s: 800M x 800M in 0.43 s (0.46 G rows/s per GPU)", ":"),
           (0.65, "Gao & Sakharnykh, 1024 A100s: 667 G tuples/s (0.65 G/s per GPU)", "--")]


def label(v):
    return LABELS.get(v, v)


def shared(rows, variant, n, gpus):
    """Whether the point ran with servers sharing a GPU (the local backend on a smaller host)."""
    return any(r["metric"] == "shared_gpu" and r["variant"] == variant and r["n"] == n and r["param_value"] == gpus
               and (r["median"] or 0) > 0 for r in rows)


def plot_by_gpus(rows, ax, metric):
    """One line per variant over the GPUs; a point whose servers shared GPUs is drawn hollow."""
    for i, v in enumerate(hs.variants(rows, metric)):
        xs, med, lo, hi = hs.series(rows, metric, v, x="param_value")
        if not xs:
            continue
        color, marker = hs.COLORS[i % len(hs.COLORS)], hs.MARKERS[i % len(hs.MARKERS)]
        ax.errorbar(xs, med, yerr=[[m - l for m, l in zip(med, lo)], [h - m for m, h in zip(med, hi)]],
                    label=label(v), color=color, marker=marker, markersize=4, capsize=2, linewidth=1.2)
        n_of = {r["param_value"]: r["n"] for r in hs.verified(rows) if r["metric"] == metric and r["variant"] == v}
        for x, y in zip(xs, med):
            if shared(rows, v, n_of.get(x), x):
                ax.plot([x], [y], marker=marker, markersize=9, markerfacecolor="white", markeredgecolor=color,
                        linestyle="none")


def gpus_axis(ax):
    """An x axis of GPUs that has a width where every point ran at one GPU count (a host of 2 GPUs
    whose experiment starts at p = 2): a log axis over one value has none, and its figure falls apart."""
    lo, hi = ax.get_xlim()
    if hi <= lo * 1.01:
        ax.set_xlim(lo / 2, hi * 2)


def fit_title(fig, ax):
    """Wraps the title again, more narrowly, until each line fits within the figure: hs.new_figure
    wraps it at an estimated number of characters per inch, which a title of wide letters outgrows."""
    text = ax.get_title()
    if not text:
        return
    flat = " ".join(text.split())
    renderer = fig.canvas.get_renderer()
    width = max(30, max(len(line) for line in text.split("\n")))
    while ax.title.get_window_extent(renderer).width > 0.9 * fig.bbox.width and width > 30:
        width -= 2
        ax.set_title(textwrap.fill(flat, width=width, break_on_hyphens=False), fontsize=ax.title.get_fontsize())


def save(fig, ax, path, rows, note=None):
    fit_title(fig, ax)
    return hs.save(fig, ax, path, rows, note=note)


def shared_note(rows):
    return "hollow: servers sharing one GPU (a test of the code, not a scaling measurement)" \
        if any(r["metric"] == "shared_gpu" and (r["median"] or 0) > 0 for r in rows) else None


def plot_weak(results_dir, out):
    rows = hs.load(results_dir, PAPER, "weak_scaling")
    if not hs.verified(rows):  # nothing measured (absent, or every point skipped): no figure
        return []
    fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "weak_scaling"), "GPUs (servers)",
                            "G input rows/s per GPU", logx=True)
    plot_by_gpus(rows, ax, "per_gpu_rate")
    gpus_axis(ax)
    # The anchors' own legend, without a frame, just above their lines (where the labels on the lines
    # were), each by its line style; the variants' legend goes where it crosses the fewest lines in the
    # part of the axes above it (matplotlib's "best" does not see another legend).
    lines = [ax.axhline(value, color="black", linestyle=style, linewidth=0.9, alpha=0.7)
             for value, _, style in ANCHORS]
    top = max(v for v, _, _ in ANCHORS)
    anchors = matplotlib.legend.Legend(ax, lines, [text for _, text, _ in ANCHORS], fontsize=7, frameon=False,
                                       loc="lower left", bbox_to_anchor=(0, top), bbox_transform=ax.get_yaxis_transform(),
                                       borderaxespad=0.1, handlelength=2.5, labelspacing=0.2)
    ax.add_artist(anchors)
    height = anchors.get_window_extent(fig.canvas.get_renderer()).height
    above = (ax.transData.transform((1, top))[1] + height - ax.bbox.y0) / ax.bbox.height + 0.02
    if above < 0.75:
        ax.legend(fontsize=8, loc="best", bbox_to_anchor=(0, above, 1, 1 - above))
    return [save(fig, ax, os.path.join(out, "weak_scaling.png"), rows, note=shared_note(rows))]


def plot_strong(results_dir, out):
    rows = hs.load(results_dir, PAPER, "strong_scaling")
    if not hs.verified(rows):  # nothing measured (absent, or every point skipped): no figure
        return []
    fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "strong_scaling"), "GPUs (servers)", "ms",
                            logx=True, logy=True)
    plot_by_gpus(rows, ax, "join_time")
    gpus_axis(ax)
    return [save(fig, ax, os.path.join(out, "strong_scaling.png"), rows, note=shared_note(rows))]


def plot_phases(results_dir, out):
    rows = hs.load(results_dir, PAPER, "phases")
    if not hs.verified(rows):  # nothing measured (absent, or every point skipped): no figure
        return []
    written = []
    variants = [v for v in hs.variants(rows, "phase_join_time")]
    gpus = sorted({r["param_value"] for r in hs.verified(rows) if r["metric"] == "phase_join_time"})
    fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "phases"), "variant, GPUs", "ms",
                            size=(8.0, 4.4))
    bars, labels = [], []
    for v in variants:
        for p in gpus:
            bars.append((v, p))
            labels.append(f"{v}\np={p:g}")
    bottoms = [0.0] * len(bars)
    for k, phase in enumerate(PHASES):
        heights = [hs.median_of(rows, f"phase_{phase}_time", v, param=p) or 0.0 for v, p in bars]
        if not any(heights):
            continue
        ax.bar(range(len(bars)), heights, bottom=bottoms, color=hs.COLORS[k % len(hs.COLORS)], label=phase)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels(labels, fontsize=6)
    written.append(save(fig, ax, os.path.join(out, "phases.png"), rows, note=shared_note(rows)))

    fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "phases", "the all-to-all phase vs the all-to-all limit"),
                            "GPUs (servers)",
                            "GB/s per GPU to the other GPUs", logx=True)
    plot_by_gpus([r for r in rows if r["metric"] == "phase_all_to_all_rate"], ax, "phase_all_to_all_rate")
    xs, med, _, _ = hs.series(rows, "all_to_all_limit_rate", variants[0] if variants else "", x="param_value")
    if xs:
        ax.plot(xs, med, color="black", linestyle="--", marker="x", label="NCCL all-to-all, same bytes (limit)")
    for key, value in sorted(hs.limits(results_dir).items()):
        if key.startswith("all_to_all_gbps_p"):
            ax.plot([float(key.split("_p")[1].split("_")[0])], [value], marker="+", color="gray", linestyle="none")
    gpus_axis(ax)
    written.append(save(fig, ax, os.path.join(out, "all_to_all.png"), rows,
                           note="gray +: hashlab probe's all-to-all at 64 MiB .. 2 GiB per GPU"))
    return written


def plot_load(results_dir, out):
    written = []
    rows = hs.load(results_dir, PAPER, "load")
    if hs.verified(rows):
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "load"), "GPUs (servers)",
                                "fullest / mean load", logx=True)
        plot_by_gpus(rows, ax, "load_ratio")
        gpus_axis(ax)
        hs.hardware_line(ax, 1.1, "1.1 N/p (the issue's bar)")
        written.append(save(fig, ax, os.path.join(out, "load.png"), rows, note=shared_note(rows)))
    rows = hs.load(results_dir, PAPER, "samples")
    if hs.verified(rows):
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "samples"), "samples per server", "fullest / mean load", logx=True)
        hs.plot_series(ax, [r for r in rows if r["variant"] == "sampled_uniform"], "load_ratio", x="param_value",
                       label_of=label)
        xs, med, _, _ = hs.series(rows, "load_ratio", "report_rule", x="param_value")
        for x, y in zip(xs, med):
            hs.paper_marker(ax, x, y, label("report_rule"))
        hs.hardware_line(ax, 1.1, "1.1 N/p")
        written.append(save(fig, ax, os.path.join(out, "samples.png"), rows, note=shared_note(rows)))
    return written


def plot_groupby(results_dir, out):
    """Each group-by's time against the number of groups, on one GPU (solid) and across servers
    (dashed, one line per p); a pre-aggregated point carries a ring."""
    rows = hs.load(results_dir, PAPER, "groupby_scaling")
    if not hs.verified(rows):  # nothing measured (absent, or every point skipped): no figure
        return []
    fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "groupby_scaling"), "groups", "ms", logx=True, logy=True,
                            size=(7.2, 5.2))
    ax.set_xscale("log", base=10)
    algorithms = []
    for v in hs.variants(rows, "groupby_time"):
        name = v.rsplit("_", 1)[0]
        if name not in algorithms:
            algorithms.append(name)
    styles = {"single": "-", "p2": ":", "p4": "--", "p8": "-."}
    drawn = {}  # (algorithm, how) -> its line
    for i, name in enumerate(algorithms):
        color = hs.COLORS[i % len(hs.COLORS)]
        for how, style in styles.items():
            v = f"{name}_{how}"
            xs, med, _, _ = hs.series(rows, "groupby_time", v, x="param_value")
            if not xs:
                continue
            drawn[name, how] = ax.plot(xs, med, linestyle=style, color=color, marker=hs.MARKERS[i % len(hs.MARKERS)],
                                       markersize=3,
                                       label=f"{name}, {'1 GPU' if how == 'single' else how[1:] + ' GPUs'}")[0]
            pre = {r["param_value"] for r in hs.verified(rows)
                   if r["variant"] == v and r["metric"] == "pre_aggregated" and (r["median"] or 0) > 0}
            for x, y in zip(xs, med):
                if x in pre:
                    ax.plot([x], [y], marker="o", markersize=8, markerfacecolor="none", markeredgecolor=color,
                            linestyle="none")
    # The legend below the axes, out of the lines' way: a column per algorithm, a row per GPU count (an
    # empty cell where an algorithm has no line at that count, so that each row stays one count).
    hows = [how for how in styles if any((name, how) in drawn for name in algorithms)]
    blank = matplotlib.lines.Line2D([], [], linestyle="none")
    cells = [(drawn[name, how], drawn[name, how].get_label()) if (name, how) in drawn else (blank, "")
             for name in algorithms for how in hows]
    below = matplotlib.transforms.offset_copy(ax.transAxes, fig=fig, y=-34, units="points")  # under the x label
    ax.legend([c[0] for c in cells], [c[1] for c in cells], fontsize=7, ncol=max(1, len(algorithms)),
              loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below, frameon=False, handlelength=3.2)
    note = "ring: pre-aggregated (the RAPIDS estimator chose it)"
    if shared_note(rows):
        note += "; " + shared_note(rows)
    return [save(fig, ax, os.path.join(out, "groupby_scaling.png"), rows, note=note)]


def plot(results_dir):
    out = os.path.join(results_dir, PAPER)
    return plot_weak(results_dir, out) + plot_strong(results_dir, out) + plot_phases(results_dir, out) + \
        plot_load(results_dir, out) + plot_groupby(results_dir, out)


if __name__ == "__main__":
    hs.script_main(__doc__, plot)
