"""Figures and claims of EGA (Wang, Shen, Lei, Appl. Sci. 2025) from results/ega/*.csv.

The paper's claims (its abstract; see ../shared/papers/ega_experiments.md) are drawn as
reference bands on the speed-up figures and checked in claims()."""
import os

import hashlab_style as hs

PAPER = "ega"
# The abstract's ranges.
SP_VS_HASH = (1.16, 5.39)   # SP-EGA over hash-based GPU group-by at load factor > 0.90
SP_VS_SORT = (1.30, 2.48)   # SP-EGA over sort-based GPU group-by
MP_VS_CPU = (6.45, 29.12)   # MP-EGA over CPU group-by, data beyond GPU memory
ISSUE_MP_BAR = 10.0         # issue 6: MP-EGA at a budget of 1/8 of the data, >= 10x the CPU baseline


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
        fig, ax = hs.new_figure(f"{name}: SP-EGA vs LPHGA vs sort, sum, n = {n:,.0f}", xlabel, "G rows/s")
        if logx:
            ax.set_xscale("log")
        hs.plot_series(ax, rows, "groupby_rate", x="param_value")
        if name == "sp_bar":  # 100M rows: red (1.2 GB) is beyond the L2, the large-table atomic rate applies
            hs.hardware_line(ax, hs.limits(results_dir).get("atomic_cas_gops_large"),
                             "one random atomicCAS per row (hashlab probe)")
        written.append(hs.save(fig, ax, os.path.join(out, f"{name}.png"), rows))

        fig, ax = hs.new_figure(f"{name}: speed-up of SP-EGA", xlabel, "time(other) / time(SP-EGA)")
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
            fig, ax = hs.new_figure("time per phase (SP-EGA: phases 1-5; LPHGA: aggregate, scan, collect)", "",
                                    "ms")
            _bars(ax, labels, stacks, [f"phase {p}" for p in range(1, 6)])
            written.append(hs.save(fig, ax, os.path.join(out, "sp_breakdown.png"), rows))

    rows = hs.load(results_dir, PAPER, "mp_vs_cpu")
    if rows:
        fig, ax = hs.new_figure("MP-EGA vs CPU group-by (1M groups, sum)", "rows", "G rows/s", logx=True)
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

        fig, ax = hs.new_figure("MP-EGA speed-up over the CPU group-by", "rows", "time(CPU) / time(MP-EGA)",
                                logx=True)
        for i, ratio in enumerate(ratios):
            pts = _mp_speedups(rows, ratio)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=hs.MARKERS[i], color=hs.COLORS[i],
                    label=f"budget = data / {ratio:g}" if ratio else "--gpu-mem-budget")
        _band(ax, *MP_VS_CPU, "paper: 6.45-29.12x")
        written.append(hs.save(fig, ax, os.path.join(out, "mp_vs_cpu_speedup.png"), rows))

    for name, xlabel, logx in (("mp_groups", "groups", True), ("mp_zipf", "Zipf exponent", False)):
        rows = hs.load(results_dir, PAPER, name)
        if rows:
            fig, ax = hs.new_figure(f"MP-EGA (budget = data / 8) vs CPU: {name}", xlabel, "G rows/s")
            if logx:
                ax.set_xscale("log")
            hs.plot_series(ax, rows, "groupby_rate", x="param_value")
            written.append(hs.save(fig, ax, os.path.join(out, f"{name}.png"), rows))

    for name, param, xlabel in (("mp_streams", "streams", "streams s"),
                                ("mp_cpu_tiles", "cpu_tile_threads", "CPU tile threads t")):
        rows = hs.load(results_dir, PAPER, name)
        if rows:
            fig, ax = hs.new_figure(f"{name}: MP-EGA, budget = data / 8", xlabel, "G rows/s")
            hs.plot_series(ax, rows, "groupby_rate", x="param_value")
            written.append(hs.save(fig, ax, os.path.join(out, f"{name}.png"), rows))

    rows = hs.load(results_dir, PAPER, "mp_partitions")
    if rows:
        fig, ax = hs.new_figure("partition count: Theorem 1 vs fixed (budget = data / 8)", "partitions P",
                                "G rows/s")
        ax.set_xscale("log")
        xs, med, _, _ = hs.series(rows, "groupby_rate", "fixed", x="param_value")
        ax.plot(xs, med, marker="o", label="fixed P")
        p = _median(rows, "partitions", "theorem1")
        rate = _median(rows, "groupby_rate", "theorem1")
        if p and rate:
            hs.paper_marker(ax, p, rate, f"Theorem 1: P = {p:.0f}")
        written.append(hs.save(fig, ax, os.path.join(out, "mp_partitions.png"), rows))

    for name, title in (("mp_merge", "Algorithm 1 (greedy merge) on / off"),
                        ("mp_feedback", "oversize partitions: feedback load vs CPU")):
        rows = hs.load(results_dir, PAPER, name)
        if rows:
            names = hs.variants(rows, "groupby_time")
            vals = [_median(rows, "groupby_time", v) or 0 for v in names]
            fig, ax = hs.new_figure(title, "", "ms")
            ax.bar(range(len(names)), vals, color=hs.COLORS[:len(names)])
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names)
            written.append(hs.save(fig, ax, os.path.join(out, f"{name}.png"), rows))

    rows = hs.load(results_dir, PAPER, "mp_merge_copy")
    if rows:
        streams = _params(rows)
        variants = hs.variants(rows, "groupby_time")
        fig, ax = hs.new_figure("merged partitions to the GPU: host copy vs gather (budget = data / 8)", "", "ms")
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
            fig, ax = hs.new_figure("MP-EGA: partition generating, CPU merge, partition processing", "", "ms")
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


def _range(values):
    return f"{min(values):.2f}-{max(values):.2f}x" if values else "no verified points"


def _verdict(values, lo, what="points"):
    """'reproduced' when every value reaches lo; 'differs (k of m below)' when some do;
    'not reproduced' when none does."""
    if not values:
        return "not measured (no verified points)"
    below = sum(1 for v in values if v < lo)
    if below == 0:
        return "reproduced"
    if below < len(values):
        return f"differs ({below} of {len(values)} {what} below {lo:g}x)"
    return "not reproduced"


NOISE = 0.10  # MP-EGA's host-clock times of one configuration vary by up to ~15% between experiments


def _faster(t_new, t_old, margin=NOISE):
    """'reproduced' when t_new is more than `margin` faster than t_old, else 'not reproduced'."""
    if t_new * (1 + margin) <= t_old:
        return "reproduced"
    if t_new < t_old:
        return f"not reproduced ({t_old / t_new:.2f}x: within the run-to-run variation)"
    return "not reproduced"


def _metric_values(rows, metric, variant=None):
    return [r["median"] for r in hs.verified(rows)
            if r["metric"] == metric and (variant is None or r["variant"] == variant)]


BAR_ROWS = 1e8  # issue 6's bars are on 100M rows


def _sp_claims(results_dir):
    out = []
    rows = hs.load(results_dir, PAPER, "sp_load_factor")
    high = [t for t in _speedups(rows, "lphga", where=lambda p: p >= 0.9)] if rows else []
    s = [t[2] for t in high]
    ns = sorted({t[0] for t in high})
    out.append({"claim": "SP-EGA beats hash-based (LPHGA) group-by at load factor >= 0.9",
                "paper": "1.16-5.39x",
                "measured": _range(s) + " (" + ", ".join(f"{t[2]:.2f}x at LF {t[1]:g}" for t in high)
                            + (f"; n = {', '.join(f'{n:,.0f}' for n in ns)})" if ns else ")"),
                "verdict": _verdict(s, SP_VS_HASH[0])})
    out.append({"claim": "4.1: SP-EGA uses the same memory as LPHGA (three arrays of length L: consistent space "
                         "utilization)",
                "paper": "3 x L items, as LPHGA",
                "measured": "no memory counter in the results; by construction SpEga and Lphga each hold one "
                            "ThreeBuffers of length L (28 bytes a slot) and the same status words",
                "verdict": "not measured (equal by construction; no device-memory metric recorded)"})
    params = _params(rows) if rows else []
    lo = _median(rows, "groupby_rate", "lphga", param=min(params)) if params else None
    hi = _median(rows, "groupby_rate", "lphga", param=max(params)) if params else None
    sp_lo = _median(rows, "groupby_rate", "sp_ega", param=min(params)) if params else None
    sp_hi = _median(rows, "groupby_rate", "sp_ega", param=max(params)) if params else None
    if lo and hi:
        out.append({"claim": "hash-based group-by degrades at high load factor (motivation)",
                    "paper": "qualitative",
                    "measured": f"LPHGA at LF {max(params):g} runs at {hi / lo:.2f}x its rate at LF {min(params):g}",
                    "verdict": "reproduced" if hi < 0.8 * lo else "not reproduced"})
    if lo and hi and sp_lo and sp_hi:
        out.append({"claim": "SP-EGA keeps high load factors usable (motivation: the usual LF < 0.5 wastes half "
                             "the memory)",
                    "paper": "qualitative",
                    "measured": f"SP-EGA at LF {max(params):g} = {sp_hi / sp_lo:.2f}x its LF-{min(params):g} rate "
                                f"(LPHGA {hi / lo:.2f}x); SP-EGA at LF {max(params):g} = {sp_hi / lo:.2f}x LPHGA at "
                                f"LF {min(params):g}",
                    "verdict": "reproduced" if sp_hi / sp_lo > hi / lo and sp_hi >= 0.5 * lo else "not reproduced"})
    # 4.1.6: phase 1 takes a significant portion of the pairs without probing, and phase 4's
    # table is large relative to the remaining pairs (lower load factor, shorter probes).
    hashed = []
    lowered = []
    for name in ("sp_load_factor", "sp_groups", "sp_zipf"):
        r = hs.load(results_dir, PAPER, name)
        hashed += _metric_values(r, "phase1_hashed_pairs", "sp_ega")
        if name == "sp_load_factor":
            for row in hs.verified(r):
                if row["metric"] == "phase4_load_factor" and row["variant"] == "sp_ega":
                    lowered.append((row["param_value"], row["median"]))
    if hashed:
        out.append({"claim": "4.1.6: phases 1-2 aggregate a significant portion of the pairs without linear probing",
                    "paper": "qualitative",
                    "measured": f"{100 * min(hashed):.0f}-{100 * max(hashed):.0f}% of the pairs hashed in phase 1",
                    "verdict": "reproduced" if min(hashed) >= 0.2 else
                    f"differs (as few as {100 * min(hashed):.0f}% at some points)"})
    if lowered:
        lowered.sort()
        out.append({"claim": "4.1.6: phase 4's table is large relative to the remaining pairs (shorter probes)",
                    "paper": "qualitative",
                    "measured": "phase-4 LF " + ", ".join(f"{b:.2f} at LF {a:g}" for a, b in lowered),
                    "verdict": "reproduced" if all(b < a for a, b in lowered) else "not reproduced"})
    out.append({"claim": "4.1.6: SP-EGA significantly reduces the average probing distance of all pairs",
                "paper": "qualitative",
                "measured": "no probe counter; the proxies are the two 4.1.6 rows above (pairs placed without "
                            "probing, phase 4's load factor)",
                "verdict": "not measured (the kernels do not count probes)"})
    rows = hs.load(results_dir, PAPER, "sp_breakdown")
    if rows:
        dominant, moved, totals = [], [], []
        for lf in _params(rows, "phase1_time"):
            sp = [_median(rows, f"phase{p}_time", "sp_ega", param=lf) for p in range(1, 6)]
            lp = [_median(rows, f"phase{p}_time", "lphga", param=lf) for p in range(1, 4)]
            if None in sp or None in lp:
                continue
            dominant.append(sp.index(max(sp)) == 3 and lp.index(max(lp)) == 0)
            moved.append((lf, (sp[1] + sp[2] + sp[4]) / sum(sp)))
            totals.append((lf, sum(lp) / sum(sp)))
        if dominant:
            out.append({"claim": "4.1.6: the hash aggregation (atomics, probing) is the main cost of GPU group-by",
                        "paper": "qualitative",
                        "measured": f"largest phase = the aggregation (SP-EGA phase 4, LPHGA's) at "
                                    f"{sum(dominant)} of {len(dominant)} load factors",
                        "verdict": "reproduced" if all(dominant) else "not reproduced"})
            high = [t for lf, t in totals if lf >= 0.9]
            out.append({"claim": "4.1.6: the extra data movement (phases 2, 3, 5) is worthwhile",
                        "paper": "qualitative",
                        "measured": "phases 2+3+5 = " + ", ".join(f"{100 * m:.0f}% at LF {lf:g}" for lf, m in moved)
                                    + " of SP-EGA's time; LPHGA / SP-EGA total = "
                                    + ", ".join(f"{t:.2f}x at LF {lf:g}" for lf, t in totals),
                        "verdict": "not measured (no LF >= 0.9 point)" if not high else
                        ("not reproduced" if min(high) <= 1.0 else "reproduced" if min(t for _, t in totals) > 1.0
                         else "reproduced at LF >= 0.9 (not below: " +
                         ", ".join(f"{t:.2f}x at LF {lf:g}" for lf, t in totals if t <= 1.0) + ")")})
    per_sweep, sort_speedups, sort_ns = [], [], set()
    for name in ("sp_load_factor", "sp_groups", "sp_zipf", "sp_bar"):
        sp = _speedups(hs.load(results_dir, PAPER, name), "sort")
        if sp:
            per_sweep.append(f"{name} {_range([t[2] for t in sp])}")
            sort_speedups += [t[2] for t in sp]
            sort_ns |= {t[0] for t in sp}
    if sort_speedups:
        out.append({"claim": "SP-EGA beats sort-based GPU group-by (every cardinality, LF, skew tested)",
                    "paper": "1.30-2.48x", "measured": "; ".join(per_sweep),
                    "verdict": _verdict(sort_speedups, SP_VS_SORT[0])})
    # Issue 6's SP-EGA bar: 100M rows (sp_bar in both profiles; sp_load_factor / sp_groups in --full).
    rows = hs.load(results_dir, PAPER, "sp_load_factor")
    bar_h = [t[2] for t in _speedups(rows, "lphga", where=lambda p: p >= 0.9) if t[0] >= BAR_ROWS] if rows else []
    bar_h += [t[2] for t in _speedups(hs.load(results_dir, PAPER, "sp_bar"), "lphga") if t[1] >= 0.89 * t[0]]
    bar_s = []
    for name in ("sp_load_factor", "sp_groups", "sp_bar"):
        bar_s += [t[2] for t in _speedups(hs.load(results_dir, PAPER, name), "sort") if t[0] >= BAR_ROWS]
    if not bar_h and not bar_s:
        out.append({"claim": "issue 6 bar: 100M rows, SP-EGA >= 1.16x LPHGA at LF >= 0.9 and faster than sort at "
                             "every cardinality",
                    "paper": "(hashlab bar)",
                    "measured": "no 100M-row SP-EGA points" + (f" (largest n = {max(sort_ns):,.0f})" if sort_ns else ""),
                    "verdict": "not measured (no 100M-row points in these results: sp_bar runs them)"})
    else:
        ok = bar_h and min(bar_h) >= SP_VS_HASH[0] and bar_s and min(bar_s) > 1.0
        out.append({"claim": "issue 6 bar: 100M rows, SP-EGA >= 1.16x LPHGA at LF >= 0.9 and faster than sort at "
                             "every cardinality",
                    "paper": "(hashlab bar)",
                    "measured": f"over LPHGA {_range(bar_h)}; over sort {_range(bar_s)}",
                    "verdict": "reproduced" if ok else "not reproduced"})
    return out


def _mp_claims(results_dir):
    out = []
    rows = hs.load(results_dir, PAPER, "mp_vs_cpu")
    if rows:
        all_s = []
        for ratio in sorted({r["param_value"] for r in hs.verified(rows) if r["variant"] == "mp_ega"}):
            all_s += [s for _, s in _mp_speedups(rows, ratio)]
        out.append({"claim": "MP-EGA beats CPU group-by for data beyond (a budget of) GPU memory",
                    "paper": "6.45-29.12x", "measured": _range(all_s) + " (budgets data/2 .. data/8, 1M groups)",
                    "verdict": _verdict(all_s, MP_VS_CPU[0])})
        eighth = _mp_speedups(rows, 8.0)
        at_bar = [s for n, s in eighth if n >= BAR_ROWS]
        failed = [p for p in hs.failed_points(rows) if p[0] == "mp_ega"]
        measured = ", ".join(f"{s:.2f}x at n = {n:,.0f}" for n, s in eighth) or "no verified points"
        if failed:
            measured += f", {len(failed)} FAILED"
        if not at_bar:
            verdict = "not measured (no 100M-row point at budget data / 8)"
        else:
            verdict = "reproduced" if min(at_bar) >= ISSUE_MP_BAR and not failed else "not reproduced"
        out.append({"claim": "issue 6 bar: MP-EGA at budget = data / 8 on 100M rows, verified and >= 10x the CPU "
                             "baseline",
                    "paper": "(hashlab bar)", "measured": measured, "verdict": verdict})
        beyond = [r for r in hs.verified(rows) if r["metric"] == "budget" and r["variant"] == "mp_ega"
                  and r["median"] * (1 << 20) < r["n"] * 8]
        over = [r["n"] * 8 / (r["median"] * (1 << 20)) for r in beyond]
        out.append({"claim": "MP-EGA handles data that exceeds GPU memory (motivation: hash group-by fails there)",
                    "paper": "qualitative",
                    "measured": f"{len(beyond)} verified runs with data "
                                + (f"{min(over):.1f}-{max(over):.1f}x" if over else "-") + " the GPU memory budget; "
                                "none beyond the H100's real 80 GB (the host holds 128 GiB)",
                    "verdict": "reproduced with a memory budget" if beyond else "not measured"})
    for name, label in (("mp_groups", "groups"), ("mp_zipf", "Zipf exponent")):
        r = hs.load(results_dir, PAPER, name)
        pts = []
        for row in hs.verified(r):
            if row["metric"] == "groupby_time" and row["variant"] == "mp_ega":
                cpu = _median(r, "groupby_time", "cpu", n=row["n"], param=row["param_value"])
                if cpu and row["median"]:
                    pts.append((row["param_value"], cpu / row["median"]))
        if pts:
            pts.sort()
            out.append({"claim": f"MP-EGA beats CPU group-by (budget = data / 8) over {label}",
                        "paper": "6.45-29.12x",
                        "measured": ", ".join(f"{s:.2f}x at {v:g}" for v, s in pts),
                        "verdict": _verdict([s for _, s in pts], MP_VS_CPU[0])})
    # 4.2.1 / Theorem 1.
    rows = hs.load(results_dir, PAPER, "mp_partitions")
    if rows:
        t1 = _median(rows, "groupby_time", "theorem1")
        p1 = _median(rows, "partitions", "theorem1")
        fixed = sorted((r["param_value"], r["median"]) for r in hs.verified(rows)
                       if r["metric"] == "groupby_time" and r["variant"] == "fixed")
        if t1 and fixed:
            best_fixed = min(t for _, t in fixed)
            few, many = fixed[0], fixed[-1]
            out.append({"claim": "4.2.1: too few partitions overflow the GPU, too many cost overhead; Theorem 1's P "
                                 "balances them",
                        "paper": "qualitative",
                        "measured": f"Theorem 1 P = {p1:.0f}: {t1:.1f} ms; fixed " +
                                    ", ".join(f"P = {p:g}: {t:.1f} ms" for p, t in fixed),
                        "verdict": "reproduced" if t1 <= 1.05 * best_fixed and few[1] > 1.2 * t1
                        and many[1] >= (1 + NOISE) * t1 else
                        "not reproduced" if t1 > 1.05 * best_fixed or few[1] <= 1.2 * t1 else
                        f"differs (too few: {few[1] / t1:.2f}x slower; too many (P = {many[0]:g}): "
                        f"{many[1] / t1:.2f}x, not beyond the run-to-run variation)"})
    over = []
    for name, variant in (("mp_vs_cpu", "mp_ega"), ("mp_breakdown", "mp_ega"), ("mp_partitions", "theorem1"),
                          ("mp_merge", "merge_on"), ("mp_streams", "mp_ega"), ("mp_cpu_tiles", "mp_ega")):
        over += _metric_values(hs.load(results_dir, PAPER, name), "oversize_partitions", variant)
    if over:
        out.append({"claim": "Theorem 1 (p = 1e-6): no partition exceeds the GPU's share with the computed P",
                    "paper": "P(overflow) <= p",
                    "measured": f"{sum(1 for v in over if v > 0)} of {len(over)} uniform-key runs had an oversize "
                                "partition (the bound itself: partition_plan_test, simulation)",
                    "verdict": "reproduced" if max(over) == 0 else "not reproduced"})
    rows = hs.load(results_dir, PAPER, "mp_feedback")
    if rows:
        fb, cpu = _median(rows, "groupby_time", "feedback_load"), _median(rows, "groupby_time", "cpu_fallback")
        if fb and cpu:
            out.append({"claim": "4.2.2: feedback load keeps oversize partitions whose results fit on the GPU "
                                 "(vs all on the CPU)",
                        "paper": "qualitative",
                        "measured": f"{cpu / fb:.2f}x faster ({fb:.1f} vs {cpu:.1f} ms, 16 partitions > L)",
                        "verdict": _faster(fb, cpu)})
        rounds, cpu_rows = _median(rows, "feedback_rounds", "feedback_load"), _median(rows, "cpu_rows", "feedback_load")
        parts = _median(rows, "oversize_partitions", "feedback_load")
        out.append({"claim": "4.2.2: the alpha_min / alpha_max thresholds keep every round's transfer >= alpha_min x "
                             "L (high PCIe and device use, low space overhead) where loading only the free space "
                             "shrinks the later rounds",
                    "paper": "qualitative (a per-round lower bound)",
                    "measured": (f"{rounds:.0f} feedback rounds over {parts or 0:.0f} oversize partitions, "
                                 f"{cpu_rows or 0:.0f} rows left to the CPU" if rounds is not None else "-")
                                + "; no per-round transfer counter, no free-space-only variant",
                    "verdict": "not measured (no free-space-only load variant to compare with)"})
    rows = hs.load(results_dir, PAPER, "mp_merge_copy")
    for s in _params(rows) if rows else []:
        times = {v: _median(rows, "groupby_time", v, param=s) for v in ("host_copy", "gpu_gather", "host_and_gather")}
        times = {v: t for v, t in times.items() if t}
        if "host_copy" in times and len(times) > 1:
            best = min(times, key=times.get)
            out.append({"claim": f"4.2.5: merge each partition's pieces on the CPU, then one copy, rather than T "
                                 f"copies per partition (s = {s:g})",
                        "paper": "qualitative (T copies per partition would waste PCIe)",
                        "measured": ", ".join(f"{v} {t:.1f} ms" for v, t in times.items()),
                        "verdict": f"measured: {best} fastest" + ("" if best == "host_copy" else
                                   f", {times['host_copy'] / times[best]:.2f}x the host copy's speed")})
    rows = hs.load(results_dir, PAPER, "mp_merge")
    if rows:
        on, off = _median(rows, "groupby_time", "merge_on"), _median(rows, "groupby_time", "merge_off")
        m_on, m_off = _median(rows, "merged_partitions", "merge_on"), _median(rows, "merged_partitions", "merge_off")
        if on and off:
            out.append({"claim": "4.2.3: greedy merge of small partitions (Algorithm 1) speeds up processing",
                        "paper": "qualitative",
                        "measured": f"{off / on:.2f}x ({on:.1f} vs {off:.1f} ms; {m_on or 0:.0f} vs {m_off or 0:.0f} "
                                    "partitions processed)",
                        "verdict": _faster(on, off)})
    out.append({"claim": "Theorem 2: the greedy merge's degree y is within 2x of the optimal cut, O(n log n)",
                "paper": "y <= 2 x optimum",
                "measured": "no experiment; partition_plan_test checks y <= 2 x the exact optimum on 300 random "
                            "instances (CPU test)",
                "verdict": "not measured (a unit test, not an experiment)"})
    rows = hs.load(results_dir, PAPER, "mp_streams")
    if rows:
        times = sorted((r["param_value"], r["median"]) for r in hs.verified(rows)
                       if r["metric"] == "groupby_time" and r["variant"] == "mp_ega")
        one = [t for s, t in times if s == 1]
        more = [(s, t) for s, t in times if s > 1]
        if one and more:
            best = min(more, key=lambda st: st[1])
            out.append({"claim": "4.2.4: several streams hide the copy latency (vs one stream)",
                        "paper": "qualitative",
                        "measured": ", ".join(f"s = {s:g}: {t:.1f} ms" for s, t in times) +
                                    " (a fixed budget: more streams, smaller tiles)",
                        "verdict": _faster(best[1], one[0]) if best[1] * (1 + NOISE) > one[0] else
                        ("reproduced" if all(t < one[0] for _, t in more) else
                         f"differs (best at s = {best[0]:g}; larger s slower: smaller tiles)")})
    rows = hs.load(results_dir, PAPER, "mp_cpu_tiles")
    if rows:
        times = sorted((r["param_value"], r["median"]) for r in hs.verified(rows)
                       if r["metric"] == "groupby_time" and r["variant"] == "mp_ega")
        zero = [t for s, t in times if s == 0]
        more = [t for s, t in times if s > 0]
        if zero and more:
            out.append({"claim": "Algorithm 2: CPU tiles beside the GPU streams add throughput",
                        "paper": "qualitative (the design, no number)",
                        "measured": ", ".join(f"t = {s:g}: {t:.1f} ms" for s, t in times),
                        "verdict": _faster(min(more), zero[0])})
    return out


def claims(results_dir):
    return _sp_claims(results_dir) + _mp_claims(results_dir)


if __name__ == "__main__":
    hs.script_main(__doc__, plot, claims)
