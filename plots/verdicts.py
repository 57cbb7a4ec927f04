"""The verdict engine: every claim of `papers/<paper>/claims.toml` and `compare/claims.toml`,
evaluated from the result CSVs into a typed verdict by the rules of `docs/verdicts.md`.

A claim file is data a person edits and reviews; this module is the only place where a verdict
is decided. `report.py` renders what `evaluate` returns; no other script writes verdict text.

    python3 plots/verdicts.py --results results/reference/h100_80gb_hbm3 [--paper cuckoo]
    python3 plots/verdicts.py --check      # every claim file parses and names known rules

Verdicts: `reproduced`, `partly`, `not reproduced`, `not measured` (a reason is required) for the
papers' claims; `measured` for our own questions and for the papers' absolute figures from
another GPU, which are information, not verdicts (docs/verdicts.md, rule 2).
"""
import argparse
import math
import os
import sys
from dataclasses import dataclass, field

try:
    import tomllib  # Python >= 3.11
except ModuleNotFoundError:  # pragma: no cover - Python 3.8-3.10 with the tomli package
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        sys.exit("verdicts: reading claims.toml needs Python >= 3.11 or the tomli package "
                 "(pip install tomli, or apt-get install python3-tomli)")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import modules as md  # noqa: E402
# The quantity language (which rows a quantity selects) lives in quantities.py; its names are part
# of this module's interface (report.py and the tests use them as verdicts.X).
from quantities import (ClaimError, Results, Series, Value, format_param, format_size, fmt,  # noqa: E402,F401
                        parse_size, quantity, ratio_series, same_param)

REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_MEASURED, MEASURED = (
    "reproduced", "partly", "not reproduced", "not measured", "measured")
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_MEASURED, MEASURED)

# Every module, in the registry's order, and where its claims live (modules.py: from the results'
# sidecars and the claim files in the tree; no list to keep).
MODULES = md.known()
claims_path = md.claims_path


# Rule 2 (docs/verdicts.md): DRAM bandwidth from each GPU's specification, GB/s. A paper's
# absolute figure is scaled by the ratio of the two GPUs' bandwidths, as information.
GPU_BANDWIDTH_GBPS = {
    "GTX 470": 133.9,
    "GTX 480": 177.4,
    "Quadro GV100": 870.0,
    "RTX 2080": 448.0,
    "Titan Xp": 547.6,
    "RTX 3090": 936.2,
    "RTX 4090": 1008.0,
    "NVIDIA H100 80GB HBM3": 3352.0,
    "NVIDIA H100 PCIe": 2039.0,
    "NVIDIA H200": 4800.0,
}

# Rule 1: a figure the paper gives of its own system that is not a speed-up over a baseline (a
# share of its time, a ratio between two of its own points, "about 10x") is claimed within a
# factor of 1.25 either way (`about`).
ABOUT_FACTOR = 1.25
# Rule 3: a rate the paper states as one number is claimed within a factor of 2 either way.
PROPORTION_FACTOR = 2.0
CONFIDENCE = 0.95

# Rule 6: the systems the papers compared against. A claim that names one carries `system` (and,
# where it is judged, `stand_in` and `differs`); test_reference holds every claim file to it.
OTHER_SYSTEMS = ("Crystal", "cuDF", "cuDPP", "WarpDrive", "MC-Hash", "two-level")


# --------------------------------------------------------------------------------------------
# Rules. Each takes the claim and the results and returns (verdict, measured text, reason).

def x_name(claim, x, axis=None, label=None):
    if x is None:
        return ""
    axis = axis or claim.get("over", "")
    if axis == "n":
        return f"N={format_size(x)}"
    name = claim.get("x_label", "") if label is None else label
    return f"{name}{' ' if name else ''}{format_param(x)}"


def names(claim, xs):
    return ", ".join(x_name(claim, x) for x in sorted(xs, key=lambda x: (x is not None, x or 0))) or "none"


def describe(series, claim, limit=8):
    """'1.93 (1.85-2.01)' for one point, 'x1: m, x2: m, ...' for a sweep."""
    unit = f" {series.unit}" if series.unit and series.unit not in ("count", "bool", "fraction") else ""
    items = sorted(series.points.items(), key=lambda t: (t[0] is not None, t[0] or 0))
    parts = []
    for x, v in items[:limit]:
        spread = f" ({fmt(v.lo)}-{fmt(v.hi)})" if v.lo != v.hi and not math.isclose(v.lo, v.hi, rel_tol=1e-3) else ""
        counted = f" ({v.counted})" if v.counted else ""  # count_metrics: which metrics
        parts.append(f"{x_name(claim, x, series.axis, series.x_label or None)}{': ' if x is not None else ''}"
                     f"{fmt(v.median)}{unit}{spread}{counted}")
    if len(items) > limit:
        parts.append(f"... ({len(items)} points)")
    return ", ".join(parts)


def judged_series(claim, results, module, minimum=1):
    """The quantity a rule judges, `a` or `a / b`, over the claim's sweep; and why it is missing
    when it has fewer than `minimum` points."""
    over = claim.get("over")
    a = quantity(results, claim["a"], module, over)
    b = quantity(results, claim["b"], module, over) if "b" in claim else None
    s = ratio_series(a, b)
    missing = ""
    if len(s.points) < minimum:
        missing = s.missing or a.missing or (b.missing if b else "") or \
            ("fewer than two points" if minimum == 2 else "fewer than three points")
    return s, a, b, missing


def judged(claim):
    """The judged quantity's description: 'a' or 'a / b' with their labels."""
    a = claim["a"].get("label") or claim["a"].get("metric") or claim["a"].get("limit")
    if "b" not in claim:
        return a
    b = claim["b"].get("label") or claim["b"].get("metric") or claim["b"].get("limit")
    return f"{a} / {b}"


def holds_interval(lo, hi, med, bounds):
    """(holds at the worst repetition, holds at the median) for a value against its bounds."""
    worst = med_ok = True
    if "at_least" in bounds:
        worst &= lo >= bounds["at_least"]
        med_ok &= med >= bounds["at_least"]
    if "at_most" in bounds:
        worst &= hi <= bounds["at_most"]
        med_ok &= med <= bounds["at_most"]
    if "within" in bounds:
        low, high = bounds["within"]
        worst &= low <= lo and hi <= high
        med_ok &= low <= med <= high
    return worst, med_ok


def bounds_text(bounds):
    parts = []
    if "at_least" in bounds:
        parts.append(f">= {fmt(bounds['at_least'])}")
    if "at_most" in bounds:
        parts.append(f"<= {fmt(bounds['at_most'])}")
    if "within" in bounds:
        parts.append(f"in [{fmt(bounds['within'][0])}, {fmt(bounds['within'][1])}]")
    return " and ".join(parts)


def bounds_of(claim):
    """The claim's bounds. `about = f` is `within [f / 1.25, f * 1.25]` (rule 1), marked so that a
    value above it can be named as such."""
    b = {k: claim[k] for k in ("at_least", "at_most", "within") if k in claim}
    if "about" in claim:
        if "within" in b:
            raise ClaimError("a claim takes about or within, not both")
        b["within"] = [claim["about"] / ABOUT_FACTOR, claim["about"] * ABOUT_FACTOR]
        b["about"] = claim["about"]
    if not b:
        raise ClaimError("the rule needs at_least, at_most, within or about")
    return b


def upper_end(bounds):
    """The largest value the bounds admit, or None."""
    highs = [bounds["at_most"]] if "at_most" in bounds else []
    if "within" in bounds:
        highs.append(bounds["within"][1])
    return min(highs) if highs else None


def above_text(claim, bounds, points):
    """Rule 1 for a stated range or figure: the points whose median lies above its upper end, said
    so (a range is tested at both ends; a factor larger than the paper's is not the paper's)."""
    high = upper_end(bounds)
    if high is None or ("within" not in bounds):
        return ""
    above = [x for x, v in points.items() if v.median > high]
    if not above:
        return ""
    what = (f"more than {ABOUT_FACTOR:g}x the paper's {fmt(bounds['about'])}" if "about" in bounds
            else f"above the upper end of the claimed range ({fmt(high)})")
    return f"{what} at {names(claim, above)}" if above != [None] else what


def aggregate(claim, results_per_x, what, undecided=()):
    """Rule 1's verdict over the points of a sweep (or the one point of a claim without `over`).
    results_per_x: [(x, holds_worst, holds_median)]. `undecided`: the points among them that hold no
    measurement (skipped, or absent): they do not hold, but the reason does not say the claim fails
    there (the findings name them and why)."""
    quantifier = claim.get("quantifier", "all")
    worst = [x for x, w, _ in results_per_x if w]
    median = [x for x, _, m in results_per_x if m]
    total = len(results_per_x)
    if undecided and quantifier == "all" and len(undecided) < total:
        measured = [t for t in results_per_x if t[0] not in undecided]
        verdict, reason = aggregate(claim, measured, what)
        at = f"at {names(claim, [x for x, _, _ in measured])}"
        if verdict == REPRODUCED:
            return PARTLY, f"holds {at}, the only measured point{'s' if len(measured) > 1 else ''}"
        if verdict == NOT_REPRODUCED and len(measured) == 1:
            return verdict, f"{what} {at}"
        return verdict, reason
    if quantifier == "any":
        if worst:
            return REPRODUCED, f"holds at the worst repetition at {names(claim, worst)}"
        if median:
            return PARTLY, f"holds at the median only, at {names(claim, median)}"
        return NOT_REPRODUCED, f"{what} at any of {total} points"
    if quantifier != "all":
        raise ClaimError(f"quantifier must be 'all' or 'any', not {quantifier!r}")
    if len(worst) == total:
        return REPRODUCED, ""
    if len(median) == total:
        short = [x for x, w, _ in results_per_x if not w]
        return PARTLY, ("holds at the median but not at the worst repetition"
                        + (f" at {names(claim, short)}" if short != [None] else ""))
    failing = [x for x, _, m in results_per_x if not m]
    if median:
        return PARTLY, f"holds at {len(median)} of {total} points; not at {names(claim, failing)}"
    return NOT_REPRODUCED, (f"{what}" if total == 1 else f"{what} at any of {total} points")


def rule_bound(claim, results, module):
    """Rule 1: a value, or the ratio a / b, against bounds, at every point of the sweep."""
    s, a, b, missing = judged_series(claim, results, module)
    bounds = bounds_of(claim)
    if missing:
        return None, "", missing
    absent = sweep_findings(claim, results, module, s)
    # A point the claim covers without a verified measurement (failed, skipped, or not in the
    # results) does not hold: a sweep cannot pass by losing its bad points.
    per_x = [(x, *holds_interval(v.lo, v.hi, v.median, bounds)) if x not in absent else (x, False, False)
             for x, v in sorted(s.points.items(), key=lambda t: (t[0] is not None, t[0] or 0))]
    per_x += [(x, False, False) for x in absent if x not in s.points]
    undecided = {x for x, why in absent.items() if why != "failed"}
    verdict, reason = aggregate(claim, per_x, f"{judged(claim)} is not {bounds_text(bounds)}", undecided)
    reason = join(reason, above_text(claim, bounds, s.points))
    measured = f"{judged(claim)}: {describe(s, claim)}; claim {bounds_text(bounds)}"
    if b is not None and len(s.points) == 1:
        (x, _), = s.points.items()
        va, vb = a.points.get(x) or next(iter(a.points.values())), b.points.get(x) or next(iter(b.points.values()))
        measured += f" ({a.label} {fmt(va.median)}{' ' + a.unit if a.unit else ''}, {b.label} {fmt(vb.median)}" \
                    f"{' ' + b.unit if b.unit else ''})"
    return verdict, measured, reason


def rule_trend(claim, results, module):
    """Rule 1 for a trend: every step of the sweep rises (or falls)."""
    over = claim.get("over")
    if over not in ("n", "param"):
        raise ClaimError("a trend needs over = 'n' or 'param'")
    s, _, _, missing = judged_series(claim, results, module, minimum=2)
    if missing:
        return None, "", missing
    direction = claim.get("direction")
    if direction not in ("rising", "falling"):
        raise ClaimError("a trend needs direction = 'rising' or 'falling'")
    xs = sorted(s.points)
    steps = []
    for x0, x1 in zip(xs, xs[1:]):
        v0, v1 = s.points[x0], s.points[x1]
        if direction == "rising":
            steps.append((x1, v1.lo > v0.hi, v1.median > v0.median))
        else:
            steps.append((x1, v1.hi < v0.lo, v1.median < v0.median))
    verdict, reason = aggregate(dict(claim, quantifier="all"), steps, f"not {direction}")
    if reason.startswith("holds at") and " of " in reason.split(";")[0]:  # "holds at k of n points; not at x"
        reason = reason.replace("points", "steps").replace("not at", "not in the step to")
    return verdict, f"{judged(claim)}: {describe(s, claim)}", reason


def rule_spread(claim, results, module):
    """Rule 1 for 'insensitive to x': max / min over the sweep at most a bound."""
    s, _, _, missing = judged_series(claim, results, module, minimum=2)
    if missing:
        return None, "", missing
    vals = s.points.values()
    med = max(v.median for v in vals) / min(v.median for v in vals)
    worst = max(v.hi for v in vals) / min(v.lo for v in vals)
    limit = claim.get("at_most")
    if limit is None:
        raise ClaimError("a spread needs at_most")
    measured = f"max / min of {judged(claim)} over {len(s.points)} points = {fmt(med)} (worst {fmt(worst)}); claim <= {fmt(limit)}"
    if worst <= limit:
        return REPRODUCED, measured, ""
    if med <= limit:
        return PARTLY, measured, "holds at the median, not at the worst repetition"
    return NOT_REPRODUCED, measured, f"varies {fmt(med)}x"


def rule_best_at(claim, results, module):
    """Rule 1 for an optimum: the x of the best value lies in a range; statistical ties count."""
    s, _, _, missing = judged_series(claim, results, module, minimum=2)
    if missing:
        return None, "", missing
    best = claim.get("best", "max")
    lo_x, hi_x = claim["within"]
    inside = lambda x: lo_x <= x <= hi_x
    pick = max if best == "max" else min
    x_best = pick(s.points, key=lambda x: s.points[x].median)
    vb = s.points[x_best]
    ties = [x for x, v in s.points.items() if x != x_best and (v.hi >= vb.lo if best == "max" else v.lo <= vb.hi)]
    measured = (f"{best} of {judged(claim)} at {x_name(claim, x_best)} ({fmt(vb.median)})"
                + (f"; tied within the repetitions: {names(claim, ties)}" if ties else "")
                + f"; claim: at {x_name(claim, lo_x)}..{x_name(claim, hi_x)}")
    if inside(x_best) and all(inside(x) for x in ties):
        return REPRODUCED, measured, ""
    if inside(x_best):
        return PARTLY, measured, "a point outside the range is tied with the best"
    if any(inside(x) for x in ties):
        return PARTLY, measured, f"best at {x_name(claim, x_best)}, tied with a point in the range"
    return NOT_REPRODUCED, measured, f"best at {x_name(claim, x_best)}"


def rule_first_at(claim, results, module):
    """Rule 1 for a threshold along a sweep: the first x (ascending) at which the value meets
    `reaches` (a bound: at_least / at_most) lies within the claimed range of x."""
    s, _, _, missing = judged_series(claim, results, module)
    if missing:
        return None, "", missing
    reaches = claim.get("reaches")
    if not isinstance(reaches, dict):
        raise ClaimError("first_at needs reaches = { at_least = ... } or { at_most = ... }")
    xs = sorted(s.points)
    first_med = next((x for x in xs if holds_interval(s.points[x].lo, s.points[x].hi, s.points[x].median, reaches)[1]), None)
    first_worst = next((x for x in xs if holds_interval(s.points[x].lo, s.points[x].hi, s.points[x].median, reaches)[0]), None)
    lo_x, hi_x = claim["within"]
    inside = lambda x: x is not None and lo_x <= x <= hi_x
    edge = " (the smallest tried)" if first_med == xs[0] else ""
    measured = (f"{judged(claim)} first {bounds_text(reaches)} at "
                + (f"{x_name(claim, first_med)}{edge}" if first_med is not None else f"none up to {x_name(claim, xs[-1])}")
                + (f" ({fmt(s.points[first_med].median)})" if first_med is not None else "")
                + f"; claim: at {x_name(claim, lo_x)}..{x_name(claim, hi_x)}")
    if inside(first_worst) and first_worst == first_med:
        return REPRODUCED, measured, ""
    if inside(first_med):
        return PARTLY, measured, "at the median; at the worst repetition " + (
            f"from {x_name(claim, first_worst)}" if first_worst is not None else "nowhere")
    if first_med is None:
        return NOT_REPRODUCED, measured, f"never {bounds_text(reaches)} in the sweep"
    return NOT_REPRODUCED, measured, f"first at {x_name(claim, first_med)}"


def _fit(xs, ys, degree):
    """The polynomial of `degree` (0, 1 or 2) that fits (xs, ys) with the least squared relative
    residual (weights 1 / y^2), as a function of x. xs are rescaled to [0, 1] for the solve."""
    x0, span = min(xs), (max(xs) - min(xs)) or 1.0
    ts = [(x - x0) / span for x in xs]
    k = degree + 1
    m = [[0.0] * (k + 1) for _ in range(k)]
    for t, y in zip(ts, ys):
        w = 1.0 / (y * y) if y else 1.0
        powers = [t ** i for i in range(k)]
        for i in range(k):
            for j in range(k):
                m[i][j] += w * powers[i] * powers[j]
            m[i][k] += w * powers[i] * y
    for col in range(k):  # Gaussian elimination with partial pivoting
        piv = max(range(col, k), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        if abs(m[col][col]) < 1e-300:
            raise ClaimError("linear: the points do not determine a fit (repeated x?)")
        for r in range(k):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [a - f * b for a, b in zip(m[r], m[col])]
    coef = [m[i][k] / m[i][i] for i in range(k)]
    return lambda x: sum(c * ((x - x0) / span) ** i for i, c in enumerate(coef))


def _relative_miss(value, fitted):
    """How far a value lies from a fitted value, relative to it (inf where the fit is not positive)."""
    return abs(value - fitted) / fitted if fitted > 0 else math.inf


def rule_linear(claim, results, module):
    """Rule 1 for 'grows linearly in x', against its two alternatives: a flat series and one that
    grows faster (a quadratic). With tol = `at_most`: the least-squares line (relative residuals)
    must pass within tol of every point; a flat line must not (max / min above (1 + tol) / (1 - tol),
    the largest spread a constant can cover within tol); and the best quadratic must not bend away
    from the line by more than tol at any point. At the worst repetition each point's range is used:
    its farthest end from the line, and the flattest choice the ranges allow."""
    over = claim.get("over")
    s, _, _, missing = judged_series(claim, results, module, minimum=3)
    if missing:
        return None, "", missing
    tol = claim.get("at_most")
    if tol is None or not 0 < tol < 1:
        raise ClaimError("linear needs at_most = the relative tolerance, between 0 and 1")
    direction = claim.get("direction", "rising")
    if direction not in ("rising", "falling"):
        raise ClaimError("linear takes direction = 'rising' (the default) or 'falling'")
    xs = sorted(s.points)
    vs = [s.points[x] for x in xs]
    ys = [v.median for v in vs]
    line = _fit(xs, ys, 1)
    quad = _fit(xs, ys, 2)
    off_med = {x: _relative_miss(v.median, line(x)) for x, v in zip(xs, vs)}
    off_worst = {x: max(_relative_miss(v.lo, line(x)), _relative_miss(v.hi, line(x))) for x, v in zip(xs, vs)}
    bend = max(_relative_miss(quad(x), line(x)) for x in xs)
    flat_limit = (1 + tol) / (1 - tol)
    flat_med = max(ys) / min(ys) if min(ys) > 0 else math.inf
    flat_worst = max(v.lo for v in vs) / min(v.hi for v in vs) if min(v.hi for v in vs) > 0 else math.inf
    rises = line(xs[-1]) > line(xs[0])
    sense = rises if direction == "rising" else not rises
    measured = (f"{judged(claim)} over {x_name(claim, xs[0], s.axis)}..{x_name(claim, xs[-1], s.axis)} ({len(xs)} points): "
                f"the line misses by at most {max(off_med.values()):.1%} (worst repetition {max(off_worst.values()):.1%}); "
                f"max / min = {fmt(flat_med)} (a flat line covers up to {fmt(flat_limit)}); a quadratic bends "
                f"{bend:.1%} from the line; claim: within {tol:.0%} of a {direction} line")
    problems = []
    if flat_med <= flat_limit:
        problems.append(f"a flat line fits as well (max / min {fmt(flat_med)})")
    elif not sense:
        problems.append(f"the line {'falls' if direction == 'rising' else 'rises'}")
    far = [x for x in xs if off_med[x] > tol]
    if far:
        problems.append(f"off the line by more than {tol:.0%} at {names(claim, far)}")
    if bend > tol:
        problems.append(f"bends: a quadratic departs from the line by {bend:.0%}")
    if problems:
        return NOT_REPRODUCED, measured, "; ".join(problems)
    worst_problems = []
    if flat_worst <= flat_limit:
        worst_problems.append(f"the repetitions allow a flat series (max / min {fmt(flat_worst)})")
    far = [x for x in xs if off_worst[x] > tol]
    if far:
        worst_problems.append(f"off the line at {names(claim, far)}")
    if worst_problems:
        return PARTLY, measured, "holds at the median, not at the worst repetition: " + "; ".join(worst_problems)
    return REPRODUCED, measured, ""


# Rule 3: proportions. The exact (Clopper-Pearson) interval of k events in n trials.

def _binom_cdf(k, n, p):
    if k < 0:
        return 0.0
    if p <= 0:
        return 1.0
    if p >= 1:
        return 1.0 if k >= n else 0.0
    lp, lq = math.log(p), math.log1p(-p)
    total = 0.0
    for i in range(0, k + 1):
        total += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq)
    return min(total, 1.0)


def _solve(f, target, lo=0.0, hi=1.0):
    """p in [lo, hi] with f(p) = target, f decreasing in p (bisection)."""
    for _ in range(100):
        mid = (lo + hi) / 2
        if f(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def clopper_pearson(k, n, confidence=CONFIDENCE):
    """The exact two-sided interval of a proportion from k events in n trials."""
    alpha = 1 - confidence
    lower = 0.0 if k == 0 else _solve(lambda p: _binom_cdf(k - 1, n, p), 1 - alpha / 2)
    upper = 1.0 if k == n else _solve(lambda p: _binom_cdf(k, n, p), alpha / 2)
    return lower, upper


def trials_to_decide(k, n, band):
    """The number of trials (at the same observed fraction) at which the interval would decide."""
    frac = k / n
    m = n
    for _ in range(24):
        m *= 2
        lo, hi = clopper_pearson(round(frac * m), m)
        if (band[0] <= lo and hi <= band[1]) or hi < band[0] or lo > band[1]:
            return m
    return None


def proportion_band(claim):
    """The claimed range of a rate: `within`, the paper's stated rate within a factor of 2
    (`value`), or the paper's own observation of k events in n trials (`observed = [k, n]`): the
    95% interval that observation admits."""
    given = [k for k in ("within", "value", "observed") if k in claim]
    if len(given) != 1:
        raise ClaimError("a proportion needs one of value (the paper's rate), within = [lo, hi] or "
                         "observed = [k, n] (the paper's own count)")
    if "within" in claim:
        return tuple(claim["within"])
    if "value" in claim:
        return claim["value"] / PROPORTION_FACTOR, min(1.0, claim["value"] * PROPORTION_FACTOR)
    k, n = claim["observed"]
    if not (isinstance(k, int) and isinstance(n, int) and 0 <= k <= n and n > 0):
        raise ClaimError("observed = [k, n] needs whole numbers 0 <= k <= n, n > 0")
    return clopper_pearson(k, n)


def _pct(p):
    return f"{p:.2%}" if p == 0 or p >= 1e-3 else f"{p:.2e}"


def _proportion_at(claim, band, e, t):
    """One point of a proportion claim: (outcome 'in' | 'out' | 'undecided', text, trials to decide)."""
    n = int(round(t.median))
    k = int(round(e.median * (n if claim["events"].get("fraction") else 1)))  # fraction: events / trials
    lo, hi = clopper_pearson(k, n)
    text = f"{k:,} of {n:,} ({_pct(k / n)}); 95% interval [{_pct(lo)}, {_pct(hi)}]"
    if "observed" in claim and k:
        ok, on = claim["observed"]
        rate = k / n
        # How likely the paper's own count is at our rate: its observation, seen from ours.
        p_obs = _binom_cdf(ok, on, rate) if ok / on <= rate else 1 - _binom_cdf(ok - 1, on, rate)
        text += (f"; at this rate {ok} {'or fewer' if ok / on <= rate else 'or more'} in {on} trials "
                 f"has probability {_pct(p_obs)}")
    if band[0] <= lo and hi <= band[1]:
        return "in", text, None
    if hi < band[0] or lo > band[1]:
        return "out", text, None
    return "undecided", text, trials_to_decide(k, n, band)


def rule_proportion(claim, results, module):
    """Rule 3: k events in n trials against the claimed proportion, with a 95% exact interval; at
    one point, or at every point of a sweep (`over`)."""
    over = claim.get("over")
    ev = quantity(results, claim["events"], module, over)
    tr = quantity(results, claim["trials"], module, over)
    if not ev.points or not tr.points:
        return None, "", ev.missing or tr.missing
    band = proportion_band(claim)
    source = (f"the paper's {claim['observed'][0]} of {claim['observed'][1]} admits" if "observed" in claim
              else "claim in")
    claimed = f"{source} [{_pct(band[0])}, {_pct(band[1])}]"
    xs = sorted(set(ev.points) & set(tr.points), key=lambda x: (x is not None, x or 0))
    if not xs:
        return None, "", "the events and the trials share no point"
    outcomes = {x: _proportion_at(claim, band, ev.points[x], tr.points[x]) for x in xs}
    if xs == [None]:
        outcome, text, need = outcomes[None]
        measured = f"{text}; {claimed}"
        if outcome == "in":
            return REPRODUCED, measured, ""
        if outcome == "out":
            return NOT_REPRODUCED, measured, "the interval excludes the claimed range"
        return NOT_MEASURED, measured, ("undecided: the interval overlaps the claimed range without lying in it"
                                        + (f"; about {need:,} trials at this rate would decide" if need else ""))
    measured = "; ".join(f"{x_name(claim, x)}: {outcomes[x][1]}" for x in xs) + f"; {claimed}"
    by = {o: [x for x in xs if outcomes[x][0] == o] for o in ("in", "out", "undecided")}
    if len(by["in"]) == len(xs):
        return REPRODUCED, measured, ""
    if len(by["out"]) == len(xs):
        return NOT_REPRODUCED, measured, "the interval excludes the claimed range at every point"
    if by["out"]:
        return PARTLY, measured, f"the interval excludes the claimed range at {names(claim, by['out'])}"
    if by["in"]:
        return PARTLY, measured, f"undecided at {names(claim, by['undecided'])} (the interval overlaps the range)"
    return NOT_MEASURED, measured, "undecided at every point: the intervals overlap the claimed range"


def rule_absolute(claim, results, module):
    """Rule 2: a paper's absolute figure from its GPU is information, scaled by the two GPUs'
    DRAM bandwidths; the verdict belongs to the paper's ratios to its own baselines."""
    paper = claim.get("figure")
    if not isinstance(paper, dict) or "value" not in paper or paper.get("kind") not in ("time", "rate"):
        raise ClaimError("an absolute claim needs figure = { value = ..., kind = 'time' | 'rate', gpu = ... }")
    a = quantity(results, claim["a"], module, None)
    if not a.points:
        return None, "", a.missing
    v = next(iter(a.points.values()))
    device = results.device()
    ours_bw = GPU_BANDWIDTH_GBPS.get(device)
    theirs_bw = GPU_BANDWIDTH_GBPS.get(paper.get("gpu", ""))
    text = f"{a.label}: {fmt(v.median)} {a.unit} on this GPU ({device})"
    if ours_bw and theirs_bw:
        scale = ours_bw / theirs_bw
        expected = paper["value"] * (scale if paper["kind"] == "rate" else 1 / scale)
        ratio = (v.median / expected) if paper["kind"] == "rate" else (expected / v.median)
        text += (f"; the paper's {fmt(paper['value'])} {paper.get('unit', '')} on a {paper['gpu']} scaled by DRAM "
                 f"bandwidth ({fmt(theirs_bw)} -> {fmt(ours_bw)} GB/s): {fmt(expected)} {paper.get('unit', '')}; "
                 f"ours is {fmt(ratio)}x that")
    elif not paper.get("gpu"):
        text += "; no bandwidth normalisation: the paper does not name the GPU of this figure"
    else:
        unknown = paper["gpu"] if not theirs_bw else device
        text += f"; no bandwidth normalisation: {unknown} has no bandwidth in the rule book"
    return MEASURED, text, ABSOLUTE_REASON


ABSOLUTE_REASON = "absolute figure from another GPU: information (rule 2)"


def rule_measured(claim, results, module):
    """Our own question: the numbers, and the bar it is held to where it has one."""
    s, _, _, missing = judged_series(claim, results, module)
    if missing:
        return None, "", missing
    text = f"{judged(claim)}: {describe(s, claim)}"
    bounds = {k: claim[k] for k in ("at_least", "at_most", "within") if k in claim}
    if not bounds:
        return MEASURED, text, ""
    per_x = [(x, *holds_interval(v.lo, v.hi, v.median, bounds)) for x, v in s.points.items()]
    ok_worst = all(w for _, w, _ in per_x)
    ok_med = all(m for _, _, m in per_x)
    bar = bounds_text(bounds)
    return MEASURED, text, (f"meets the bar ({bar})" if ok_worst else
                            f"meets the bar ({bar}) at the median only" if ok_med else f"misses the bar ({bar})")


def rule_winner(claim, results, module):
    """Our own question 'which is fastest': the best of several candidates at one point, or at
    every point of a sweep (`over`)."""
    cands = claim.get("candidates")
    if not cands:
        raise ClaimError("a winner question needs candidates = [{...}, ...]")
    best = claim.get("best", "max")
    over = claim.get("over")
    asked = [(c.get("label") or c.get("variant"), quantity(results, c, module, over)) for c in cands]
    series = [(name, s) for name, s in asked if s.points]
    norm = None
    if "fraction_of" in claim:
        limit = quantity(results, claim["fraction_of"], module, None)
        norm = next(iter(limit.points.values())).median if limit.points else None
    unit = next((s.unit for _, s in series if s.unit), "")
    xs = sorted({x for _, s in series for x in s.points}, key=lambda x: (x is not None, x or 0))
    texts, answers, wins = [], [], {}
    for x in xs:
        vals = [(name, s.points[x]) for name, s in series if x in s.points]
        if len(vals) < 2:
            continue
        vals.sort(key=lambda t: t[1].median, reverse=(best == "max"))
        (w, vw), (second, vs) = vals[0], vals[1]
        tied = (vs.hi >= vw.lo) if best == "max" else (vs.lo <= vw.hi)
        ratio = vw.median / vs.median if best == "max" else vs.median / vw.median
        wins[w] = wins.get(w, 0) + 1
        at = f"{x_name(claim, x)}: " if x is not None else ""
        texts.append(at + ", ".join(f"{name} {fmt(v.median)}" + (f" ({v.median / norm:.0%})" if norm else "")
                                    for name, v in vals))
        answers.append(f"{at}{w}, {fmt(ratio)}x over {second}" + (" (tied within the repetitions)" if tied else ""))
    if not answers:
        # No candidate's results at all: say which file is missing, as every other rule does.
        missing = next((s.missing for _, s in asked if s.missing), "") if not series else ""
        return None, "", missing or "fewer than two candidates measured at any point"
    lost = [f"{name} at {names(claim, s.unverified)} ({', '.join(sorted(set(s.unverified.values())))})"
            for name, s in asked if s.unverified]
    if lost:
        answers.append("no verified point of " + "; ".join(lost))
    suffix = (f" of {claim['fraction_of'].get('label', 'the limit')}" if norm else f" {unit}" if unit else "")
    return MEASURED, "; ".join(texts) + suffix, "; ".join(answers), tuple(sorted(wins))


def rule_verified(claim, results, module):
    """Rule 7: verification as a claim: "correct results for every test case". Every point the
    claim covers (the rows `a` selects, the planned ones that failed or were skipped, `expect_x`) is
    verified against the CPU reference: a failed point refutes the claim there; a skipped or absent
    one leaves it undecided there."""
    a = quantity(results, claim["a"], module, claim.get("over"))
    found = sweep_findings(claim, results, module, a)
    failed = sorted((x for x, why in found.items() if why == "failed"), key=lambda x: (x is not None, x or 0))
    other = {x: why for x, why in found.items() if why != "failed"}
    good = [x for x in a.points if x not in found]
    if not good and not failed:
        return None, "", a.missing or findings_text(claim, other)
    measured = (f"{a.label}: verified against the CPU reference at {names(claim, good)}"
                + (f"; verification FAILED at {names(claim, failed)}" if failed else ""))
    if failed and not good:
        return NOT_REPRODUCED, measured, "verification failed at every point"
    if failed:
        return PARTLY, measured, join(f"verification failed at {names(claim, failed)}", findings_text(claim, other))
    if other:
        return PARTLY, measured, findings_text(claim, other)
    return REPRODUCED, measured, ""


def rule_not_measured(claim, results, module):
    reason = claim.get("reason", "").strip()
    if not reason:
        raise ClaimError("a not_measured claim needs a reason that says why it cannot be measured here")
    return NOT_MEASURED, "-", reason


RULES = {
    "bound": rule_bound,
    "trend": rule_trend,
    "spread": rule_spread,
    "best_at": rule_best_at,
    "linear": rule_linear,
    "first_at": rule_first_at,
    "verified": rule_verified,
    "proportion": rule_proportion,
    "absolute": rule_absolute,
    "measured": rule_measured,
    "winner": rule_winner,
    "not_measured": rule_not_measured,
}
SWEEP_RULES = ("bound", "trend", "spread", "best_at", "linear", "first_at", "verified")
INFORMATION_RULES = ("measured", "winner")  # a paper's claim under these needs `information` (why)

CLAIM_KEYS = {"id", "where", "claim", "paper", "hardware", "rule", "note", "over", "x_label", "quantifier", "a",
              "b", "at_least", "at_most", "within", "about", "reaches", "direction", "expect_x", "best", "events",
              "trials", "value", "observed", "figure", "candidates", "fraction_of", "reason", "headline", "ours",
              "information", "beside", "system", "stand_in", "differs"}
REQUIRED = ("id", "where", "claim", "rule")
PROFILES = {"quick", "full"}  # hashlab run --quick | --full: the `profile` of each experiment's JSON sidecar


# --------------------------------------------------------------------------------------------

@dataclass
class Verdict:
    module: str
    id: str
    where: str
    claim: str
    paper: str
    verdict: str
    measured: str
    reason: str
    rule: str
    note: str = ""
    ours: bool = False       # our own question or bar, not the paper's claim
    headline: bool = False
    sampled: bool = False
    beside: list = field(default_factory=list)
    hardware: bool = False  # about the GPU itself (about_hardware): the report shows it on every GPU
    answer: tuple = ()      # a winner question's answer: the candidates that won at some point
    information: str = ""   # why a paper's claim is read as information (rule 2, or the claim file's word)

    @property
    def judged(self):
        """A paper's claim that received a verdict (not `not measured`, not information)."""
        return not self.ours and self.verdict in (REPRODUCED, PARTLY, NOT_REPRODUCED)


def differs(a, b):
    """Whether two runs' verdicts on one claim differ: another verdict, or another winner."""
    return a.verdict != b.verdict or a.answer != b.answer


def tables(spec):
    """Every table a claim holds, nested ones included (its quantities, ratio, sum, beside)."""
    if isinstance(spec, dict):
        yield spec
    if isinstance(spec, (dict, list)):
        for value in spec.values() if isinstance(spec, dict) else spec:
            yield from tables(value)


def about_hardware(claim):
    """Whether a claim is about the GPU rather than the algorithm: it reads a measured limit of
    device.json (`limit`), or it is a paper's absolute figure from its own GPU (rule 2); the
    claim file's `hardware = true | false` overrides both."""
    if "hardware" in claim:
        return bool(claim["hardware"])
    return claim["rule"] == "absolute" or any("limit" in t for t in tables(claim))


def check_claim(c, where):
    """The fields every claim needs, and the rules' own requirements that need no results."""
    for key in REQUIRED:
        if key not in c:
            raise ClaimError(f"{where}: missing '{key}'")
    unknown = set(c) - CLAIM_KEYS
    if unknown:
        raise ClaimError(f"{where}: unknown field(s) {sorted(unknown)}")
    if c["rule"] not in RULES:
        raise ClaimError(f"{where}: unknown rule '{c['rule']}'; rules: {', '.join(RULES)}")
    if c["rule"] == "not_measured" and not c.get("reason", "").strip():
        raise ClaimError(f"{where}: not_measured needs a reason")
    if isinstance(c.get("expect_x"), dict) and not set(c["expect_x"]) <= PROFILES:
        raise ClaimError(f"{where}: expect_x names profile(s) {sorted(set(c['expect_x']) - PROFILES)}; "
                         f"profiles: {', '.join(sorted(PROFILES))}")
    # Information: our own questions carry `ours`; a paper's claim read as information says why.
    if c["rule"] in INFORMATION_RULES and not c.get("ours") and not str(c.get("information", "")).strip():
        raise ClaimError(f"{where}: a '{c['rule']}' row is information: mark it ours = true (our question or bar) "
                         "or, for a paper's claim, say why it is not judged (information = '...')")
    if c.get("ours") and (c["rule"] == "absolute" or "information" in c):
        raise ClaimError(f"{where}: ours = true is for our own questions, not a paper's figure")
    # Rule 6: a claim about another system is judged through our build of its algorithm, said so.
    if "system" in c and c["rule"] != "not_measured":
        for key in ("stand_in", "differs"):
            if not str(c.get(key, "")).strip():
                raise ClaimError(f"{where}: a claim about {c['system']} judged here names {key} (rule 6)")
    if ("stand_in" in c or "differs" in c) and "system" not in c:
        raise ClaimError(f"{where}: stand_in and differs belong to a claim about another system (system = ...)")


def load_claims(path):
    """The claims of one file, checked for the fields every claim needs."""
    with open(path, "rb") as f:
        try:
            data = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ClaimError(f"{path}: {e}") from None
    claims = data.get("claim", [])
    seen = set()
    for c in claims:
        where = f"{os.path.relpath(path, ROOT)}, claim {c.get('id', '?')}"
        check_claim(c, where)
        if c["id"] in seen:
            raise ClaimError(f"{where}: the id is used twice")
        seen.add(c["id"])
    return data, claims


def join(*parts):
    return "; ".join(p for p in parts if p)


def _judged_quantities(claim):
    """The quantities a claim's verdict is decided on (not `beside`)."""
    return [claim[k] for k in ("a", "b", "events", "trials") if k in claim] + list(claim.get("candidates", []))


def sweep_findings(claim, results, module, series):
    """{x: why} for every point a sweep claim covers without a verified measurement: the expected
    points (`expect_x`) the judged series lacks, and the points the run planned for its quantities
    that failed or were skipped (the CSVs list them), whether or not the claim lists its points."""
    found = {x: "not in the results" for x in expected_but_absent(claim, results, module, series.points)}
    for x, why in series.unverified.items():
        found[x] = why
    return found


def findings_text(claim, found):
    if not found:
        return ""
    by = {}
    for x, why in found.items():
        by.setdefault(why, []).append(x)
    return "no verified point at " + "; ".join(f"{names(claim, xs)} ({why})" for why, xs in sorted(by.items()))


def picks_text(claim, results, module):
    """Rule 5: the variant a pick chose at each point, and those tied with it."""
    out = []
    for key in ("a", "b"):
        spec = claim.get(key)
        if not spec:
            continue
        for t in tables(spec):
            if "pick" not in t:
                continue
            s = quantity(results, t, module, claim.get("over"))
            if not s.picks:
                continue
            by = {}
            for x, (chosen, tied) in s.picks.items():
                by.setdefault((chosen, tuple(tied)), []).append(x)
            items = []
            for (chosen, tied), xs in sorted(by.items(), key=lambda t: min((x or 0) for x in t[1])):
                at = f" at {names(claim, xs)}" if xs != [None] else ""
                items.append(chosen + at + (f" (tied with {', '.join(tied)})" if tied else ""))
            out.append(f"{t.get('label') or t.get('metric')}: {'; '.join(items)}")
    return ("chosen by the median (rule 5): " + " | ".join(out)) if out else ""


def evaluate_claim(claim, results, module):
    """One claim's Verdict; a claim whose data are missing is 'not measured' with the reason."""
    try:
        verdict, measured, reason, *answer = RULES[claim["rule"]](claim, results, module)
        extra = []
        sampled = False
        if verdict is None:
            verdict, measured, reason = NOT_MEASURED, "-", reason or "no data"
        else:
            if "sampled" not in reason:
                sampled = _uses_sampled(claim, results, module)
            if claim["rule"] in SWEEP_RULES and claim["rule"] not in ("bound", "verified") and "a" in claim:
                s = judged_series(claim, results, module)[0]
                found = sweep_findings(claim, results, module, s)  # bound counts them point by point
                if found:
                    extra.append(findings_text(claim, found))
                    if verdict == REPRODUCED:
                        verdict = PARTLY
            elif claim["rule"] == "bound":
                extra.append(findings_text(claim, sweep_findings(claim, results, module,
                                                                 judged_series(claim, results, module)[0])))
            qs = [quantity(results, q, module, claim.get("over")) for q in _judged_quantities(claim)]
            configuration = sorted({c for q in qs for c in q.configuration})
            if configuration and claim["rule"] not in INFORMATION_RULES + ("absolute",):
                raise ClaimError(f"{', '.join(configuration)} is computed from the run's configuration, not measured: "
                                 "it cannot decide a claim (docs/verdicts.md, 'Derived quantities')")
            incomplete = sorted({i for q in qs for i in q.incomplete})
            if incomplete:
                extra += incomplete
                if verdict == REPRODUCED:
                    verdict = PARTLY
            unrecorded = sorted({u for q in qs for u in q.unrecorded})
            if unrecorded and verdict not in (MEASURED, NOT_MEASURED):
                extra.append(f"the repetitions' spread of {', '.join(unrecorded)} is not recorded (a median of "
                             "medians): judged at the median only")
                if verdict == REPRODUCED:
                    verdict = PARTLY
            if claim["rule"] in SWEEP_RULES:
                picks = picks_text(claim, results, module)
                if picks:
                    measured = f"{measured}; {picks}"
        if "system" in claim and claim["rule"] != "not_measured":
            extra.insert(0, f"through {claim['stand_in']}, not {claim['system']}: {claim['differs']}")
            reason = join(extra[0], reason, *extra[1:])
        else:
            reason = join(reason, *extra)
    except ClaimError as e:
        raise ClaimError(f"{module} claim {claim['id']}: {e}") from None
    beside = []
    for spec in claim.get("beside", []):
        s = quantity(results, spec, module, claim.get("over"))
        beside.append(f"{s.label}: {describe(s, claim)}" if s.points else f"{s.label}: {s.missing}")
    information = ""
    if not claim.get("ours") and verdict == MEASURED:
        information = ABSOLUTE_REASON if claim["rule"] == "absolute" else str(claim.get("information", "")).strip()
        if information not in reason:
            reason = join(f"the paper's claim, read as information: {information}", reason)
    return Verdict(module, claim["id"], claim["where"], claim["claim"], claim.get("paper", ""), verdict, measured,
                   reason, claim["rule"], claim.get("note", ""), bool(claim.get("ours")),
                   bool(claim.get("headline")), sampled, beside, about_hardware(claim), answer[0] if answer else (),
                   information)


def expected_but_absent(claim, results, module, have):
    """The points `expect_x` says the claim covers (as numbers) that `have` (x values) lacks.
    `expect_x` is a list, or a table by profile: then the list of the profile that the run of the
    claim's `a` experiment used."""
    expected = claim.get("expect_x", [])
    if isinstance(expected, dict):
        a = claim.get("a", {})
        expected = expected.get(results.profile(a.get("module", module), a.get("experiment", "")), [])
    expected = [parse_size(x) if claim.get("over") == "n" else x if isinstance(x, str) else float(x) for x in expected]
    return [x for x in expected if not any(p is not None and same_param(p, x) for p in have)]


def _uses_sampled(claim, results, module):
    for key in ("a", "b", "events", "trials"):
        if key in claim:
            if quantity(results, claim[key], module, claim.get("over")).sampled:
                return True
    return False


def evaluate(results_dir, modules=None):
    """Every claim of the named modules (all by default) against one results folder."""
    results = Results(results_dir)
    out = []
    for module in modules or MODULES:
        path = claims_path(module)
        if not os.path.exists(path):
            continue
        _, claims = load_claims(path)
        out += [evaluate_claim(c, results, module) for c in claims]
    return out


def check_files():
    """Parses every claim file and checks each claim's fields (no results needed)."""
    count = 0
    for module in MODULES:
        path = claims_path(module)
        if os.path.exists(path):
            count += len(load_claims(path)[1])
    return count


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default="results")
    parser.add_argument("--paper", default="all")
    parser.add_argument("--check", action="store_true", help="only parse and check the claim files")
    args = parser.parse_args(argv)
    try:
        if args.check:
            print(f"verdicts: {check_files()} claims, every file parses")
            return 0
        if args.paper != "all" and args.paper not in MODULES:
            print(f"verdicts: unknown --paper {args.paper!r}; one of: {', '.join(MODULES)}", file=sys.stderr)
            return 2
        if not os.path.isdir(args.results):
            print(f"verdicts: no results folder {args.results!r}", file=sys.stderr)
            return 2
        for v in evaluate(args.results, None if args.paper == "all" else [args.paper]):
            reason = f" ({v.reason})" if v.reason else ""
            print(f"{v.module}/{v.id}: {v.verdict}{reason}\n    {v.claim}\n    measured: {v.measured}")
    except ClaimError as e:
        print(f"verdicts: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
