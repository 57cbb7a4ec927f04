"""Figures of the RAPIDS hash group-by report (results/rapids_groupby/*.csv).

Chen, Cui, Kiran, Patterson, "Rapids Group-by GPU Hash Based Implementation" (2019):
Fig. 3a/3b (time and collisions vs table size), Fig. 4a/4b (time vs rows for 100 and 10K unique
keys), Fig. 5 (phase breakdown at 100M rows), and section 3's prediction, relaunch rate, sampler
spread, relaunch cost and the cost of x * 31. The claims and their verdicts are data:
papers/rapids_groupby/claims.toml, evaluated by plots/verdicts.py.
"""
import os

import hashlab_style as hs

PAPER = "rapids_groupby"
# Fig. 5 of the report (nvprof, 100M rows, 10K keys, Tesla GPU): H2D 161.95 ms = 74.1% of the GPU
# time, fillTable 41.565 ms = 19.02%, predictTableLength_GPU 6.51%.
PAPER_GPU_TOTAL_MS = 161.95 / 0.741
PAPER_PHASES_MS = {"h2d": 161.95, "predict": 0.0651 * PAPER_GPU_TOTAL_MS, "fill": 41.565}
VARIANT_LABELS = {
    "cpu_stl": "CPU (STL, 1 thread)",
    "sort_thrust": "sort-based (Thrust)",
    "hash_cpu_sampling": "hash, CPU sampling",
    "hash_gpu_sampling": "hash, GPU sampling",
    "sort_cub": "sort-based (CUB, 1 column)",
    "cpu_parallel": "CPU (multi-threaded)",
}


def label(v):
    return VARIANT_LABELS.get(v, v.replace("hash_", "hash, table ").replace("x", "x keys") if v.startswith("hash_") else v)


value = hs.median_of  # the median of one verified row, or None


def params(rows):
    return sorted({r["param_value"] for r in rows if r["param_value"] is not None})


def sizes(rows):
    return sorted({r["n"] for r in rows if r["n"] is not None})


def bars(ax, rows, metric, variants, groups, logy=True):
    """Grouped bars: one group per parameter value, one bar per variant."""
    width = 0.8 / max(len(variants), 1)
    for i, v in enumerate(variants):
        ys = [value(rows, metric, v, param=g) or 0 for g in groups]
        xs = [j + (i - (len(variants) - 1) / 2) * width for j in range(len(groups))]
        ax.bar(xs, ys, width=width, label=label(v), color=hs.COLORS[i % len(hs.COLORS)])
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{int(g):,} keys" for g in groups])
    if logy:
        ax.set_yscale("log")
        top = max([value(rows, metric, v, param=g) or 0 for v in variants for g in groups] or [0])
        if top > 0:
            ax.set_ylim(top=top * 30)  # room for the legend above the bars


def plot(results_dir):
    written = []
    out = os.path.join(results_dir, PAPER)

    rows = hs.load(results_dir, PAPER, "fig3_table_size")
    if rows:
        variants = [v for v in hs.variants(rows, "groupby_time")]
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig3_table_size", "3a: time"), "unique keys", "ms (median)", size=(8, 4.8))
        bars(ax, rows, "groupby_time", variants, params(rows))
        written.append(hs.save(fig, ax, os.path.join(out, "fig3a_table_size.png"), rows))
        hashes = [v for v in hs.variants(rows, "probe_steps")]
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig3_table_size", "3b: probe steps"), "unique keys",
                                "probe steps", size=(8, 4.8))
        bars(ax, rows, "probe_steps", hashes, params(rows))
        written.append(hs.save(fig, ax, os.path.join(out, "fig3b_collisions.png"), rows))

    for name in ("fig4a_rows_100_keys", "fig4b_rows_10k_keys"):
        rows = hs.load(results_dir, PAPER, name)
        if rows:
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, name), "rows", "ms (median)", logx=True, logy=True)
            hs.plot_series(ax, rows, "groupby_time", label_of=label)
            # Section 5: "the CPU implementation [is] faster for data sets with 100k rows or less".
            ax.axvline(1e5, color="black", linestyle=":", linewidth=0.9)
            ax.annotate("report: CPU faster up to here", xy=(1e5, 0.98), xycoords=("data", "axes fraction"), fontsize=7,
                        rotation=90, va="top", ha="right")
            written.append(hs.save(fig, ax, os.path.join(out, name + ".png"), rows))

    rows = hs.load(results_dir, PAPER, "fig5_breakdown")
    if rows:
        phases = [("h2d", "h2d_time"), ("predict", "predict_phase_time"), ("fill", "fill_phase_time"),
                  ("extract", "extract_phase_time"), ("d2h", "d2h_time")]
        bars_of = {"paper (Tesla, nvprof)": [PAPER_PHASES_MS.get(p, 0) for p, _ in phases]}
        for v in ("hash_gpu_sampling", "hash_cpu_sampling"):
            ys = [value(rows, m, v) for _, m in phases]
            if any(y is not None for y in ys):
                bars_of[label(v)] = [y or 0 for y in ys]
        n = max(sizes(rows) or [0])
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig5_breakdown", f"{n:,.0f} rows"), "ms", "")
        names = list(bars_of)
        for i, (p, _) in enumerate(phases):
            ax.barh(names, [bars_of[k][i] for k in names], left=[sum(bars_of[k][:i]) for k in names],
                    label=p, color=hs.COLORS[i % len(hs.COLORS)])
        sort_ms = value(rows, "groupby_time", "sort_thrust")
        note = f"sort-based group-by (data on GPU): {sort_ms:.1f} ms" if sort_ms else None
        pinned = hs.limits(results_dir).get("h2d_pinned_gbps")
        if pinned and n:
            ideal = n * 5 * 4 / (pinned * 1e9) * 1e3  # 2 key + 3 value columns of 4 bytes
            ax.axvline(ideal, color="black", linestyle="--", linewidth=0.9)
            ax.annotate(f"H2D at {pinned:.0f} GB/s (hashlab probe)", xy=(ideal, 0.02), xycoords=("data", "axes fraction"),
                        fontsize=7, rotation=90, va="bottom")
        written.append(hs.save(fig, ax, os.path.join(out, "fig5_breakdown.png"), rows, note=note))

    rows = hs.load(results_dir, PAPER, "prediction")
    if rows:
        # The median, not the mean: a run without an equal pair predicts N = rows (section 3's
        # fallback), which drags the mean far up (cardinality.hpp).
        center = "predicted_median" if value(rows, "predicted_median") is not None else "predicted_mean"
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "prediction"), "unique keys",
                                f"predicted / true ({center[10:]}, min..max)", logx=True, logy=True)
        for i, v in enumerate(("cpu_sampling", "gpu_sampling")):
            xs, ys, lo, hi = [], [], [], []
            for p in params(rows):
                truth = value(rows, "true_cardinality", v, param=p)
                mid = value(rows, center, v, param=p)
                if truth and mid:
                    xs.append(p)
                    ys.append(mid / truth)
                    lo.append(mid / truth - value(rows, "predicted_min", v, param=p) / truth)
                    hi.append(value(rows, "predicted_max", v, param=p) / truth - mid / truth)
            if xs:
                ax.errorbar(xs, ys, yerr=[lo, hi], label=v.replace("_", " "), marker=hs.MARKERS[i], capsize=3,
                            color=hs.COLORS[i])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(1 / (2.6 * 0.75), color="grey", linestyle="--", linewidth=0.8)
        ax.annotate("below: relaunch (2.6 x 75%)", xy=(0.01, 1 / (2.6 * 0.75)), xycoords=("axes fraction", "data"),
                    fontsize=7, va="bottom")
        written.append(hs.save(fig, ax, os.path.join(out, "prediction.png"), rows))

    rows = hs.load(results_dir, PAPER, "relaunch")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "relaunch"),
                                "initial table size (slots)", "ms (median)", logx=True)
        hs.plot_series(ax, rows, "groupby_time", x="param_value", label_of=lambda v: "time")
        for r in hs.verified(rows):
            if r["metric"] == "relaunches":
                t = value(rows, "groupby_time", r["variant"], param=r["param_value"])
                if t:
                    ax.annotate(f"{int(r['median'])} relaunches", xy=(r["param_value"], t), fontsize=7)
        written.append(hs.save(fig, ax, os.path.join(out, "relaunch.png"), rows))

    rows = hs.load(results_dir, PAPER, "relaunch_rate")
    if rows:
        # Section 3's "no relaunch in 20 runs" as a rate: runs that relaunched / runs.
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "relaunch_rate"), "unique keys", "share of runs relaunched",
                                logx=True)
        for i, v in enumerate(("gpu_sampling_1pct", "gpu_sampling", "cpu_sampling_1pct", "cpu_sampling")):
            xs, ys, law = [], [], []
            for p in params(rows):
                runs, hit = value(rows, "runs", v, param=p), value(rows, "runs_relaunched", v, param=p)
                if runs and hit is not None:
                    xs.append(p)
                    ys.append(hit / runs)
                    law.append((value(rows, "derived_runs_relaunched", v, param=p) or 0) / runs)
            if xs:
                name = v.replace("_1pct", ", 1% (report)").replace("_sampling", " sampling")
                name += "" if v.endswith("_1pct") else ", our floor"
                ax.plot(xs, ys, marker=hs.MARKERS[i], color=hs.COLORS[i], label=name)
                ax.plot(xs, law, linestyle=":", color=hs.COLORS[i], linewidth=0.9)
        ax.axhline(0.05, color="black", linestyle="--", linewidth=0.8)
        ax.annotate("1 run in 20", xy=(0.01, 0.05), xycoords=("axes fraction", "data"), fontsize=7, va="bottom")
        written.append(hs.save(fig, ax, os.path.join(out, "relaunch_rate.png"), rows,
                               note="dotted: the estimator law's expectation"))

    rows = hs.load(results_dir, PAPER, "sampler_spread")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "sampler_spread"), "unique keys", "sd of N^ / N",
                                logx=True, logy=True)
        labels = {"pairs": "10,000 pairs", "triples": "10,000 triples", "pairs_equal_reads": "15,000 pairs (same reads)"}
        for i, v in enumerate(("pairs", "triples", "pairs_equal_reads")):
            xs = [p for p in params(rows) if value(rows, "measured_relative_sd", v, param=p)]
            if xs:
                ax.plot(xs, [value(rows, "measured_relative_sd", v, param=p) for p in xs], marker=hs.MARKERS[i],
                        color=hs.COLORS[i], label=labels[v])
                ax.plot(xs, [value(rows, "derived_relative_sd", v, param=p) for p in xs], linestyle=":",
                        color=hs.COLORS[i], linewidth=0.9)
        written.append(hs.save(fig, ax, os.path.join(out, "sampler_spread.png"), rows,
                               note="dotted: the estimator laws; runs without an equal pair estimate N = rows"))

    rows = hs.load(results_dir, PAPER, "hashcode_cost")
    if rows:
        forms = [v for v in ("shift_subtract", "multiply", "as_compiled") if value(rows, "hashcode_time", v) is not None]
        if forms:
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "hashcode_cost"), "", "ms (median)", size=(6.4, 3.6))
            ax.bar(forms, [value(rows, "hashcode_time", v) for v in forms], color=hs.COLORS[:len(forms)])
            written.append(hs.save(fig, ax, os.path.join(out, "hashcode_cost.png"), rows))

    rows = hs.load(results_dir, PAPER, "comparators_1col")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "comparators_1col"), "rows", "G rows/s", logx=True,
                                logy=True)
        hs.plot_series(ax, rows, "groupby_rate", label_of=label)
        written.append(hs.save(fig, ax, os.path.join(out, "comparators_1col.png"), rows))
    return written


if __name__ == "__main__":
    hs.script_main(__doc__, plot)
