"""Figures and cross-paper verdicts of compare/ (results/compare/*.csv).

plot(results_dir) draws each comparison with the hardware limit that bounds it (hs.limits, from
`hashlab probe`): the random 8-byte atomic rate for builds and group-bys (an insert or an
aggregation needs at least one random atomic), the random 8-byte read rate for lookups (at least
one random read each), and for joins of |R| = |S| the rate of one atomic per R row plus one read
per S row. claims(results_dir) answers the questions no single paper asks, with verdicts computed
from the measurements ("not measured" where there are none).
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
}


def label(v):
    return LABELS.get(v, v)


def _param(name):
    return lambda r: r.get("param_name") == name


def _join_limit(atomic, read):
    """Input rows/s of a join of |R| = |S|: one random atomic per R row, one random read per S row."""
    if not atomic or not read:
        return None
    return 2.0 / (1.0 / atomic + 1.0 / read)


def plot(results_dir):
    out = os.path.join(results_dir, PAPER)
    limits = hs.limits(results_dir)
    atomic = limits.get("atomic_cas_gops_large")
    read = limits.get("random_read_gops_large")
    written = []

    rows = hs.load(results_dir, PAPER, "tables")
    if rows:
        for metric, title, ylabel, limit, limit_label in [
                ("build_rate", "tables: build rate vs load factor (HashGraph Fig. 2, cuckoo as cuDPP)", "G keys/s",
                 atomic, "random 8-byte atomic rate (one per insert)"),
                ("lookup_rate", "tables: lookup rate vs load factor (all hits)", "G queries/s",
                 read, "random 8-byte read rate (one per lookup)"),
                ("bytes_per_key", "tables: device bytes per key vs load factor", "bytes / key", None, None)]:
            fig, ax = hs.new_figure(title, "load factor (keys / slots; HashGraph: keys / vertices)", ylabel, logx=True)
            hs.plot_series(ax, rows, metric, x="param_value", label_of=label, where=_param("load_factor"))
            hs.hardware_line(ax, limit, limit_label or "")
            written.append(hs.save(fig, ax, os.path.join(out, f"tables_{metric.split('_')[0]}_load.png"), rows,
                                   note="sorted array: one point, load 1"))
        for metric, title, ylabel, limit, limit_label in [
                ("build_rate", "tables: build rate vs multiplicity", "G keys/s", atomic,
                 "random 8-byte atomic rate"),
                ("lookup_rate", "tables: lookup (count per key) vs multiplicity", "G queries/s", read,
                 "random 8-byte read rate"),
                ("bytes_per_key", "tables: bytes per key vs multiplicity", "bytes / key", None, None)]:
            fig, ax = hs.new_figure(title, "average rows per key", ylabel, logx=True)
            hs.plot_series(ax, rows, metric, x="param_value", label_of=label, where=_param("multiplicity"))
            hs.hardware_line(ax, limit, limit_label or "")
            written.append(hs.save(fig, ax, os.path.join(out, f"tables_{metric.split('_')[0]}_multiplicity.png"),
                                   rows))

    rows = hs.load(results_dir, PAPER, "groupby")
    if rows:
        fig, ax = hs.new_figure("group-by (sum) vs number of groups", "groups (rightmost: every key distinct)",
                                "G rows/s", logy=True)
        ax.set_xscale("log")
        hs.plot_series(ax, rows, "groupby_rate", x="param_value", label_of=label, where=_param("groups"))
        hs.hardware_line(ax, atomic, "random 8-byte atomic rate (one per row)")
        written.append(hs.save(fig, ax, os.path.join(out, "groupby_groups.png"), rows))
        fig, ax = hs.new_figure("group-by (sum) vs Zipf skew", "Zipf exponent s", "G rows/s", logy=True)
        hs.plot_series(ax, rows, "groupby_rate", x="param_value", label_of=label, where=_param("zipf_exponent"))
        hs.hardware_line(ax, atomic, "random 8-byte atomic rate (one per row)")
        written.append(hs.save(fig, ax, os.path.join(out, "groupby_zipf.png"), rows))

    rows = hs.load(results_dir, PAPER, "joins")
    if rows:
        limit = _join_limit(atomic, read)
        default_rate = 0.5
        fig, ax = hs.new_figure("Pk-Pk join vs table size (match rate 0.5)", "rows per table", "G input rows/s",
                                logx=True)
        hs.plot_series(ax, rows, "join_rate", label_of=label,
                       where=lambda r: r["param_value"] is not None and math.isclose(r["param_value"], default_rate))
        hs.hardware_line(ax, limit, "one random atomic per R row + one random read per S row")
        written.append(hs.save(fig, ax, os.path.join(out, "joins_size.png"), rows))
        largest = _largest_n(rows)
        fig, ax = hs.new_figure(f"Pk-Pk join vs match rate ({_size(largest)} rows per table)", "match rate",
                                "G input rows/s")
        hs.plot_series(ax, rows, "join_rate", x="param_value", label_of=label, where=lambda r: r["n"] == largest)
        hs.hardware_line(ax, limit, "one random atomic per R row + one random read per S row")
        written.append(hs.save(fig, ax, os.path.join(out, "joins_match_rate.png"), rows))
    return written


# ---- claims -------------------------------------------------------------------------------------

def _size(n):
    if not n:
        return "?"
    n = int(n)
    return f"{n >> 20}M" if n >= 1 << 20 else str(n)


def _largest_n(rows):
    ns = [r["n"] for r in hs.verified(rows) if r["n"]]
    return max(ns) if ns else None


def _value(rows, metric, variant, param_name=None, param=None, n=None):
    return hs.median_of(rows, metric, variant, n=n, param=param, param_name=param_name)


def _params(rows, param_name, n=None):
    return sorted({r["param_value"] for r in hs.verified(rows)
                   if r.get("param_name") == param_name and r["param_value"] is not None and (n is None or r["n"] == n)})


def _rates(rows, metric, variants, param_name, param, n=None):
    """{variant: median} of the variants measured at one point."""
    out = {}
    for v in variants:
        x = _value(rows, metric, v, param_name, param, n)
        if x is not None:
            out[v] = x
    return out


def _winner(rates, higher_is_better=True):
    """'measured: winner (x.xx over runner-up)' or None: the answer to a question of ours."""
    if not rates:
        return None
    order = sorted(rates, key=lambda v: rates[v], reverse=higher_is_better)
    best = order[0]
    if len(order) == 1:
        return f"measured: {label(best)} (only one measured)"
    second = order[1]
    ratio = rates[best] / rates[second] if higher_is_better else rates[second] / rates[best]
    return f"measured: {label(best)} ({ratio:.2f}x over {label(second)})"


def _fmt_rates(rates, unit=""):
    return ", ".join(f"{label(v)} {x:.3g}{unit}" for v, x in sorted(rates.items(), key=lambda t: -t[1])) or "not measured"


def _holds(ok):
    if ok is None:
        return "not measured"
    return "holds" if ok else "does not hold"


def _ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


TABLES = ["cuckoo", "hashgraph_v1", "hashgraph_v2", "linear_probing", "sorted_array"]
GROUPBYS = ["rapids", "sp_ega", "lphga", "sort", "cpu"]
GPU_GROUPBYS = ["rapids", "sp_ega", "lphga", "sort"]
JOINS = ["bsp", "hashgraph", "hash_join", "sort_join"]


def _table_claims(results_dir, add):
    rows = hs.load(results_dir, PAPER, "tables")
    limits = hs.limits(results_dir)
    load = "load_factor"
    cuckoo_load = 0.8  # cuckoo 4.3.1.1: 1.25 N slots

    ck, v2 = _value(rows, "build_rate", "cuckoo", load, cuckoo_load), _value(rows, "build_rate", "hashgraph_v2", load, cuckoo_load)
    r = _ratio(ck, v2)
    add("cuckoo (1.25 N, 4 functions) builds faster than HashGraph V2 at load 0.8",
        "neither paper compares them on one GPU",
        "not measured" if r is None else f"cuckoo {ck:.2f}, V2 {v2:.2f} G keys/s ({r:.2f}x)", None if r is None else r > 1)

    ck5, v25 = _value(rows, "build_rate", "cuckoo", load, 0.5), _value(rows, "build_rate", "hashgraph_v2", load, 0.5)
    r = _ratio(v25, ck5)
    add("HashGraph V2 builds faster than cuDPP (cuckoo) even at load 0.5 (HashGraph 5.1, Fig. 2)",
        "V2 > cuDPP at load 0.5", "not measured" if r is None else f"V2 / cuckoo = {r:.2f}x", None if r is None else r > 1)

    best_v2 = max([x for x in (_value(rows, "build_rate", "hashgraph_v2", load, p) for p in _params(rows, load))
                   if x is not None], default=None)
    best_ck = max([x for x in (_value(rows, "build_rate", "cuckoo", load, p) for p in _params(rows, load))
                   if x is not None], default=None)
    r = _ratio(best_v2, best_ck)
    add("HashGraph is 2x-8x faster than cuDPP (abstract; best build of each over the loads)", "2x-8x",
        "not measured" if r is None else f"best V2 / best cuckoo = {r:.2f}x", None if r is None else 2 <= r <= 8)

    ckl, v2l = _value(rows, "lookup_rate", "cuckoo", load, cuckoo_load), _value(rows, "lookup_rate", "hashgraph_v2", load, cuckoo_load)
    r = _ratio(ckl, v2l)
    add("cuckoo lookups are faster than HashGraph V2 probe-standard at load 0.8",
        "cuckoo: at most 4 probes; HashGraph: one list walk",
        "not measured" if r is None else f"cuckoo {ckl:.2f}, V2 {v2l:.2f} G queries/s ({r:.2f}x)",
        None if r is None else r > 1)

    sorted_lookup = _value(rows, "lookup_rate", "sorted_array", load, 1.0)
    hashed = _rates(rows, "lookup_rate", ["cuckoo", "linear_probing"], load, cuckoo_load)
    ok = None if sorted_lookup is None or not hashed else all(x > sorted_lookup for x in hashed.values())
    add("hash tables look up faster than binary search in a sorted array (cuckoo 4.1, Fig. 4.4)",
        "cuckoo > sorted array",
        "not measured" if ok is None else f"{_fmt_rates(hashed)} vs sorted array {sorted_lookup:.3g} G queries/s",
        ok)

    for metric, what, higher in [("build_rate", "builds fastest", True), ("lookup_rate", "looks up fastest", True),
                                 ("bytes_per_key", "needs the fewest bytes per key", False)]:
        rates = _rates(rows, metric, [t for t in TABLES if t != "sorted_array"], load, cuckoo_load)
        w = _winner(rates, higher)
        add(f"which hash table {what} at load 0.8", "no paper compares all four",
            _fmt_rates(rates, " B" if metric == "bytes_per_key" else ""), None,
            verdict=w or "not measured")

    for metric, key, what in [("build_rate", "atomic_cas_gops_large", "build to the random 8-byte atomic rate"),
                              ("lookup_rate", "random_read_gops_large", "lookup to the random 8-byte read rate")]:
        limit = limits.get(key)
        rates = _rates(rows, metric, [t for t in TABLES if t != "sorted_array"], load, cuckoo_load)
        claim = f"closest {what} at load 0.8 (hashlab probe)"
        if limit and rates:
            best = max(rates, key=rates.get)
            add(claim, f"{limit:.3g} G/s", ", ".join(f"{label(v)} {x / limit:.0%}" for v, x in
                                                     sorted(rates.items(), key=lambda t: -t[1])), None,
                verdict=f"measured: {label(best)}")
        else:
            add(claim, "device limit", "not measured", None)

    v2_rates = [x for x in (_value(rows, "build_rate", "hashgraph_v2", load, p) for p in _params(rows, load)) if x]
    spread = max(v2_rates) / min(v2_rates) if v2_rates else None
    add("HashGraph is indifferent to the load factor (abstract)", "flat build rate",
        "not measured" if spread is None else f"V2 build max / min over the loads = {spread:.2f}x",
        None if spread is None else spread <= 1.25)

    mult = "multiplicity"
    ms = _params(rows, mult)
    if len(ms) >= 2:
        lo, hi = ms[0], ms[-1]
        ck = _ratio(_value(rows, "build_rate", "cuckoo", mult, hi), _value(rows, "build_rate", "cuckoo", mult, lo))
        add(f"cuckoo's build is greatly impacted by duplicates (HashGraph section 2), multiplicity {hi:g} vs {lo:g}",
            "large drop", "not measured" if ck is None else f"cuckoo multivalue rate({hi:g}) / rate({lo:g}) = {ck:.2f}",
            None if ck is None else ck < 0.5)
        v2 = _ratio(_value(rows, "build_rate", "hashgraph_v2", mult, hi), _value(rows, "build_rate", "hashgraph_v2", mult, lo))
        lp = _ratio(_value(rows, "build_rate", "linear_probing", mult, hi), _value(rows, "build_rate", "linear_probing", mult, lo))
        add(f"HashGraph handles many repeats without the loss of open addressing (abstract), multiplicity {hi:g}",
            "V2 keeps its rate, linear probing loses",
            "not measured" if v2 is None or lp is None else f"rate({hi:g}) / rate({lo:g}): V2 {v2:.2f}, linear probing {lp:.2f}",
            None if v2 is None or lp is None else (v2 >= 0.75 and v2 > lp))
        for metric, what in [("build_rate", "builds fastest"), ("lookup_rate", "counts a key's entries fastest")]:
            rates = _rates(rows, metric, TABLES, mult, hi)
            add(f"which structure {what} at multiplicity {hi:g}", "no paper compares them",
                _fmt_rates(rates), None, verdict=_winner(rates) or "not measured")
    else:
        add("tables vs multiplicity", "", "not measured", None)


def _groupby_claims(results_dir, add):
    rows = hs.load(results_dir, PAPER, "groupby")
    gs = _params(rows, "groups")
    for g in gs:
        rates = _rates(rows, "groupby_rate", GROUPBYS, "groups", g)
        # the CSV keeps 6 significant digits: n = 8388608 reads back as 8.38861e+06
        everything = _largest_n(rows) is not None and math.isclose(g, _largest_n(rows), rel_tol=1e-5)
        name = f"all distinct ({g:.3g} groups)" if everything else f"{g:.0f} groups"
        add(f"which group-by wins at {name}", "RAPIDS and EGA each compare against sort only",
            _fmt_rates(rates, " G rows/s"), None, verdict=_winner(rates) or "not measured")
    for s in _params(rows, "zipf_exponent"):
        rates = _rates(rows, "groupby_rate", GROUPBYS, "zipf_exponent", s)
        add(f"which group-by wins at Zipf s = {s:g}", "skew: EGA's motivation", _fmt_rates(rates, " G rows/s"), None,
            verdict=_winner(rates) or "not measured")
    if not gs:
        add("which group-by wins at each cardinality", "", "not measured", None)

    top = gs[-1] if gs else None
    r = _ratio(_value(rows, "groupby_rate", "sp_ega", "groups", top), _value(rows, "groupby_rate", "lphga", "groups", top))
    add("SP-EGA beats LPHGA when every key is distinct (L = n: load factor 1; EGA abstract: 1.16-5.39x at LF > 0.9)",
        "1.16-5.39x", "not measured" if r is None else f"SP-EGA / LPHGA = {r:.2f}x", None if r is None else r >= 1.16)

    wins, total = 0, 0
    for g in gs:
        r = _ratio(_value(rows, "groupby_rate", "sp_ega", "groups", g), _value(rows, "groupby_rate", "sort", "groups", g))
        if r is not None:
            total += 1
            wins += r > 1
    add("SP-EGA beats the sort-based group-by at every cardinality (EGA abstract: 1.30-2.48x)", "every cardinality",
        "not measured" if total == 0 else f"faster at {wins} of {total} cardinalities", None if total == 0 else wins == total)

    low = [g for g in gs if g <= 1000]
    ratios = [x for x in (_ratio(_value(rows, "groupby_rate", "rapids", "groups", g),
                                 _value(rows, "groupby_rate", "sort", "groups", g)) for g in low) if x is not None]
    add("RAPIDS hash group-by beats the sort-based one at few groups (<= 1000; RAPIDS report Fig. 4)", "hash > sort",
        "not measured" if not ratios else "RAPIDS / sort = " + ", ".join(f"{x:.2f}x" for x in ratios),
        None if not ratios else all(x > 1 for x in ratios))

    slowest_gpu_over_cpu = []
    for name in ("groups", "zipf_exponent"):
        for p in _params(rows, name):
            cpu = _value(rows, "groupby_rate", "cpu", name, p)
            gpu = _rates(rows, "groupby_rate", GPU_GROUPBYS, name, p)
            if cpu and gpu:
                slowest_gpu_over_cpu.append(min(gpu.values()) / cpu)
    add("every GPU group-by beats the multi-threaded CPU group-by at every point", "RAPIDS and EGA: GPU > CPU",
        "not measured" if not slowest_gpu_over_cpu else
        f"slowest GPU / CPU = {min(slowest_gpu_over_cpu):.2f}x .. {max(slowest_gpu_over_cpu):.2f}x",
        None if not slowest_gpu_over_cpu else min(slowest_gpu_over_cpu) > 1)


def _join_claims(results_dir, add):
    rows = hs.load(results_dir, PAPER, "joins")
    default_rate = 0.5
    sizes = sorted({r["n"] for r in hs.verified(rows) if r["param_value"] is not None
                    and math.isclose(r["param_value"], default_rate)})
    for n in sizes:
        rates = _rates(rows, "join_rate", JOINS, "match_rate", default_rate, n)
        add(f"which Pk-Pk join wins at {_size(n)} rows per table (match rate 0.5)", "no paper compares all four",
            _fmt_rates(rates, " G rows/s"), None, verdict=_winner(rates) or "not measured")
    if not sizes:
        add("which Pk-Pk join wins at each size", "", "not measured", None)
    largest = sizes[-1] if sizes else None
    bsp = _value(rows, "join_rate", "bsp", "match_rate", default_rate, largest)
    srt = _value(rows, "join_rate", "sort_join", "match_rate", default_rate, largest)
    r = _ratio(bsp, srt)
    add(f"the BSP-sort join beats a full-device sort join ({_size(largest)} rows; what the BSP steps buy)",
        "Dash: BSP steps", "not measured" if r is None else f"BSP / sort join = {r:.2f}x", None if r is None else r > 1)
    hg = _value(rows, "join_rate", "hashgraph", "match_rate", default_rate, largest)
    hj = _value(rows, "join_rate", "hash_join", "match_rate", default_rate, largest)
    r = _ratio(hg, hj)
    add(f"HashGraph probe-new (materialising) beats the linear-probing hash join ({_size(largest)} rows)",
        "HashGraph 5.4 vs cuDF", "not measured" if r is None else f"HashGraph / hash join = {r:.2f}x",
        None if r is None else r > 1)
    hashed = [x for x in (hg, hj) if x is not None]
    sorts = [x for x in (bsp, srt) if x is not None]
    add(f"hash joins beat sort joins on Pk-Pk tables ({_size(largest)} rows)", "Dash chose sorting",
        "not measured" if not hashed or not sorts else f"best hash {max(hashed):.3g}, best sort {max(sorts):.3g} G rows/s",
        None if not hashed or not sorts else max(hashed) > max(sorts))
    for rate in _params(rows, "match_rate", largest):
        if math.isclose(rate, default_rate):
            continue
        rates = _rates(rows, "join_rate", JOINS, "match_rate", rate, largest)
        add(f"which Pk-Pk join wins at match rate {rate:g} ({_size(largest)} rows)", "", _fmt_rates(rates, " G rows/s"),
            None, verdict=_winner(rates) or "not measured")


def claims(results_dir):
    out = []

    def add(claim, paper, measured, ok, verdict=None):
        out.append({"claim": claim, "paper": paper, "measured": measured,
                    "verdict": verdict if verdict is not None else _holds(ok)})

    _table_claims(results_dir, add)
    _groupby_claims(results_dir, add)
    _join_claims(results_dir, add)
    return out


if __name__ == "__main__":
    hs.script_main(__doc__, plot, claims)
