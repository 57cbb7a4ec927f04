"""Figures of EGA (Wang, Shen, Lei, Appl. Sci. 2025) from results/ega/*.csv.

The abstract's ranges are drawn as reference bands on the speed-up figures. The claims and their
verdicts are data, papers/ega/claims.toml, evaluated by plots/verdicts.py (docs/verdicts.md)."""
import os

import hashlab_style as hs

PAPER = "ega"
# The abstract's ranges, as papers/ega/claims.toml states them.
SP_VS_HASH = tuple(hs.claim(PAPER, "sp-over-lphga-above-lf-0.9")["within"])  # over LPHGA at load factor > 0.90
SP_VS_SORT = tuple(hs.claim(PAPER, "sp-over-sort")["within"])                # over sort-based GPU group-by
MP_VS_CPU = tuple(hs.claim(PAPER, "mp-over-cpu")["within"])                  # MP-EGA over CPU, data beyond GPU memory


_median = hs.median_of


def _params(rows, metric="groupby_time"):
    return sorted({r["param_value"] for r in hs.verified(rows) if r["metric"] == metric})


def _speedups(rows, base, metric="groupby_time", where=lambda p: True):
    """[(n, param, time(base) / time(sp_ega))] over the points where both are verified."""
    out = []
    for r in hs.verified(rows):
        if r["metric"] != metric or r["variant"] != "sp_ega" or not where(r["param_value"]):
            continue
        other = _median(rows, metric, base, r["n"], r["param_value"])
        if other and r["median"]:
            out.append((r["n"], r["param_value"], other / r["median"]))
    return sorted(out, key=lambda t: (t[0], t[1]))


def _band(ax, lo, hi, label):
    ax.axhspan(lo, hi, color="grey", alpha=0.15, label=label)


def _bars(ax, labels, stacks, names):
    """Stacked bars: stacks[i][j] = part j of bar i."""
    bottoms = [0.0] * len(labels)
    for j, name in enumerate(names):
        heights = [s[j] for s in stacks]
        ax.bar(range(len(labels)), heights, bottom=bottoms, label=name, color=hs.COLORS[j % len(hs.COLORS)])
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7, rotation=20)


def plot(results_dir):
    written = []
    out = os.path.join(results_dir, PAPER)

    for name, param, xlabel, logx in (("sp_load_factor", "load_factor", "load factor (groups / L)", False),
                                      ("sp_groups", "groups", "groups", True),
                                      ("sp_zipf", "zipf_exponent", "Zipf exponent", False),
                                      ("sp_bar", "groups", "groups (n = 100M; 90M, 99M = load factor 0.9, 0.99)", True)):
        rows = hs.load(results_dir, PAPER, name)
        if not rows:
            continue
        n = max(r["n"] for r in rows)
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, name, f"n = {n:,.0f}"), xlabel, "G rows/s")
        if logx:
            ax.set_xscale("log")
        hs.plot_series(ax, rows, "groupby_rate", x="param_value")
        if name == "sp_bar":  # 100M rows: red (1.2 GB) is beyond the L2, the large-table atomic rate applies
            hs.hardware_line(ax, hs.limits(results_dir).get("atomic_cas_gops_large"),
                             "one random atomicCAS per row (hashlab probe)")
        written.append(hs.save(fig, ax, os.path.join(out, f"{name}.png"), rows))

        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, name, "speed-up of SP-EGA"), xlabel,
                                "time(other) / time(SP-EGA)")
        if logx:
            ax.set_xscale("log")
        for i, base in enumerate(("lphga", "sort")):
            s = _speedups(rows, base)
            if s:
                ax.plot([t[1] for t in s], [t[2] for t in s], marker=hs.MARKERS[i], color=hs.COLORS[i],
                        label=f"over {base}")
        if name == "sp_load_factor":
            ax.fill_between([0.9, 1.0], *SP_VS_HASH, color="grey", alpha=0.15,
                            label="paper: over hash-based at LF > 0.9")
        else:
            _band(ax, *SP_VS_SORT, "paper: over sort-based")
        if name == "sp_bar":
            top = max((r["param_value"] for r in rows if r["param_value"]), default=None)
            if top:
                ax.vlines(top, *SP_VS_HASH, color="grey", linewidth=8, alpha=0.35,
                          label="paper: over hash-based at LF > 0.9")
        ax.axhline(1.0, color="black", linewidth=0.8)
        written.append(hs.save(fig, ax, os.path.join(out, f"{name}_speedup.png"), rows))

    rows = hs.load(results_dir, PAPER, "sp_breakdown")
    if rows:
        labels, stacks = [], []
        for variant, phases in (("sp_ega", 5), ("lphga", 3)):
            for lf in _params(rows, "phase1_time"):
                parts = [_median(rows, f"phase{p}_time", variant, param=lf) for p in range(1, phases + 1)]
                if None in parts:
                    continue
                labels.append(f"{variant} LF {lf:g}")
                stacks.append(parts + [0.0] * (5 - phases))
        if stacks:
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "sp_breakdown"), "", "ms")
            _bars(ax, labels, stacks, [f"phase {p}" for p in range(1, 6)])
            written.append(hs.save(fig, ax, os.path.join(out, "sp_breakdown.png"), rows))

    for name, xlabel, logx in (("sp_bar", "groups (n = 100M)", True), ("sp_load_factor", "load factor", False)):
        rows = hs.load(results_dir, PAPER, name)
        if rows and any(r["metric"] == "probe_steps_per_pair" for r in rows):
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, name, "probe steps per pair, 4.1.6"), xlabel,
                                    "slots beyond a lookup's first / pair", logx=logx)
            hs.plot_series(ax, rows, "probe_steps_per_pair", x="param_value")
            written.append(hs.save(fig, ax, os.path.join(out, f"{name}_probes.png"), rows))

    rows = hs.load(results_dir, PAPER, "mp_vs_cpu")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "mp_vs_cpu"), "rows", "G rows/s", logx=True)
        ratios = sorted({r["param_value"] for r in hs.verified(rows) if r["variant"] == "mp_ega"})
        for i, ratio in enumerate(ratios):
            xs, med, _, _ = hs.series(rows, "groupby_rate", "mp_ega", where=lambda r, q=ratio: r["param_value"] == q)
            label = f"MP-EGA, budget = data / {ratio:g}" if ratio else "MP-EGA, --gpu-mem-budget"
            ax.plot(xs, med, marker=hs.MARKERS[i], color=hs.COLORS[i], label=label)
        xs, med, _, _ = hs.series(rows, "groupby_rate", "cpu")
        ax.plot(xs, med, marker="x", color="black", label="CPU (multi-threaded)")
        pinned = hs.limits(results_dir).get("h2d_pinned_gbps")
        if pinned:  # the input (8 bytes a row) crosses PCIe at least once
            hs.hardware_line(ax, pinned / 8, f"input over PCIe once at {pinned:.0f} GB/s (hashlab probe)")
        written.append(hs.save(fig, ax, os.path.join(out, "mp_vs_cpu.png"), rows))

        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "mp_vs_cpu", "speed-up of MP-EGA"), "rows",
                                "time(CPU) / time(MP-EGA)", logx=True)
        for i, ratio in enumerate(ratios):
            pts = _mp_speedups(rows, ratio)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=hs.MARKERS[i], color=hs.COLORS[i],
                    label=f"budget = data / {ratio:g}" if ratio else "--gpu-mem-budget")
        _band(ax, *MP_VS_CPU, f"paper: {MP_VS_CPU[0]:g}-{MP_VS_CPU[1]:g}x")
        written.append(hs.save(fig, ax, os.path.join(out, "mp_vs_cpu_speedup.png"), rows))

    for name, xlabel, logx in (("mp_groups", "groups", True), ("mp_zipf", "Zipf exponent", False)):
        rows = hs.load(results_dir, PAPER, name)
        if rows:
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, name), xlabel, "G rows/s")
            if logx:
                ax.set_xscale("log")
            hs.plot_series(ax, rows, "groupby_rate", x="param_value")
            written.append(hs.save(fig, ax, os.path.join(out, f"{name}.png"), rows))

    for name, param, xlabel in (("mp_streams", "streams", "streams s"),
                                ("mp_cpu_tiles", "cpu_tile_threads", "CPU tile threads t")):
        rows = hs.load(results_dir, PAPER, name)
        if rows:
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, name), xlabel, "G rows/s")
            hs.plot_series(ax, rows, "groupby_rate", x="param_value")
            written.append(hs.save(fig, ax, os.path.join(out, f"{name}.png"), rows))

    rows = hs.load(results_dir, PAPER, "mp_partitions")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "mp_partitions"), "partitions P", "G rows/s")
        ax.set_xscale("log")
        xs, med, _, _ = hs.series(rows, "groupby_rate", "fixed", x="param_value")
        ax.plot(xs, med, marker="o", label="fixed P")
        for variant, what in (("theorem1", "n = the rows"), ("theorem1_true_groups", "n = the true groups")):
            p = _median(rows, "partitions", variant)
            rate = _median(rows, "groupby_rate", variant)
            if p and rate:
                hs.paper_marker(ax, p, rate, f"Theorem 1 ({what}): P = {p:.0f}")
        written.append(hs.save(fig, ax, os.path.join(out, "mp_partitions.png"), rows))

    for name in ("mp_merge", "mp_feedback", "mp_feedback_rounds"):
        rows = hs.load(results_dir, PAPER, name)
        if rows:
            names = hs.variants(rows, "groupby_time")
            vals = [_median(rows, "groupby_time", v) or 0 for v in names]
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, name), "", "ms")
            ax.bar(range(len(names)), vals, color=hs.COLORS[:len(names)])
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names)
            written.append(hs.save(fig, ax, os.path.join(out, f"{name}.png"), rows))

    rows = hs.load(results_dir, PAPER, "mp_merge_copy")
    if rows:
        streams = _params(rows)
        variants = hs.variants(rows, "groupby_time")
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "mp_merge_copy"), "", "ms")
        width = 0.8 / max(len(variants), 1)
        for i, v in enumerate(variants):
            vals = [_median(rows, "groupby_time", v, param=s) or 0 for s in streams]
            ax.bar([k + i * width for k in range(len(streams))], vals, width, label=v, color=hs.COLORS[i % len(hs.COLORS)])
        ax.set_xticks([k + width * (len(variants) - 1) / 2 for k in range(len(streams))])
        ax.set_xticklabels([f"s = {s:g}" for s in streams])
        written.append(hs.save(fig, ax, os.path.join(out, "mp_merge_copy.png"), rows))

    rows = hs.load(results_dir, PAPER, "mp_breakdown")
    if rows:
        labels, stacks = [], []
        for ratio in _params(rows, "generate_time"):
            parts = [_median(rows, m, "mp_ega", param=ratio) for m in ("generate_time", "merge_time", "process_time")]
            if None not in parts:
                labels.append(f"budget = data / {ratio:g}")
                stacks.append(parts)
        if stacks:
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "mp_breakdown"), "", "ms")
            _bars(ax, labels, stacks, ["generating", "CPU merge (layout; host copies where used, overlapped)",
                                       "processing after the merge (gathers included)"])
            pinned = hs.limits(results_dir).get("h2d_pinned_gbps")
            n = max(r["n"] for r in rows)
            if pinned and n:
                hs.hardware_line(ax, n * 8 / (pinned * 1e9) * 1e3, f"input over PCIe once at {pinned:.0f} GB/s")
            written.append(hs.save(fig, ax, os.path.join(out, "mp_breakdown.png"), rows))
    return written


def _mp_speedups(rows, ratio):
    out = []
    for r in hs.verified(rows):
        if r["metric"] == "groupby_time" and r["variant"] == "mp_ega" and r["param_value"] == ratio:
            cpu = _median(rows, "groupby_time", "cpu", n=r["n"])
            if cpu and r["median"]:
                out.append((r["n"], cpu / r["median"]))
    return sorted(out)


if __name__ == "__main__":
    hs.script_main(__doc__, plot)
