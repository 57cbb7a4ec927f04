"""Figures of Dash, "Parallel Pk-Pk Join Algorithm Using GPU Servers" (results/pkpk_join/*.csv,
written by `hashlab run pkpk_join`). The claims and their verdicts are data:
papers/pkpk_join/claims.toml, evaluated by plots/verdicts.py."""
import os

import hashlab_style as hs

PAPER = "pkpk_join"

# The report's nvprof table (1M x 1M, key mod 10^8; its GPU is one of RTX 2080 / Titan Xp /
# RTX 3090, not named), in ms, mapped to our kernels. Our reading of its kernel names:
# BlockSortKernel = the block-wise sort, initCurand + sampleElements = the sampling,
# RadixSortScanBins = the device sort of the samples, findSplitsKernel = the partition ids
# (its arguments are data, output, splitters), BlockSortKernel2 = the sort after the
# assignment (our per-bucket sort), DeviceScanKernel = the prefix sum.
REPORT_KERNELS_MS = {
    "block_sort": 0.73374,
    "sample": 1.2761 + 0.050403,
    "sort_samples": 0.02429,
    "partition_ids": 0.11085,
    "count_splits": 4.8801,
    "prefix_sum": 1.2142 + 0.021538,
    "segmented_prefix_sum": 0.13607,
    "assign": 0.79256,
    "bucket_sort": 4.0189,
    "join": 0.042819,
}
REPORT_BSP_TOTAL_MS = sum(REPORT_KERNELS_MS.values())  # ~13.3 ms of kernels (memcpy excluded)
# Crystal's kernels on the same data (the report's second nvprof table).
REPORT_CRYSTAL_MS = {"build": 0.81025, "probe": 0.19780}
REPORT_CRYSTAL_TOTAL_MS = sum(REPORT_CRYSTAL_MS.values())
REPORT_CRYSTAL_MEMSET_MS = 0.018593  # its [CUDA memset] row: the table and the answer, 2 calls
REPORT_ROWS = 2e6  # 1M + 1M input rows

LABELS = {"bsp": "BSP sort join (report)", "bsp_atomic": "BSP, atomic scatter (the report's rejected alternative)",
          "sort_join": "full device sort join",
          "sort_join_hmap": "full sort of bare keys + hmap1/hmap2 (report's layout)",
          "hash_join": "GPU hash join (linear probing)", "cpu": "CPU join (multi-threaded)",
          "h2d_pinned": "pinned H2D copy of both tables", "crystal": "Crystal's join (our build), report's data",
          "crystal_dense": "Crystal's join (our build), its own dense data"}


def label(v):
    return LABELS.get(v, v)


def metric_value(rows, variant, metric, n=None, param=None):
    return hs.median_of(rows, metric, variant, n=n, param=param)


def kernels_of(rows, variant, n=None):
    """[(kernel, median ms)] of the profiled kernels of one variant (at n rows), in run order."""
    out = []
    for r in hs.verified(rows):
        m = r["metric"]
        if (r["variant"] == variant and (n is None or r["n"] == n) and m.startswith("kernel_") and m.endswith("_time")
                and m != "kernel_sum_time"):
            out.append((m[len("kernel_"):-len("_time")], r["median"]))
    return out


def plot_profile(results_dir, out):
    rows = hs.load(results_dir, PAPER, "profile")
    if not rows:
        return []
    written = []
    ours = kernels_of(rows, "bsp")
    if ours:
        import numpy as np
        names = [k for k, _ in ours]
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "profile", "the BSP join"), "", "ms (log)", logy=True,
                                size=(8.0, 4.4))
        x = np.arange(len(names))
        ax.bar(x - 0.2, [v for _, v in ours], width=0.4, color=hs.COLORS[0], label="measured here")
        paper = [REPORT_KERNELS_MS.get(k) for k in names]
        ax.bar(x + 0.2, [p if p else 0 for p in paper], width=0.4, color="none", edgecolor="black", hatch="//",
               label="report (nvprof)")
        ax.set_xticks(x)
        ax.set_xticklabels(names, rotation=40, ha="right", fontsize=8)
        written.append(hs.save(fig, ax, os.path.join(out, "profile_bsp.png"), rows,
                               note="report bars absent where it has no such kernel"))
    hashed = kernels_of(rows, "hash_join")
    if hashed:
        import numpy as np
        names = [k for k, _ in hashed]
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "profile", "the hash join"), "", "ms (log)", logy=True)
        x = np.arange(len(names))
        ax.bar(x, [v for _, v in hashed], width=0.5, color=hs.COLORS[2], label="measured here")
        ax.set_xticks(x)
        ax.set_xticklabels(names)
        written.append(hs.save(fig, ax, os.path.join(out, "profile_hash_join.png"), rows))
    crystal = kernels_of(rows, "crystal")
    if crystal:
        import numpy as np
        names = [k for k, _ in crystal]
        dense = dict(kernels_of(rows, "crystal_dense"))
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "profile", "Crystal's join"), "", "ms (log)", logy=True)
        x = np.arange(len(names))
        ax.bar(x - 0.27, [v for _, v in crystal], width=0.27, color=hs.COLORS[3], label=label("crystal"))
        ax.bar(x, [dense.get(k, 0) for k in names], width=0.27, color=hs.COLORS[4], label=label("crystal_dense"))
        report = dict(REPORT_CRYSTAL_MS, memset=REPORT_CRYSTAL_MEMSET_MS)
        ax.bar(x + 0.27, [report.get(k, 0) for k in names], width=0.27, color="none", edgecolor="black",
               hatch="//", label="report: Crystal (nvprof)")
        ax.set_xticks(x)
        ax.set_xticklabels(names)
        written.append(hs.save(fig, ax, os.path.join(out, "profile_crystal.png"), rows))
    return written


def plot_scaling(results_dir, out):
    rows = hs.load(results_dir, PAPER, "scaling")
    if not rows:
        return []
    limits = hs.limits(results_dir)
    fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "scaling", "rate"), "rows per table",
                            "G input rows/s", logx=True, logy=True)
    hs.plot_series(ax, rows, "join_rate", label_of=label)
    hs.paper_marker(ax, 1e6, REPORT_ROWS / (REPORT_BSP_TOTAL_MS * 1e-3) / 1e9, "report: BSP kernels, 1M")
    ax.plot([1e6], [REPORT_ROWS / (REPORT_CRYSTAL_TOTAL_MS * 1e-3) / 1e9], marker="P", markersize=10,
            markerfacecolor="none", markeredgecolor="black", linestyle="none", label="report: Crystal kernels, 1M")
    # A join reads each 4-byte key at least once: the device copy bandwidth bounds the rate.
    if limits.get("copy_gbps"):
        hs.hardware_line(ax, limits["copy_gbps"] / 4, "device copy bandwidth / 4 B per key")
    written = [hs.save(fig, ax, os.path.join(out, "scaling_rate.png"), rows)]
    fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "scaling", "time"), "rows per table", "ms", logx=True,
                            logy=True)
    hs.plot_series(ax, rows, "join_time", label_of=label)
    hs.paper_marker(ax, 1e6, REPORT_BSP_TOTAL_MS, "report: BSP kernels, 1M")
    xs, med, _, _ = hs.series(rows, "copy_time", "h2d_pinned")
    if xs:  # what moving the tables onto the GPU costs beside the joins (the report's 97% claim)
        ax.plot(xs, med, color="black", linestyle="--", marker="x", linewidth=1.0,
                label="pinned H2D copy of both tables (keys + values)")
    written.append(hs.save(fig, ax, os.path.join(out, "scaling_time.png"), rows))
    written += plot_memory(rows, out, hs.title(results_dir, PAPER, "scaling", "peak device memory beyond the inputs"))
    return written


def plot_memory(rows, out, title):
    """Peak device memory of each join (scratch and output beyond the input tables) per input row."""
    joins = [v for v in hs.variants(rows, "peak_device_bytes")]
    if not joins:
        return []
    fig, ax = hs.new_figure(title, "rows per table",
                            "bytes per input row", logx=True)
    for i, v in enumerate(joins):
        xs, med, _, _ = hs.series(rows, "peak_device_bytes", v)
        ax.plot(xs, [m / (2 * x) for x, m in zip(xs, med)], color=hs.COLORS[i % len(hs.COLORS)],
                marker=hs.MARKERS[i % len(hs.MARKERS)], markersize=4, linewidth=1.2, label=label(v))
    return [hs.save(fig, ax, os.path.join(out, "scaling_memory.png"), rows,
                    note="high-water mark of the device memory pool during one join, minus what was in use before")]


def plot_scaling_kernels(results_dir, out):
    """Where the BSP join's time goes at each size (scaling's per-kernel rows): stacked bars."""
    rows = hs.load(results_dir, PAPER, "scaling")
    sizes = sorted({r["n"] for r in hs.verified(rows) if r["variant"] == "bsp" and r["metric"].startswith("kernel_")})
    if not sizes:
        return []
    import matplotlib.pyplot as plt
    import numpy as np
    palette = plt.get_cmap("tab20")
    per_size = [dict(kernels_of(rows, "bsp", n=n)) for n in sizes]
    names = [k for k, _ in kernels_of(rows, "bsp", n=sizes[-1])]
    fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "scaling", "the BSP join's kernels"), "rows per table",
                            "share of the kernel time", size=(8.0, 4.4))
    x = np.arange(len(sizes))
    bottom = np.zeros(len(sizes))
    for i, name in enumerate(names):
        share = np.array([k.get(name, 0) / sum(k.values()) for k in per_size])
        ax.bar(x, share, width=0.6, bottom=bottom, color=palette(i % 20), label=name)
        bottom += share
    sort_ms = [metric_value(rows, "sort_join", "kernel_device_radix_sort_time", n=n) for n in sizes]
    ax.set_ylim(0, 1.0)
    ax.set_xlim(-0.5, len(sizes) + 1.3)  # room on the right for the legend
    ax.set_xticks(x)
    ax.set_xticklabels([f"{n / 1e6:.0f}M\n{sum(k.values()):.2f} ms" + (f"\n(full sort {s:.2f})" if s else "")
                        for n, k, s in zip(sizes, per_size, sort_ms)], fontsize=8)
    path = hs.save(fig, ax, os.path.join(out, "scaling_kernels.png"), rows,
                   note="under each bar: the BSP kernel sum and the full sort join's device radix sort alone")
    return [path]


def plot_sweep(results_dir, out, experiment, xlabel, logx=False):
    rows = hs.load(results_dir, PAPER, experiment)
    if not rows:
        return []
    fig, ax = hs.new_figure(hs.title(results_dir, PAPER, experiment), xlabel, "ms", logx=logx, logy=True)
    hs.plot_series(ax, rows, "join_time", x="param_value", label_of=label)
    return [hs.save(fig, ax, os.path.join(out, experiment + ".png"), rows)]


def plot_partitions(results_dir, out):
    rows = hs.load(results_dir, PAPER, "partitions")
    if not rows:
        return []
    fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "partitions"), "p", "ms", logx=True)
    hs.plot_series(ax, rows, "join_time", x="param_value", label_of=lambda v: "join time")
    twin = ax.twinx()
    xs, med, _, _ = hs.series(rows, "bucket_skew", "bsp", x="param_value")
    twin.plot(xs, med, color=hs.COLORS[1], marker="s", markersize=4, linestyle="--", label="max / mean bucket")
    twin.set_ylabel("max / mean bucket size")
    twin.legend(fontsize=8, loc="upper center")
    return [hs.save(fig, ax, os.path.join(out, "partitions.png"), rows)]


def plot(results_dir):
    out = os.path.join(results_dir, PAPER)
    written = []
    written += plot_profile(results_dir, out)
    written += plot_scaling(results_dir, out)
    written += plot_scaling_kernels(results_dir, out)
    written += plot_sweep(results_dir, out, "match_rate", "fraction of S's rows with a partner in R")
    written += plot_sweep(results_dir, out, "key_domain", "key domain", logx=True)
    written += plot_sweep(results_dir, out, "unequal_sizes", "|S| / |R| (|R| + |S| fixed)", logx=True)
    written += plot_partitions(results_dir, out)
    return written


if __name__ == "__main__":
    hs.script_main(__doc__, plot)
