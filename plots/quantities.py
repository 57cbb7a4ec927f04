"""The quantity language of the claim files: which CSV rows a quantity of a claim (`a`, `b`,
`events`, `trials`, `candidates`, `beside`) selects, and the Series of values (median, minimum and
maximum of the repetitions) it stands for. The rules of docs/verdicts.md, applied in verdicts.py,
judge these Series; this module decides no verdict.

A quantity names `experiment` and `metric`, and as many of `variant`, `n`, `param`, `param_per_n`,
`param_name` as it takes to select one row per point; `x`, `x_in`, `x_in_per_n` choose and limit the
sweep; `ratio` and `sum` combine quantities; `limit` reads a hardware limit of device.json
(docs/verdicts.md, "The claim file")."""
import csv
import fnmatch
import glob
import json
import math
import os
import re
from dataclasses import dataclass, field

import result_files

class ClaimError(ValueError):
    """A claim file that cannot be evaluated as written: a typo, an unknown rule, a missing field."""


# --------------------------------------------------------------------------------------------
# Results: the CSV rows a quantity is taken from.

SIZE_SUFFIX = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}


def parse_size(text):
    """'32Mi' -> 33554432, '10M' -> 10000000, 5 -> 5 (as the hashlab CLI reads sizes)."""
    if isinstance(text, (int, float)):
        return float(text)
    m = re.fullmatch(r"\s*([0-9.]+)\s*(Ki|Mi|Gi|K|M|G|)\s*", str(text))
    if not m:
        raise ClaimError(f"not a size: {text!r} (write e.g. 32Mi or 10M)")
    return float(m.group(1)) * SIZE_SUFFIX[m.group(2)]


def format_size(n):
    n = int(n)
    for suffix, unit in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if n >= unit and n % unit == 0:
            return f"{n // unit}{suffix}"
    for suffix, unit in (("G", 10 ** 9), ("M", 10 ** 6), ("K", 10 ** 3)):
        if n >= unit and n % unit == 0:
            return f"{n // unit}{suffix}"
    return f"{n:,}"


def same_param(value, wanted):
    """Whether a row's parameter is the one wanted: a name exactly, a number within the CSV's
    six significant digits."""
    if isinstance(value, str) or isinstance(wanted, str):
        return value == wanted
    return math.isclose(value, wanted, rel_tol=1e-5, abs_tol=1e-12)


def format_param(x):
    """A swept parameter for a label: 0.5, 16, 1K, 8.39M, or a named axis' value as it is."""
    if isinstance(x, str):
        return x
    if x >= 1e6:
        return f"{x / 1e6:.3g}M"
    if x >= 1e4:
        return f"{x / 1e3:.3g}K"
    return f"{x:g}"


def fmt(x):
    """A number for a table cell: three significant digits, no exponent for ordinary values."""
    if x is None:
        return "-"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 0.01:
        return f"{x:.3g}"
    return f"{x:.2e}"


class Results:
    """The result CSVs and device limits of one results folder, loaded once."""

    def __init__(self, folder):
        self.folder = folder
        self._csv = {}
        self._sidecar = {}
        self._points = {}
        self._limits = None
        self.quantities = {}  # quantity(): each quantity's Series, computed once

    def rows(self, module, experiment):
        key = (module, experiment)
        if key not in self._csv:
            self._csv[key] = result_files.rows(self.folder, module, experiment)
        return self._csv[key]

    def sidecar(self, module, experiment):
        """An experiment's JSON sidecar (its run's profile, planned points, ...), or {}."""
        key = (module, experiment)
        if key not in self._sidecar:
            self._sidecar[key] = result_files.sidecar(self.folder, module, experiment)
        return self._sidecar[key]

    def profile(self, module, experiment):
        """The profile ('quick', 'full') an experiment's results were run with (its JSON sidecar), or None."""
        return self.sidecar(module, experiment).get("profile")

    def point_rows(self, module, experiment):
        """{(variant, n, param_name, param_value): {metric: row}} of one experiment's CSV."""
        key = (module, experiment)
        if key not in self._points:
            index = {}
            for r in self.rows(module, experiment) or []:
                index.setdefault(_point(r), {})[r["metric"]] = r
            self._points[key] = index
        return self._points[key]

    def incomplete(self, module, experiment):
        """What an experiment's CSV lacks of its run's plan: the sidecar's `points` (every point the run
        planned, each written to the CSV whatever its outcome) against the points the CSV holds."""
        planned = self.sidecar(module, experiment).get("points")
        held = len(self.point_rows(module, experiment))
        if isinstance(planned, int) and held < planned:
            return [f"{module}/{experiment}.csv holds {held} of the {planned} points its run planned"]
        return []

    def limits(self):
        if self._limits is None:
            self._limits = result_files.limits(self.folder)
        return self._limits

    def device(self):
        name = self.limits().get("device")
        if name:
            return name
        for path in sorted(glob.glob(os.path.join(self.folder, "*", "*.csv"))):
            with open(path, newline="") as f:
                for row in csv.DictReader(f):
                    if row.get("device"):
                        return row["device"]
        return "unknown device"


@dataclass
class Value:
    """One measured point: the median and the extremes of its repetitions. `spread` is False where
    the CSV does not hold the repetitions' extremes (a median of medians: DERIVED's "unrecorded"),
    so that the worst repetition cannot be judged; `chosen` names the variant a pick chose."""
    median: float
    lo: float
    hi: float
    sampled: bool = False
    spread: bool = True
    chosen: str = ""
    counted: str = ""  # count_metrics: the metrics counted


@dataclass
class Series:
    """A quantity's values by x (x is None for a single point), its unit and its label."""
    points: dict
    unit: str = ""
    label: str = ""
    sampled: bool = False
    missing: str = ""  # why there are no points, when there are none
    axis: str = ""     # 'n' or 'param': what x is
    x_label: str = ""  # how x is named ('load', 'groups'), when the quantity says
    # The points the run planned for this selection that hold no verified measurement: x -> why
    # ("failed", "skipped", or "skipped: <the run's reason>"). A rule counts each as a point where
    # the claim does not hold.
    unverified: dict = field(default_factory=dict)
    # What the CSVs themselves say is incomplete (a sidecar planning more points than its CSV holds).
    incomplete: list = field(default_factory=list)
    # The variant a pick chose at each x, with the candidates tied with it within the repetitions.
    picks: dict = field(default_factory=dict)
    spread: bool = True  # False when a point's repetitions' extremes are not recorded
    unrecorded: list = field(default_factory=list)  # the metrics whose spread is not recorded
    configuration: list = field(default_factory=list)  # metrics computed from the run's settings


QUANTITY_KEYS = {"experiment", "module", "variant", "metric", "n", "param", "param_per_n", "param_name", "x", "x_in",
                 "x_in_per_n", "pick", "scale", "times_x", "label", "limit", "unit", "ratio", "sum", "fraction", "x_label",
                 "count_metrics"}

# Metrics an experiment computes from other rows of the same point and stores with min = max =
# median. Each is recomputed here from the rows it comes from, so that it carries their spread and
# rule 1's worst repetition applies to it (docs/verdicts.md, "Derived quantities"). Kinds:
#   sum           the sum of the point's metrics matching `of` (a regular expression): lo = the sum
#                 of their minima, hi = the sum of their maxima
#   inverse       proportional to 1 / the point's metric `of` (a rate or a share of one timing)
#   unrecorded    a median of medians whose repetitions' extremes the CSV does not hold: judged at
#                 the median only (at best `partly`). Only where its row has min = max: a later
#                 revision that records the extremes (min < max) is read as any timed row
#   configuration computed from the run's settings, not measured: no claim may be judged on it
#   model         a formula of measured constants (a cost model, an estimator's law): exact
DERIVED = [
    ("pkpk_join", r".*", r"kernel_sum_time", "sum", r"kernel_(?!sum_time$)\w+_time"),
    ("cuckoo", r"bandwidth_share", r"moved_gbps|pin_share|copy_share", "inverse", "build_time"),
    ("cuckoo", r"fig4_5|fig4_6", r"build_plus_retrieve_time", "sum", r"build_time|retrieve_time"),
    ("cuckoo", r"fig4_4|fig4_7", r"model_\w+", "model", ""),
    # sp_breakdown's phases: timed rows (median, min, max) in newer runs, medians only (min = max) in
    # the committed reference runs; their total is the sum of the phases' medians.
    ("ega", r"sp_breakdown", r"phase\d_time", "unrecorded", ""),
    ("ega", r"sp_breakdown", r"total_time", "sum", r"phase\d_time"),
    ("ega", r"mp_\w+", r"generate_time|merge_time|process_time", "unrecorded", ""),
    ("ega", r"mp_\w+", r"data_over_budget|budget", "configuration", ""),
    ("compare", r"tpch", r"last_pass_\w+_ms", "unrecorded", ""),
    ("rapids_groupby", r"\w+", r"derived_\w+|expected_equal_pairs", "model", ""),
]


def derived(module, experiment, metric):
    """(kind, of) of a derived metric (DERIVED), or None for a measured one."""
    for mod, exp, name, kind, of in DERIVED:
        if mod == module and re.fullmatch(exp, experiment) and re.fullmatch(name, metric):
            return kind, of
    return None


VERIFIED = ("true", "sampled")


def _point(r):
    return (r["variant"], r["n"], r.get("param_name"), r["param_value"])


def _with_spread(results, mod, experiment, r, where):
    """(median, lo, hi, spread) of row r, a derived metric recomputed from the rows it comes from."""
    d = derived(mod, experiment, r["metric"])
    if d is None or d[0] == "model":
        return r["median"], r["min"], r["max"], True
    kind, of = d
    if kind == "configuration":  # exact; verdicts.py refuses to judge a claim on it
        return r["median"], r["min"], r["max"], True
    if kind == "unrecorded":
        if r["min"] < r["max"]:  # a revision that records the repetitions' extremes
            return r["median"], r["min"], r["max"], True
        return r["median"], r["median"], r["median"], False
    same = results.point_rows(mod, experiment).get(_point(r), {})
    parts = [p for name, p in same.items() if re.fullmatch(of, name)]
    if not parts:
        raise ClaimError(f"{r['metric']} in {where} derives from {of!r}, which its point lacks")
    if kind == "sum":
        med = sum(p["median"] for p in parts)
        if not math.isclose(med, r["median"], rel_tol=1e-3, abs_tol=1e-9):
            raise ClaimError(f"{r['metric']} in {where} ({r['median']}) is not the sum of its parts ({med}): "
                             "DERIVED no longer matches how the experiment computes it")
        # Each part as the rules read it: a part without recorded extremes leaves the sum without.
        spans = [_with_spread(results, mod, experiment, p, where) for p in parts]
        return r["median"], sum(lo for _, lo, _, _ in spans), sum(hi for _, _, hi, _ in spans), \
            all(spread for *_, spread in spans)
    (base,) = parts  # inverse: value = c / base
    if not base["min"] or not base["max"]:
        return r["median"], r["min"], r["max"], True
    return r["median"], r["median"] * base["median"] / base["max"], r["median"] * base["median"] / base["min"], True


def _selector(spec, x_axis):
    """A function row -> (selected, x) for the rows of `spec` whatever their metric and verification."""
    variants = spec.get("variant")
    if isinstance(variants, str):
        variants = [variants]
    n = parse_size(spec["n"]) if "n" in spec else None
    params = spec.get("param")
    # A number, or the name of a named axis' value ("suppkey", "voxel_ball").
    wanted_params = None if params is None else [p if isinstance(p, str) else float(p)
                                                 for p in (params if isinstance(params, list) else [params])]
    x_in = spec.get("x_in")
    x_in_per_n = spec.get("x_in_per_n")  # a range of the parameter as fractions of the point's n

    def select(r):
        if variants is not None and r["variant"] not in variants:
            return False, None
        if n is not None and r["n"] != n:
            return False, None
        if wanted_params is not None and (r["param_value"] is None or not any(
                same_param(r["param_value"], p) for p in wanted_params)):
            return False, None
        if "param_per_n" in spec:  # a parameter that scales with the size, e.g. 0.99 n groups
            wanted = math.floor(float(spec["param_per_n"]) * r["n"])
            if r["param_value"] is None or not math.isclose(r["param_value"], wanted, rel_tol=1e-5):
                return False, None
        if "param_name" in spec and r.get("param_name") != spec["param_name"]:
            return False, None
        x = None if x_axis is None else (r["n"] if x_axis == "n" else r["param_value"])
        if (x_in is not None or x_in_per_n is not None) and isinstance(x, str):
            raise ClaimError(f"x_in limits a numeric axis; {spec['experiment']}'s parameter is named ({x!r}): "
                             "list the values with param = [...]")
        if x_in is not None and x is not None and not (x_in[0] <= x <= x_in[1]):
            return False, None
        if x_in_per_n is not None and x is not None and not (
                x_in_per_n[0] * r["n"] * (1 - 1e-5) <= x <= x_in_per_n[1] * r["n"] * (1 + 1e-5)):
            return False, None
        return True, x
    return select


def _choose(pick, candidates):
    """Rule 5 (docs/verdicts.md): the best of several variants at one point, judged at the worst
    repetition of the choice. The choice is the best median; every candidate whose range reaches the
    best one's could be the best at some repetition, so the chosen value's range spans all of theirs
    (a choice the repetitions cannot make is judged at its weakest candidate). candidates: [(name,
    median, lo, hi, row)]. Returns (the chosen candidate, lo, hi, the names tied with it)."""
    best = (max if pick == "max" else min)(candidates, key=lambda c: c[1])
    if pick == "max":
        tied = [c for c in candidates if c is not best and c[3] >= best[2]]
    else:
        tied = [c for c in candidates if c is not best and c[2] <= best[3]]
    group = [best] + tied
    return best, min(c[2] for c in group), max(c[3] for c in group), [c[0] for c in tied]


def quantity(results, spec, module, over):
    """The Series a quantity spec selects. `over` names the axis ('n' or 'param') the rule sweeps;
    without it the spec must select exactly one point. Computed once per results folder (the rules
    read a claim's quantities more than once); callers must not modify the Series."""
    key = (json.dumps(spec, sort_keys=True), module, over)
    if key not in results.quantities:
        results.quantities[key] = _quantity(results, spec, module, over)
    return results.quantities[key]


def _quantity(results, spec, module, over):
    unknown = set(spec) - QUANTITY_KEYS
    if unknown:
        raise ClaimError(f"unknown quantity field(s) {sorted(unknown)}; known: {sorted(QUANTITY_KEYS)}")
    scale = float(spec.get("scale", 1.0))
    if "sum" in spec:  # the sum of quantities at each x, e.g. two phases of one algorithm
        parts = [quantity(results, q, module, over) for q in spec["sum"]]
        missing = next((p.missing for p in parts if not p.points), "")
        xs = set.intersection(*[set(p.points) for p in parts]) if parts and not missing else set()
        pts = {x: Value(sum(p.points[x].median for p in parts), sum(p.points[x].lo for p in parts),
                        sum(p.points[x].hi for p in parts), any(p.points[x].sampled for p in parts),
                        all(p.points[x].spread for p in parts)) for x in xs}
        s = Series(pts, spec.get("unit", parts[0].unit if parts else ""),
                   spec.get("label", " + ".join(p.label for p in parts)), any(p.sampled for p in parts),
                   missing or ("" if pts else "the summed quantities share no point"),
                   axis=parts[0].axis if parts else "")
        return _merge_findings(s, parts)
    if "ratio" in spec:  # a quotient of two quantities, e.g. one variant's slow-down against another's
        num, den = spec["ratio"]
        s = ratio_series(quantity(results, num, module, over), quantity(results, den, module, over))
        s.label = spec.get("label", s.label)
        s.x_label = spec.get("x_label", s.x_label)
        return s
    if "limit" in spec:
        v = results.limits().get(spec["limit"])
        label = spec.get("label", spec["limit"])
        if v is None:
            return Series({}, spec.get("unit", ""), label, missing=f"no hardware limit '{spec['limit']}' in device.json")
        v = float(v) * scale
        return Series({None: Value(v, v, v)}, spec.get("unit", ""), label)
    if "count_metrics" in spec:
        return _count_metrics(results, spec, module, over)
    for key in ("experiment", "metric"):
        if key not in spec:
            raise ClaimError(f"a quantity needs '{key}' (or 'limit'): {spec}")
    mod = spec.get("module", module)
    rows = results.rows(mod, spec["experiment"])
    label = spec.get("label") or spec["metric"]
    where = f"{mod}/{spec['experiment']}.csv"
    if rows is None:
        return Series({}, label=label, missing=f"no results for {where}")
    x_axis = _x_axis(spec, over)
    select = _selector(spec, x_axis)
    selected, unit, unverified = [], "", {}
    for r in rows:
        if r["metric"] != spec["metric"] and r["metric"] != "status":
            continue
        ok, x = select(r)
        if not ok:
            continue
        if r.get("verified") not in VERIFIED:
            # A planned point without a verified measurement: failed (its rows say verified = false)
            # or skipped (one `status` row). It is a finding of every claim that covers it.
            unverified[x] = unverified_why(r)
            continue
        if r["metric"] == "status":
            continue
        selected.append((x, r))
        unit = unit or r.get("unit", "")
    incomplete = results.incomplete(mod, spec["experiment"])
    if not selected:
        what = ", ".join(f"{k}={spec[k]}" for k in ("variant", "metric", "n", "param", "param_per_n", "x_in") if k in spec)
        why = f"no verified rows with {what} in {where}"
        if unverified:
            why += " (" + ", ".join(sorted(set(unverified.values()))) + ")"
        return Series({}, unit, label, missing=why, unverified=unverified, incomplete=incomplete)
    by_x = {}
    for x, r in selected:
        by_x.setdefault(x, []).append(r)
    pick = spec.get("pick")
    if pick not in (None, "max", "min"):
        raise ClaimError(f"pick must be 'max' or 'min', not {pick!r}")
    points, picks, sampled, unrecorded = {}, {}, False, []
    d = derived(mod, spec["experiment"], spec["metric"])
    configuration = [spec["metric"]] if d and d[0] == "configuration" else []
    for x, rs in by_x.items():
        factor = scale * (x if spec.get("times_x") and x is not None else 1.0)
        candidates = []
        for r in rs:
            f = factor if not (spec.get("times_x") and x is None) else scale * (
                r["param_value"] if r["param_value"] is not None else 1.0)
            med, lo, hi, spread = _with_spread(results, mod, spec["experiment"], r, where)
            lo, hi = sorted((lo * f, hi * f))
            if not spread:
                unrecorded.append(r["metric"])
            candidates.append((r["variant"], med * f, lo, hi, r, spread))
        if len(candidates) > 1:
            if pick is None:
                detail = sorted({(r["variant"], r["n"], r["param_value"]) for r in rs})[:4]
                raise ClaimError(f"{len(rs)} rows of {where} match {spec} at x={x} (e.g. {detail}): give variant, n "
                                 "or param, or pick = 'max' / 'min'")
            chosen, lo, hi, tied = _choose(pick, candidates)
            picks[x] = (chosen[0], tied)
        else:
            chosen = candidates[0]
            lo, hi = chosen[2], chosen[3]
        r = chosen[4]
        s = r.get("verified") == "sampled"
        sampled = sampled or s
        points[x] = Value(chosen[1], lo, hi, s, chosen[5], chosen[0] if len(candidates) > 1 else "")
    # A point some candidate of a pick lost stays a finding: the choice there was made among fewer.
    return Series(points, spec.get("unit", unit), label, sampled, axis=x_axis or "", x_label=spec.get("x_label", ""),
                  unverified=unverified, incomplete=incomplete, picks=picks,
                  spread=all(v.spread for v in points.values()), unrecorded=sorted(set(unrecorded)),
                  configuration=configuration)


def unverified_why(row):
    """Why a planned point has no verified measurement: "failed", "skipped", or "skipped: <why>"
    where the run wrote its reason in the note ("skipped: needs 4 GPUs, this host has 2 (...)"),
    cut at its first parenthesis or semicolon: the reason a claim's row then gives."""
    if row.get("status") != "skipped":
        return "failed"
    note = str(row.get("note") or "")
    if not note.startswith("skipped: "):
        return "skipped"
    head = re.split(r" \(|;", note, maxsplit=1)[0].strip()
    return head if len(head) > len("skipped: ") else "skipped"


def _x_axis(spec, over):
    x_axis = spec.get("x", over if over in ("n", "param") else None)
    if x_axis == "none":  # one point for every x of the sweep (e.g. the baseline at m = 1)
        return None
    if x_axis not in (None, "n", "param"):
        raise ClaimError(f"x must be 'n', 'param' or 'none', not {x_axis!r}")
    if spec.get("x_in_per_n") is not None and x_axis != "param":
        raise ClaimError("x_in_per_n limits a sweep over the parameter (x = 'param')")
    return x_axis


def _count_metrics(results, spec, module, over):
    """`count_metrics = { pattern = "kernel_*_rate", unit = "Grows/s" }`: how many of a point's
    verified metrics match the pattern (and the unit, if given), e.g. the steps of a join that pass
    over its input rows (each step's rate is in input rows exactly when it passes over them). A count:
    min = max."""
    cm = spec["count_metrics"]
    if not isinstance(cm, dict) or "pattern" not in cm or set(cm) - {"pattern", "unit"}:
        raise ClaimError("count_metrics = { pattern = 'glob', unit = '...' (optional) }")
    if "experiment" not in spec:
        raise ClaimError(f"a quantity needs 'experiment': {spec}")
    mod = spec.get("module", module)
    rows = results.rows(mod, spec["experiment"])
    where = f"{mod}/{spec['experiment']}.csv"
    label = spec.get("label", f"metrics {cm['pattern']}")
    if rows is None:
        return Series({}, label=label, missing=f"no results for {where}")
    x_axis = _x_axis(spec, over)
    select = _selector(spec, x_axis)
    names, unverified = {}, {}
    for r in rows:
        ok, x = select(r)
        if not ok:
            continue
        if r.get("verified") not in VERIFIED:
            unverified[x] = unverified_why(r)
            continue
        if fnmatch.fnmatchcase(r["metric"], cm["pattern"]) and ("unit" not in cm or r.get("unit") == cm["unit"]):
            names.setdefault(x, set()).add(r["metric"])
    if not names:
        return Series({}, label=label, missing=f"no verified metric {cm['pattern']} in {where}", unverified=unverified)
    points = {x: Value(len(v), len(v), len(v), counted=", ".join(sorted(v))) for x, v in names.items()}
    return Series(points, "count", label, axis=x_axis or "", unverified=unverified,
                  incomplete=results.incomplete(mod, spec["experiment"]))


def _merge_findings(s, parts):
    """A combined quantity keeps its parts' findings: unverified points, incomplete files, picks."""
    for p in parts:
        for x, why in p.unverified.items():
            s.unverified.setdefault(x, why)
        s.incomplete += [i for i in p.incomplete if i not in s.incomplete]
        s.unrecorded += [u for u in p.unrecorded if u not in s.unrecorded]
        s.configuration += [c for c in p.configuration if c not in s.configuration]
        s.spread = s.spread and p.spread
    return s


def ratio_series(a, b):
    """a / b at every x both have; the interval is the widest the repetitions allow."""
    if b is None:
        return a
    pts = {}
    one = lambda s, x: s.points.get(x, s.points.get(None) if len(s.points) == 1 else None)  # x = "none" serves every x
    xs = list(a.points) if (list(a.points) != [None] or not b.points) else list(b.points)
    for x in xs:
        va, vb = one(a, x), one(b, x)
        if va is None or vb is None or vb.median == 0 or vb.lo <= 0 or vb.hi <= 0:
            continue
        pts[x] = Value(va.median / vb.median, va.lo / vb.hi, va.hi / vb.lo, va.sampled or vb.sampled,
                       va.spread and vb.spread)
    missing = a.missing or b.missing or ("" if pts else f"'{a.label}' and '{b.label}' share no point")
    s = Series(pts, "", f"{a.label} / {b.label}", a.sampled or b.sampled, missing, axis=a.axis or b.axis,
               x_label=a.x_label or b.x_label)
    return _merge_findings(s, [a, b])
