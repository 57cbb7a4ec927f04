"""Figures of Alcantara et al., "Building an Efficient Hash Table on the GPU" (results/cuckoo/*.csv).

plot(results_dir) draws Figs. 4.4-4.7, the failed-query sweep, the block-size sweep, the number of
hash functions, the smallest-practical-table sweep, the eviction chains, XOR vs multiplication,
sorted vs random queries, Listing 4.1's short-circuit and the bandwidth shares. The chapter's
numbers appear as markers; the claims and their verdicts are papers/cuckoo/claims.toml, decided
by plots/verdicts.py.
"""
import os

import hashlab_style as hs

PAPER = "cuckoo"
# Section 4.3.1.1: smallest practical table sizes for 2..5 functions.
CHAPTER_MIN_SPACE = {"k2": 2.1, "k3": 1.1, "k4": 1.03, "k5": 1.02}
# Abstract (GTX 470): 32M pairs built in 130 ms, all retrieved in 66.8 ms.
CHAPTER_32M_MS = {"build": 130, "retrieve": 66.8}
# Section 4.5.1 (GTX 470): retrieval of 10M queries, all found -> none found (ms).
CHAPTER_FAILED_QUERIES = {"cuckoo_4fn": (20.5, 41.6), "cuckoo_3fn": (19.0, 31.4)}


# hash_family's named axis "dataset" as its CSV writes it, in the experiment's order.
DATASETS = ["random", "sequential", "voxel_surface", "voxel_ball"]


def _functions_points(rows, metric, space):
    """(functions, median) of the functions experiment at one space factor: the layout with the
    number of functions as the parameter (variants cuckoo_1.25N / cuckoo_2.5N), or the earlier one
    (variants k2..k5, the space factor as the parameter)."""
    pts = []
    for r in hs.verified(rows):
        if r["metric"] != metric:
            continue
        if r.get("param_name") == "hash_functions":
            if r["variant"] == f"cuckoo_{space:g}N":
                pts.append((int(r["param_value"]), r["median"]))
        elif abs(r["param_value"] - space) < 1e-9:
            pts.append((int(r["variant"][1]), r["median"]))
    return sorted(pts)


def _bars(ax, groups, series_names, values, colors=None):
    """Grouped bars: values[series][group] (None: no bar)."""
    width = 0.8 / max(1, len(series_names))
    for i, name in enumerate(series_names):
        xs = [g + (i - (len(series_names) - 1) / 2) * width for g in range(len(groups))]
        ys = [values[name].get(g) for g in range(len(groups))]
        ax.bar([x for x, y in zip(xs, ys) if y is not None], [y for y in ys if y is not None], width,
               label=name, color=(colors or hs.COLORS)[i % len(hs.COLORS)])
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, fontsize=8)


def plot(results_dir):
    out = os.path.join(results_dir, PAPER)
    written = []
    lim = hs.limits(results_dir)

    rows = hs.load(results_dir, PAPER, "fig4_4")
    if rows:
        for phase, limit_key, label in (("build", "atomic_exch_gops_large", "random 8-byte atomicExch rate"),
                                        ("retrieve", "random_read_gops_large", "random 8-byte read rate")):
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig4_4", "insertion" if phase == "build" else "retrieval"),
                                    "pairs (N)", "G pairs/s" if phase == "build" else "G queries/s", logx=True)
            hs.plot_series(ax, rows, f"{phase}_rate")
            hs.hardware_line(ax, lim.get(limit_key), label)
            # The abstract: 32M pairs built in 130 ms, retrieved in 66.8 ms on a GTX 470.
            ms = CHAPTER_32M_MS[phase]
            hs.paper_marker(ax, float(1 << 25), (1 << 25) / ms / 1e6, f"chapter, 32M on a GTX 470 ({ms} ms)")
            written.append(hs.save(fig, ax, os.path.join(out, f"fig4_4_{phase}.png"), rows))

    rows = hs.load(results_dir, PAPER, "failed_queries")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "failed_queries"), "fraction of queries absent", "retrieval time (ms)")
        hs.plot_series(ax, rows, "retrieve_time", x="param_value")
        for v, (lo, hi) in CHAPTER_FAILED_QUERIES.items():
            ax.plot([0, 1], [lo, hi], linestyle=":", color="gray", linewidth=0.8)
            hs.paper_marker(ax, 1.0, hi, f"chapter {v} (GTX 470)")
        ax.set_yscale("log")
        written.append(hs.save(fig, ax, os.path.join(out, "failed_queries.png"), rows,
                               note="dotted: the chapter's GTX 470 times"))

    for exp in ("fig4_5", "fig4_6"):
        rows = hs.load(results_dir, PAPER, exp)
        if not rows:
            continue
        for phase in ("build", "retrieve"):
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, exp, "construction" if phase == "build" else "retrieval"),
                                    "average multiplicity of a key", "time (ms)", logx=True)
            hs.plot_series(ax, rows, f"{phase}_time", x="param_value")
            written.append(hs.save(fig, ax, os.path.join(out, f"{exp}_{phase}.png"), rows))

    rows = hs.load(results_dir, PAPER, "fig4_7")
    if rows:
        # Section 4.5.3's cost model as the experiment computed it at each measured space (with this
        # GPU's probed constants, and with the chapter's GTX 480 ones): papers/cuckoo's cost_model.hpp.
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig4_7"), "table size (x N)", "G pairs/s")
        hs.plot_series(ax, rows, "build_rate", x="param_value", label_of=lambda v: "measured (4 functions)")
        xs, model, _, _ = hs.series(rows, "model_build_rate", "cuckoo", x="param_value")
        if xs:
            ax.plot(xs, model, color="black", linewidth=1.2, label="cost model, this GPU's probe constants")
        bound = hs.median_of(rows, "model_upper_bound", "cuckoo") or lim.get("atomic_exch_gops_large")
        hs.hardware_line(ax, bound, "upper bound 1/T_uncoalesced")
        written.append(hs.save(fig, ax, os.path.join(out, "fig4_7.png"), rows))

        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig4_7", "normalised to each bound 1/T_uncoalesced"),
                                "table size (x N)", "fraction of the upper bound")
        for metric, bound_metric, style in (
                ("build_rate", None, dict(marker="o", label="measured / this GPU's bound")),
                ("model_build_rate", None, dict(color="black", label="cost model, this GPU")),
                ("model_build_rate_gtx480", "model_upper_bound_gtx480",
                 dict(color="gray", linestyle="--", label="cost model, chapter's GTX 480 constants"))):
            xs, med, _, _ = hs.series(rows, metric, "cuckoo", x="param_value")
            over = hs.median_of(rows, bound_metric, "cuckoo") if bound_metric else bound
            if xs and over:
                ax.plot(xs, [m / over for m in med], **style)
        hs.paper_marker(ax, 4.5, 0.78, "chapter: 78% at 4.5N")
        hs.paper_marker(ax, 1.3, 0.5, "chapter: 50% at 1.3N")
        written.append(hs.save(fig, ax, os.path.join(out, "fig4_7_normalised.png"), rows))

        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig4_7", "atomicExch per pair, measured vs -m/N ln(1-N/m)"),
                                "table size (x N)", "updates per pair")
        hs.plot_series(ax, rows, "updates_per_pair", x="param_value", label_of=lambda v: "measured")
        hs.plot_series(ax, [dict(r, variant="model") for r in rows], "model_updates_per_pair", x="param_value",
                       label_of=lambda v: "model")
        written.append(hs.save(fig, ax, os.path.join(out, "fig4_7_updates.png"), rows))

    rows = hs.load(results_dir, PAPER, "block_size")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "block_size"), "threads per block",
                                "G pairs/s", logx=True)
        hs.plot_series(ax, rows, "build_rate", x="param_value")
        ax.axvline(64, color="gray", linestyle=":", linewidth=0.9)
        written.append(hs.save(fig, ax, os.path.join(out, "block_size.png"), rows, note="dotted: the chapter's 64"))

    rows = hs.load(results_dir, PAPER, "functions")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "functions"), "hash functions",
                                "time (ms)")
        drawn = 0
        for i, (metric, label) in enumerate((("build_time", "build"), ("retrieve_time", "retrieve (present)"),
                                             ("retrieve_absent_time", "retrieve (absent)"))):
            for j, space in enumerate((1.25, 2.5)):
                pts = _functions_points(rows, metric, space)
                if pts:
                    ax.plot([k for k, _ in pts], [t for _, t in pts], color=hs.COLORS[i % len(hs.COLORS)],
                            marker=hs.MARKERS[j % len(hs.MARKERS)], linestyle="-" if j == 0 else "--",
                            label=f"{label}, {space:g}N")
                    drawn += 1
        if drawn:
            ax.set_xticks([2, 3, 4, 5])
            written.append(hs.save(fig, ax, os.path.join(out, "functions.png"), rows))

    rows = hs.load(results_dir, PAPER, "min_space")
    if rows:
        for suffix, limit, name in (("", "7 lg N", "min_space.png"), ("_long", "500 lg N", "min_space_long.png")):
            only = [v + suffix for v in CHAPTER_MIN_SPACE]
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "min_space", limit), "table size (x N)",
                                    "fraction of build attempts that fail")
            subset = [r for r in rows if r["variant"] in only]  # colours in the order k2..k5 on both figures
            if not hs.plot_series(ax, subset, "failed_attempt_fraction", x="param_value"):
                continue
            for i, (v, f) in enumerate(CHAPTER_MIN_SPACE.items()):
                ax.axvline(f, color=hs.COLORS[i % len(hs.COLORS)], linestyle=":", linewidth=0.9)
            ax.axhline(0.5, color="black", linestyle="--", linewidth=0.8)
            written.append(hs.save(fig, ax, os.path.join(out, name), rows,
                                   note="dotted: the chapter's ~2.1, 1.1, 1.03, 1.02 N; dashed: 'practical' limit"))
    rows = hs.load(results_dir, PAPER, "fig4_7")
    if rows and any(r["metric"] == "chain_median" for r in rows):
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig4_7", "eviction chains, 4.2"), "table size (x N)",
                                "exchanges (atomicExch) per chain", logy=True)
        for i, (metric, label) in enumerate((("chain_median", "median"), ("chain_mean", "mean"), ("chain_max", "longest"))):
            xs, med, _, _ = hs.series(rows, metric, "cuckoo", x="param_value")
            if xs:
                ax.plot(xs, med, marker=hs.MARKERS[i], color=hs.COLORS[i], label=label)
        ax.axhspan(1, 2, color="gray", alpha=0.15, label="chapter: median one or two")
        xs, med, _, _ = hs.series(rows, "max_iterations", "cuckoo", x="param_value")
        if xs:
            ax.plot(xs, med, color="black", linestyle=":", linewidth=0.9, label="eviction limit used")
        written.append(hs.save(fig, ax, os.path.join(out, "fig4_7_chains.png"), rows))

    if rows and any(r["metric"] == "probes_per_query" for r in rows):
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig4_7", "probes per lookup of a present key, 4.3.1.1"),
                                "table size (x N)",
                                "probes per query (Listing 4.2)")
        hs.plot_series(ax, rows, "probes_per_query", x="param_value", label_of=lambda v: "measured (4 functions)")
        written.append(hs.save(fig, ax, os.path.join(out, "fig4_7_probes.png"), rows))

    rows = hs.load(results_dir, PAPER, "hash_family")
    if rows:
        present = {r["param_value"] for r in hs.verified(rows)}
        names = [d for d in DATASETS if d in present] + sorted(present - set(DATASETS))
        groups = [d.replace("_", " ") for d in names]
        for metric, ylabel, name, aspect in (
                ("updates_per_pair", "exchanges per pair (successful attempts)", "hash_family_exchanges.png", "evictions"),
                ("failed_attempt_fraction", "fraction of build attempts that fail", "hash_family_failures.png",
                 "failed attempts")):
            values = {v: {names.index(r["param_value"]): r["median"] for r in hs.verified(rows)
                          if r["variant"] == v and r["metric"] == metric} for v in ("multiply", "xor")}
            if not any(values.values()):
                continue
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "hash_family", aspect),
                                    "dataset (1M keys, 1.25N, 4 functions, 7 lg N)", ylabel)
            _bars(ax, groups, ["multiply", "xor"], values)
            written.append(hs.save(fig, ax, os.path.join(out, name), rows))

    rows = hs.load(results_dir, PAPER, "query_order")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "query_order"), "pairs (N)", "G queries/s",
                                logx=True, logy=True)
        for i, v in enumerate(("cuckoo", "sorted_array")):
            for j, (order, name) in enumerate(((0.0, "random order"), (1.0, "sorted order"))):
                xs, med, lo, hi = hs.series(rows, "retrieve_rate", v, where=lambda r, o=order: r["param_value"] == o)
                if xs:
                    ax.errorbar(xs, med, yerr=[[m - l for m, l in zip(med, lo)], [h - m for m, h in zip(med, hi)]],
                                color=hs.COLORS[i], marker=hs.MARKERS[j], linestyle="-" if j == 0 else "--",
                                capsize=2, label=f"{v}, {name}")
        written.append(hs.save(fig, ax, os.path.join(out, "query_order.png"), rows))

    rows = hs.load(results_dir, PAPER, "short_circuit")
    if rows:
        fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "short_circuit"), "items (N)",
                                "fraction of attempts that fail", logx=True)
        for i, (metric, label) in enumerate((("failed_fraction_short_circuit", "short-circuit (Listing 4.1)"),
                                             ("failed_fraction_skip_repeated_slots", "skip repeated slots (fix)"),
                                             ("short_circuit_only_fraction", "short-circuit fails, fix builds"))):
            xs, med, _, _ = hs.series(rows, metric, "cuckoo_4fn")
            if xs:
                ax.plot(xs, med, marker=hs.MARKERS[i], color=hs.COLORS[i], linestyle="-" if i < 2 else ":", label=label)
        ax.set_yscale("symlog", linthresh=1e-4)
        written.append(hs.save(fig, ax, os.path.join(out, "short_circuit.png"), rows,
                               note="paired attempts: the same constants under both rules"))

    rows = hs.load(results_dir, PAPER, "bandwidth_share")
    if rows:
        names = {"cuckoo_1.25N": "cuckoo build (1.25N)", "radix_sort": "radix sort (sorted array)"}
        ours = {v: hs.median_of(rows, "pin_share", v) for v in names}
        if any(x is not None for x in ours.values()):
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "bandwidth_share"), "", "fraction of pin bandwidth")
            groups = list(names.values())
            _bars(ax, groups, ["this GPU", "chapter (GTX 480)"],
                  {"this GPU": {i: ours[v] for i, v in enumerate(names) if ours[v] is not None},
                   "chapter (GTX 480)": {0: 0.06, 1: 0.70}})
            written.append(hs.save(fig, ax, os.path.join(out, "bandwidth_share.png"), rows,
                                   note="8-byte accesses counted as in the chapter (cost_model.hpp)"))
    rows = hs.load(results_dir, PAPER, "fig4_7_left")
    if rows:
        kinds = ["atomic_exch_64", "atomic_cas_64", "nonatomic_64", "atomic_exch_32", "nonatomic_32"]
        rates = {k: hs.median_of(rows, "update_rate", k, param=0.0) for k in kinds}
        if any(v is not None for v in rates.values()):
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig4_7_left"), "", "G updates/s")
            _bars(ax, [k.replace("_", " ") for k in kinds], ["this GPU"],
                  {"this GPU": {i: rates[k] for i, k in enumerate(kinds) if rates[k] is not None}})
            hs.hardware_line(ax, hs.limits(results_dir).get("atomic_exch_gops_large"), "probe: random 8-byte atomicExch")
            written.append(hs.save(fig, ax, os.path.join(out, "fig4_7_left.png"), rows,
                                   note="chapter (GTX 480): all about 0.67 G updates/s"))
        xs, med, lo, hi = hs.series(rows, "update_rate", "atomic_exch_64", x="param_value")
        if len(xs) > 1:
            fig, ax = hs.new_figure(hs.title(results_dir, PAPER, "fig4_7_left", "arithmetic per update, atomicExch 64-bit"),
                                    "instructions per update",
                                    "G updates/s", logx=False)
            ax.errorbar(xs, med, yerr=[[m - l for m, l in zip(med, lo)], [h - m for m, h in zip(med, hi)]], marker="o",
                        capsize=2, label="measured")
            ax.axvline(1000, color="gray", linestyle=":", linewidth=0.9)
            written.append(hs.save(fig, ax, os.path.join(out, "fig4_7_left_arithmetic.png"), rows,
                                   note="dotted: the chapter's 1000 instructions per update"))
    return written


if __name__ == "__main__":
    hs.script_main(__doc__, plot)
