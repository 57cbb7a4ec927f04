"""The quantity language of the claim files: which CSV rows a quantity of a claim (`a`, `b`,
`events`, `trials`, `candidates`, `beside`) selects, and the Series of values (median, minimum and
maximum of the repetitions) it stands for. The rules of docs/verdicts.md, applied in verdicts.py,
judge these Series; this module decides no verdict.

A quantity names `experiment` and `metric`, and as many of `variant`, `n`, `param`, `param_per_n`,
`param_name` as it takes to select one row per point; `x`, `x_in`, `x_in_per_n` choose and limit the
sweep; `ratio` and `sum` combine quantities; `limit` reads a hardware limit of device.json
(docs/verdicts.md, "The claim file")."""
import csv
import glob
import json
import math
import os
import re
from dataclasses import dataclass

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


def format_param(x):
    """A swept parameter for a label: 0.5, 16, 1K, 8.39M."""
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
        self._profile = {}
        self._limits = None

    def rows(self, module, experiment):
        key = (module, experiment)
        if key not in self._csv:
            path = os.path.join(self.folder, module, experiment + ".csv")
            rows = []
            if os.path.exists(path):
                with open(path, newline="") as f:
                    for row in csv.DictReader(f):
                        for k in ("n", "param_value", "median", "min", "max"):
                            try:
                                row[k] = float(row[k]) if row.get(k) not in (None, "") else None
                            except ValueError:
                                row[k] = None
                        rows.append(row)
            self._csv[key] = rows if os.path.exists(path) else None
        return self._csv[key]

    def profile(self, module, experiment):
        """The profile ('quick', 'full') an experiment's results were run with (its JSON sidecar), or None."""
        key = (module, experiment)
        if key not in self._profile:
            path = os.path.join(self.folder, module, experiment + ".json")
            self._profile[key] = None
            if os.path.exists(path):
                with open(path) as f:
                    self._profile[key] = json.load(f).get("profile")
        return self._profile[key]

    def limits(self):
        if self._limits is None:
            path = os.path.join(self.folder, "device.json")
            self._limits = {}
            if os.path.exists(path):
                with open(path) as f:
                    self._limits = json.load(f)
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
    """One measured point: the median and the extremes of its repetitions."""
    median: float
    lo: float
    hi: float
    sampled: bool = False


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


QUANTITY_KEYS = {"experiment", "module", "variant", "metric", "n", "param", "param_per_n", "param_name", "x", "x_in",
                 "x_in_per_n", "pick", "scale", "times_x", "label", "limit", "unit", "ratio", "sum", "fraction", "x_label"}


def quantity(results, spec, module, over):
    """The Series a quantity spec selects. `over` names the axis ('n' or 'param') the rule sweeps;
    without it the spec must select exactly one point."""
    unknown = set(spec) - QUANTITY_KEYS
    if unknown:
        raise ClaimError(f"unknown quantity field(s) {sorted(unknown)}; known: {sorted(QUANTITY_KEYS)}")
    scale = float(spec.get("scale", 1.0))
    if "sum" in spec:  # the sum of quantities at each x, e.g. two phases of one algorithm
        parts = [quantity(results, q, module, over) for q in spec["sum"]]
        missing = next((p.missing for p in parts if not p.points), "")
        xs = set.intersection(*[set(p.points) for p in parts]) if parts and not missing else set()
        pts = {x: Value(sum(p.points[x].median for p in parts), sum(p.points[x].lo for p in parts),
                        sum(p.points[x].hi for p in parts), any(p.points[x].sampled for p in parts)) for x in xs}
        return Series(pts, spec.get("unit", parts[0].unit if parts else ""),
                      spec.get("label", " + ".join(p.label for p in parts)), any(p.sampled for p in parts),
                      missing or ("" if pts else "the summed quantities share no point"),
                      axis=parts[0].axis if parts else "")
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
    for key in ("experiment", "metric"):
        if key not in spec:
            raise ClaimError(f"a quantity needs '{key}' (or 'limit'): {spec}")
    mod = spec.get("module", module)
    rows = results.rows(mod, spec["experiment"])
    label = spec.get("label") or spec["metric"]
    where = f"{mod}/{spec['experiment']}.csv"
    if rows is None:
        return Series({}, label=label, missing=f"no results for {where}")
    variants = spec.get("variant")
    if isinstance(variants, str):
        variants = [variants]
    n = parse_size(spec["n"]) if "n" in spec else None
    params = spec.get("param")
    x_axis = spec.get("x", over if over in ("n", "param") else None)
    if x_axis == "none":  # one point for every x of the sweep (e.g. the baseline at m = 1)
        x_axis = None
    elif x_axis not in (None, "n", "param"):
        raise ClaimError(f"x must be 'n', 'param' or 'none', not {x_axis!r}")
    x_in = spec.get("x_in")
    x_in_per_n = spec.get("x_in_per_n")  # a range of the parameter as fractions of the point's n
    if x_in_per_n is not None and x_axis != "param":
        raise ClaimError("x_in_per_n limits a sweep over the parameter (x = 'param')")
    selected, unit = [], ""
    for r in rows:
        if r["metric"] != spec["metric"] or r.get("verified") not in ("true", "sampled"):
            continue
        if variants is not None and r["variant"] not in variants:
            continue
        if n is not None and r["n"] != n:
            continue
        if params is not None:
            wanted = params if isinstance(params, list) else [params]
            if r["param_value"] is None or not any(math.isclose(r["param_value"], float(p), rel_tol=1e-5, abs_tol=1e-12)
                                                   for p in wanted):
                continue
        if "param_per_n" in spec:  # a parameter that scales with the size, e.g. 0.99 n groups
            wanted = math.floor(float(spec["param_per_n"]) * r["n"])
            if r["param_value"] is None or not math.isclose(r["param_value"], wanted, rel_tol=1e-5):
                continue
        if "param_name" in spec and r.get("param_name") != spec["param_name"]:
            continue
        x = None if x_axis is None else (r["n"] if x_axis == "n" else r["param_value"])
        if x_in is not None and x is not None and not (x_in[0] <= x <= x_in[1]):
            continue
        if x_in_per_n is not None and x is not None and not (
                x_in_per_n[0] * r["n"] * (1 - 1e-5) <= x <= x_in_per_n[1] * r["n"] * (1 + 1e-5)):
            continue
        selected.append((x, r))
        unit = unit or r.get("unit", "")
    if not selected:
        what = ", ".join(f"{k}={spec[k]}" for k in ("variant", "metric", "n", "param", "param_per_n") if k in spec)
        return Series({}, unit, label, missing=f"no verified rows with {what} in {where}")
    by_x = {}
    for x, r in selected:
        by_x.setdefault(x, []).append(r)
    pick = spec.get("pick")
    points, sampled = {}, False
    for x, rs in by_x.items():
        if len(rs) > 1:
            if pick not in ("max", "min"):
                detail = sorted({(r["variant"], r["n"], r["param_value"]) for r in rs})[:4]
                raise ClaimError(f"{len(rs)} rows of {where} match {spec} at x={x} (e.g. {detail}): give variant, n "
                                 "or param, or pick = 'max' / 'min'")
            r = (max if pick == "max" else min)(rs, key=lambda r: r["median"])
        else:
            r = rs[0]
        factor = scale * (x if spec.get("times_x") and x is not None else 1.0)
        if spec.get("times_x") and x is None:
            factor = scale * (r["param_value"] if r["param_value"] is not None else 1.0)
        lo, hi = sorted((r["min"] * factor, r["max"] * factor))
        s = r.get("verified") == "sampled"
        sampled = sampled or s
        points[x] = Value(r["median"] * factor, lo, hi, s)
    return Series(points, spec.get("unit", unit), label, sampled, axis=x_axis or "", x_label=spec.get("x_label", ""))


def ratio_series(a, b):
    """a / b at every x both have; the interval is the widest the repetitions allow."""
    if b is None:
        return a
    pts = {}
    for x, va in a.points.items():
        vb = b.points.get(x, b.points.get(None) if len(b.points) == 1 else None)
        if vb is None or vb.median == 0 or vb.lo <= 0 or vb.hi <= 0:
            continue
        pts[x] = Value(va.median / vb.median, va.lo / vb.hi, va.hi / vb.lo, va.sampled or vb.sampled)
    missing = a.missing or b.missing or ("" if pts else f"'{a.label}' and '{b.label}' share no point")
    return Series(pts, "", f"{a.label} / {b.label}", a.sampled or b.sampled, missing, axis=a.axis,
                  x_label=a.x_label)
