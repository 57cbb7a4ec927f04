"""The catalogue in Python: every group-by, join and hash table of the suite by name
(catalogue/include/hashlab/catalogue/), on NumPy, pandas and device arrays, each call returning
its answer and the algorithm's statistics, ready to plot.

    hashlab.catalogue()                                   # a DataFrame: one row per entry
    r = hashlab.groupby(df, ["price", "qty"], ["sum", "mean"], by="store", algo="sp_ega")
    r.frame, r.stats["phase3_unhashed_pairs"], r.warnings
    j = hashlab.join(r_keys, s_keys, algo="bsp")          # rows (key, r_value, s_value)
    t = hashlab.Table("cuckoo", keys, values, functions=4, load=0.8)
    t.find(queries); t.stats.arrays["chain_lengths"]
    hashlab.GroupBy("hash", d_keys, d_vals).time(warmup=2, reps=7)   # the harness's timing routine

Device columns are used in place (the algorithm reads the caller's memory; `device_inputs()` gives
the addresses it reads); host columns are uploaded by the entry when it is made, untimed. With
device columns a GPU algorithm's answer stays on the device (`.device`: CuPy arrays, or PyTorch
tensors with device="torch"); `.frame` brings it to the host when it is read.
"""
from dataclasses import dataclass, field

import numpy as np

from . import _core
from ._arrays import column, device_result, is_device_array, to_numpy
from ._device import gpu_status
from ._tables import aggregations, as_columns, frame, groupby_columns


def entries(operation=None):
    """Every entry (or those of one operation: "groupby", "join", "table") as dicts: name,
    description, needs_gpu, clock, across_servers (runs across GPU servers too: hashlab groupby /
    join --gpus N), options (name, help, default), statistics (name, unit,
    description, array) and the operation's own fields."""
    return [e for e in _core.catalogue_entries() if operation in (None, e["operation"])]


def catalogue(operation=None):
    """The catalogue as a DataFrame, one row per entry."""
    import pandas

    rows = []
    for e in entries(operation):
        rows.append({"operation": e["operation"], "name": e["name"], "needs_gpu": e["needs_gpu"],
                     "clock": e["clock"], "across_servers": e["across_servers"], "options": ", ".join(f"{o['name']}={o['default']}" for o in e["options"]),
                     "statistics": ", ".join(s["name"] + ("[]" if s["array"] else "") for s in e["statistics"]),
                     "description": e["description"]})
    return pandas.DataFrame(rows)


def _entry(operation, name):
    for e in entries(operation):
        if e["name"] == name or (operation == "join" and e["name"] == f"{name}_join"):
            return e
    return None


def _require(operation, algo):
    """RuntimeError, as the commands say it, for a GPU entry on a machine without a GPU (an unknown
    name is the catalogue's ValueError, naming the choices)."""
    e = _entry(operation, algo)
    if e is not None and e["needs_gpu"]:
        available, why = gpu_status()
        if not available:
            raise RuntimeError(f"--algo {algo} needs a CUDA GPU ({why})")


def _options(options, kwargs):
    """Options as the catalogue reads them: text ("0.5", "true", "2GiB")."""
    merged = dict(options or {})
    merged.update(kwargs)
    def text(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)
    return {str(k): text(v) for k, v in merged.items()}


def _default_algo(gpu_algo, cpu_algo):
    return gpu_algo if gpu_status()[0] else cpu_algo


@dataclass
class Statistics:
    """What the algorithm counted in its last run: named numbers and named arrays (NumPy), with
    their units. stats["name"] gives either."""
    numbers: dict
    arrays: dict
    units: dict

    @classmethod
    def of(cls, d):
        return cls(dict(d["numbers"]), dict(d["arrays"]), dict(d["units"]))

    def __getitem__(self, name):
        if name in self.numbers:
            return self.numbers[name]
        if name in self.arrays:
            return self.arrays[name]
        raise KeyError(f"no statistic {name!r} (numbers: {', '.join(self.numbers)}; arrays: {', '.join(self.arrays)})")

    def __contains__(self, name):
        return name in self.numbers or name in self.arrays

    def frame(self):
        """The numbers as a DataFrame (name, value, unit)."""
        import pandas

        return pandas.DataFrame({"name": list(self.numbers), "value": list(self.numbers.values()),
                                 "unit": [self.units.get(n, "") for n in self.numbers]})


@dataclass
class Timing:
    """The harness's timing of a run: median, minimum and maximum of `repetitions` runs after
    warm-ups, on CUDA events or the host clock."""
    median_ms: float
    min_ms: float
    max_ms: float
    repetitions: int
    clock: str

    @classmethod
    def of(cls, d):
        return cls(d["median_ms"], d["min_ms"], d["max_ms"], d["repetitions"], d["clock"])

    def __str__(self):
        return (f"median {self.median_ms:.3f} ms of {self.repetitions} runs (min {self.min_ms:.3f}, "
                f"max {self.max_ms:.3f}; {self.clock})")


def _timing_args(warmup, reps):
    if warmup < 0 or reps < 0:
        raise ValueError("warmup and reps must be >= 0 (reps 0: the harness's default, 5 or 3 for long runs)")
    return int(warmup), int(reps)


def _wants_device(device, inputs):
    """Whether a call answers on the device: `device` as given (False; True or "cupy", "torch",
    "raw"), or by default when any input column is a device array."""
    if device is None:
        return any(is_device_array(a) for a in inputs if a is not None)
    return device


# ---- group-by --------------------------------------------------------------------------------------

class GroupByResult:
    """A group-by's answer sorted by key: `frame` (a DataFrame: the key columns, then
    "<agg>_<value>"), `device` (the same columns as device arrays, by name, when the answer stayed
    on the device; else None), the algorithm's statistics and warnings (a run a user would avoid,
    saying what avoids it). A device answer is brought to the host when `frame` is first read."""

    def __init__(self, algo, names, stats, warnings, host=None, device=None):
        self.algo = algo
        self.names = list(names)
        self.stats = stats
        self.warnings = warnings
        self.device = dict(zip(self.names, device)) if device is not None else None
        self._host = host
        self._frame = None

    @property
    def frame(self):
        if self._frame is None:
            arrays = self._host if self._host is not None else [to_numpy(self.device[n]) for n in self.names]
            self._frame = frame(self.names, arrays)
        return self._frame

    @property
    def columns(self):
        """The answer's columns as NumPy arrays, by name."""
        return {n: self.frame[n].to_numpy() for n in self.frame.columns}

    def __repr__(self):
        where = "device" if self.device is not None else "host"
        return f"GroupByResult({self.algo}, {self.stats['groups'] if 'groups' in self.stats else '?'} groups on the {where})"


class _Made:
    """What a made group-by and join share: run(), time(), statistics() and device_inputs() on the
    extension's call (`_call`)."""

    def run(self):
        """The algorithm, every pass of it (its premise, EGA's loading of the pairs, before)."""
        self._call.run()
        self._ran = True
        return self

    def device_inputs(self):
        """The device addresses the algorithm reads its input columns at (a group-by's key columns,
        then its value columns; a join's R keys and values, then S keys and values, where values
        given as row numbers are the join's upload): a device array's own address when it is read
        in place. Empty for an algorithm that reads host columns."""
        return list(self._call.device_inputs())

    def statistics(self, arrays=True):
        return Statistics.of(self._call.statistics(arrays))

    def time(self, warmup=1, reps=0):
        """The harness's timing routine on run(): `warmup` runs, then `reps` timed ones (0: its
        default), the entry's clock (CUDA events, or the host clock for CPU work and MP-EGA)."""
        self._ran = True
        return Timing.of(self._call.time(*_timing_args(warmup, reps)))


class GroupBy(_Made):
    """A group-by of the catalogue made on these columns (device columns in place, host ones
    uploaded now): run() it, time() it, read result() and statistics(). `data`, `values`, `aggs`
    and `by` as for reference.groupby; options by keyword (or options={...})."""

    def __init__(self, algo, data, values=None, aggs="sum", *, by=None, options=None, **kwargs):
        _require("groupby", algo)
        self.algo = algo
        keys, vals = groupby_columns(data, by, values)
        self._inputs = [a for _, a in keys] + [a for _, a in vals]
        self._call = _core.GroupByCall(algo, as_columns(keys), as_columns(vals), aggregations(aggs),
                                       _options(options, kwargs))
        self._ran = False

    def result(self, device=None):
        """The last run's answer (runs once if it has not run). `device`: whether the groups stay
        on the device (default: when a column was a device array; True or "cupy", "torch", "raw";
        False: NumPy). A group-by that computes on the host (mp_ega, cpu, cpu_stl) answers there."""
        if not self._ran:
            self.run()
        names = self._call.output_names()
        stats, warnings = self.statistics(), list(self._call.warnings())
        if _wants_device(device, self._inputs):
            found = self._call.device_result()
            if found is not None:
                keys, aggs = found
                as_wanted = [device_result(a, device if device is not None else True) for a in list(keys) + list(aggs)]
                return GroupByResult(self.algo, names, stats, warnings, device=as_wanted)
        key_arrays, agg_arrays = self._call.result()
        return GroupByResult(self.algo, names, stats, warnings, host=key_arrays + agg_arrays)

    @property
    def bytes(self):
        """Device bytes the algorithm holds besides its input."""
        return self._call.bytes


def groupby(data, values=None, aggs="sum", *, by=None, algo=None, device=None, options=None, **kwargs):
    """A group-by of the catalogue (`algo`; default "hash" with a GPU, else "cpu"), made, run
    once and answered: a GroupByResult (`device` as for GroupBy.result). See GroupBy for the
    arguments, and catalogue("groupby") for the algorithms, their options and statistics."""
    algo = algo or _default_algo("hash", "cpu")
    return GroupBy(algo, data, values, aggs, by=by, options=options, **kwargs).result(device)


# ---- join ------------------------------------------------------------------------------------------

_JOIN_NAMES = ["key", "r_value", "s_value"]


class JoinResult:
    """A Pk-Pk join's answer: `frame` (key, r_value, s_value) sorted by key, on the host;
    `device` the rows where the GPU join left them, as device arrays (key, r_value, s_value) in
    the algorithm's order (`sorted`: by key), when the answer stayed on the device (else None);
    statistics and warnings. A device answer is brought to the host when `frame` is first read."""

    def __init__(self, algo, stats, warnings, host=None, device=None, sorted=False):
        self.algo = algo
        self.stats = stats
        self.warnings = warnings
        self.device = device
        self.sorted = sorted
        self._host = host
        self._frame = None

    @property
    def frame(self):
        if self._frame is None:
            if self._host is not None:
                arrays = self._host
            else:
                arrays = [to_numpy(a) for a in self.device]
                if not self.sorted:  # keys are unique: one order
                    order = np.argsort(arrays[0], kind="stable")
                    arrays = [a[order] for a in arrays]
            self._frame = frame(_JOIN_NAMES, arrays)
        return self._frame

    def __repr__(self):
        where = "device" if self.device is not None else "host"
        return f"JoinResult({self.algo}, {int(self.stats['rows_out'])} rows on the {where})"


class Join(_Made):
    """A Pk-Pk join of the catalogue made on R and S (keys unique within each table; values
    default to row numbers)."""

    def __init__(self, algo, r_keys, s_keys, *, r_values=None, s_values=None, options=None, **kwargs):
        _require("join", algo)
        self.algo = algo
        self._inputs = [r_keys, s_keys, r_values, s_values]
        self._call = _core.JoinCall(algo, column(r_keys, "r_keys"),
                                    None if r_values is None else column(r_values, "r_values"),
                                    column(s_keys, "s_keys"),
                                    None if s_values is None else column(s_values, "s_values"),
                                    _options(options, kwargs))
        self._ran = False

    def result(self, device=None):
        """The last run's answer (runs once if it has not run). `device`: whether the rows stay on
        the device (default: when an input was a device array; True or "cupy", "torch", "raw";
        False: NumPy). A CPU join answers on the host."""
        if not self._ran:
            self.run()
        stats, warnings = self.statistics(), list(self._call.warnings())
        if _wants_device(device, self._inputs):
            found = self._call.device_result()
            if found is not None:
                rows = tuple(device_result(a, device if device is not None else True) for a in found)
                return JoinResult(self.algo, stats, warnings, device=rows, sorted=self._call.sorted_output)
        return JoinResult(self.algo, stats, warnings, host=list(self._call.result()), sorted=True)


def join(r_keys, s_keys, *, r_values=None, s_values=None, algo=None, device=None, options=None, **kwargs):
    """A Pk-Pk join of the catalogue (`algo`; default "bsp" with a GPU, else "cpu_join"), made,
    run once and answered: a JoinResult (`device` as for Join.result)."""
    algo = algo or _default_algo("bsp", "cpu_join")
    return Join(algo, r_keys, s_keys, r_values=r_values, s_values=s_values, options=options, **kwargs).result(device)


# ---- tables ----------------------------------------------------------------------------------------

@dataclass
class LookupResult:
    """A table's answer to queries: `count` (build rows with the query's key) and `value` (the
    smallest of their values, 0 when none), each None when the table's probe does not compute it
    (`answers` says what it does: "value", "count_and_value", "count" or "total"), `total` the
    matches of all queries; NumPy arrays, or device arrays when the answer stayed on the device
    (`on_device`); the statistics of the build and probe."""
    algo: str
    answers: str
    count: object
    value: object
    total: int
    stats: Statistics
    warnings: list = field(default_factory=list)
    bytes: int = 0
    on_device: bool = False


class Table:
    """A hash table of the catalogue (or the sorted array) built from keys and values (values
    default to row numbers), probed with queries: t.find(q), t.count(q), t.lookup(q). Options by
    keyword (cuckoo: functions=4, load=0.8; hashgraph: version="v2", probe=...; see
    catalogue("table")). The catalogue makes a table for one set of queries: each lookup makes,
    builds and probes anew, and `stats` is the last one's. With device arrays the answers stay on
    the device (`device=False`: NumPy)."""

    def __init__(self, algo, keys, values=None, *, options=None, **kwargs):
        _require("table", algo)
        self.algo = algo
        self._keys, self._values = keys, values
        self._options = _options(options, kwargs)
        self.stats = None
        self.warnings = []
        self._call = None

    def _make(self, queries):
        self._queries = queries  # the device memory the made table reads stays referenced
        self._call = _core.TableCall(self.algo, column(self._keys, "keys"),
                                     None if self._values is None else column(self._values, "values"),
                                     column(queries, "queries"), self._options)
        return self._call

    def lookup(self, queries, device=None):
        """Builds the table and probes it with `queries`: a LookupResult. `device`: whether the
        answers stay on the device (default: when keys, values or queries were device arrays; True
        or "cupy", "torch", "raw"; False: NumPy)."""
        call = self._make(queries)
        call.build()
        call.probe()
        found = None
        if _wants_device(device, [self._keys, self._values, queries]):
            found = call.device_result()
        if found is not None:
            want = device if device is not None else True
            count, value, total = found
            count = None if count is None else device_result(count, want)
            value = None if value is None else device_result(value, want)
        else:
            count, value, total = call.result()
        self.stats = Statistics.of(call.statistics(True))
        self.warnings = list(call.warnings())
        return LookupResult(self.algo, call.answers_kind(), count, value, int(total), self.stats, self.warnings,
                            call.bytes, found is not None)

    def find(self, queries, device=None):
        """Per query, the value stored with its key (the smallest, for repeated keys); 0 where no key
        matches, as in the catalogue's answers (lookup's `count`, 0 there, tells a miss from a stored 0)."""
        r = self.lookup(queries, device)
        if r.value is None:
            raise ValueError(f"{self.algo}'s probe answers {r.answers}, not values, with these options")
        return r.value

    def count(self, queries, device=None):
        """Per query, the build rows holding its key."""
        r = self.lookup(queries, device)
        if r.count is None:
            raise ValueError(f"{self.algo}'s probe answers {r.answers}, not counts, with these options")
        return r.count

    def check(self):
        """The last lookup against the CPU reference: "" when right, else the first difference."""
        if self._call is None:
            raise ValueError("no lookup yet")
        return self._call.check()

    def device_inputs(self):
        """The device addresses the last made table read keys, values and queries at (a device
        array's own address when it is read in place)."""
        if self._call is None:
            raise ValueError("no lookup yet")
        return list(self._call.device_inputs())

    def time(self, queries, warmup=1, reps=0):
        """(build, probe) timed with the harness's routine (CUDA events), the table made for
        `queries`."""
        call = self._make(queries)
        w, r = _timing_args(warmup, reps)
        build = Timing.of(call.time_build(w, r))
        probe = Timing.of(call.time_probe(w, r))
        self.stats = Statistics.of(call.statistics(True))
        return build, probe
