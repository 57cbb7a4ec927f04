#!/usr/bin/env python3
"""Upgrades a results folder written by an earlier revision to the current format, in place, by
rule and never touching a measured number:

  * each experiment's JSON sidecar gains the `module` object (name, title, folder, order) that the
    runner now writes, from the registry (`hashlab list --json`);
  * a named axis that earlier revisions wrote as a numeric code (cuckoo's hash_family datasets,
    compare/tpch's queries) gets its values' names in the CSVs' param_value column;
  * device.json gains the "fields" object that `hashlab probe` now writes (each limit's label and
    unit), from the registry's hardware_limits;
  * a skipped point's `verified` field, which earlier revisions wrote as false (the value of a point
    whose check failed), is `skipped`: the point did not run, nothing was checked.

    build/hashlab list --json > /tmp/registry.json
    python3 scripts/upgrade_results.py --registry /tmp/registry.json results/reference/h100_80gb_hbm3

A file already in the current format is left as it is; run it again and nothing changes."""
import argparse
import csv
import glob
import io
import json
import os
import re
import sys

# The named axes whose values earlier revisions wrote as codes: (module, experiment, param_name) ->
# {code: name}. The names are the experiments' own (`hashlab list --json` gives them as the axes'
# values); the codes are the positions the experiments used.
NAMED_AXES = {
    ("cuckoo", "hash_family", "dataset"): {0: "random", 1: "sequential", 2: "voxel_surface", 3: "voxel_ball"},
    ("compare", "tpch", "query"): {1: "q1", 2: "suppkey", 3: "partkey", 4: "orderkey", 18: "q18"},
    ("compare", "tpch", "uniform"): {2: "suppkey", 3: "partkey", 4: "orderkey"},
}


def module_block(module, indent="  "):
    """The `module` object as the runner writes it (harness/src/runner.cpp, JsonWriter)."""
    inner = indent * 2
    return (f'{indent}"module": {{\n'
            f'{inner}"name": {json.dumps(module["name"])},\n'
            f'{inner}"title": {json.dumps(module["title"])},\n'
            f'{inner}"folder": {json.dumps(module["folder"])},\n'
            f'{inner}"order": {module["order"]}\n'
            f'{indent}}},\n')


def upgrade_sidecar(path, modules):
    with open(path) as f:
        text = f.read()
    data = json.loads(text)
    if "module" in data or "paper" not in data or data["paper"] not in modules:
        return False
    line = f'  "paper": {json.dumps(data["paper"])},\n'
    at = text.find(line)
    if at < 0:
        raise SystemExit(f"upgrade_results: {path}: no '\"paper\": ...' line where the runner writes it")
    end = at + len(line)
    text = text[:end] + module_block(modules[data["paper"]]) + text[end:]
    json.loads(text)  # still JSON
    with open(path, "w") as f:
        f.write(text)
    return True


def upgrade_csv(path, module, experiment):
    axes = {p: names for (m, e, p), names in NAMED_AXES.items() if m == module and e == experiment}
    with open(path, newline="") as f:
        text = f.read()
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    pname, pvalue = header.index("param_name"), header.index("param_value")
    changed = False
    if "status" in header:
        verified, status = header.index("verified"), header.index("status")
        for row in rows[1:]:
            if len(row) > max(verified, status) and row[status] == "skipped" and row[verified] == "false":
                row[verified] = "skipped"
                changed = True
    for row in rows[1:]:
        names = axes.get(row[pname]) if len(row) > pvalue else None
        if not names or not row[pvalue]:
            continue
        try:
            code = float(row[pvalue])
        except ValueError:
            continue  # already a name
        if code not in names:
            raise SystemExit(f"upgrade_results: {path}: {row[pname]} = {row[pvalue]} is no code of that axis")
        row[pvalue] = names[int(code)]
        changed = True
    if changed:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        with open(path, "w", newline="") as f:
            f.write(out.getvalue())
    return changed


def pattern_regex(pattern):
    """A registry key pattern ("all_to_all_gbps_p{servers}_{mib}mib") as a regex naming its numbers."""
    return re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>\\d+)", re.escape(pattern)))


def limit_fields(limits, hardware):
    """{key: (label, unit)} of the limits a device.json holds, as the registry describes them."""
    described = {f["key"]: (f["label"], f["unit"]) for f in hardware["fields"]}
    all_to_all = hardware["all_to_all"]
    regex = pattern_regex(all_to_all["key"])
    out = {}
    for key in limits:
        if key in described:
            out[key] = described[key]
        elif regex.fullmatch(key):
            out[key] = (all_to_all["label"].format(**regex.fullmatch(key).groupdict()), all_to_all["unit"])
    return out


def upgrade_device_json(path, hardware):
    """Adds "fields" at the end of device.json's object, as the probe writes it (JsonWriter)."""
    with open(path) as f:
        text = f.read()
    data = json.loads(text)
    if "fields" in data:
        return False
    fields = limit_fields(data, hardware)
    end = text.rstrip().rfind("}")
    if end < 0 or not fields:
        return False
    body = ",\n".join(f'    {json.dumps(key)}: {{\n      "label": {json.dumps(label)},\n      "unit": {json.dumps(unit)}\n    }}'
                      for key, (label, unit) in fields.items())
    text = text[:end].rstrip() + ',\n  "fields": {\n' + body + "\n  }\n}\n"
    if {k: v for k, v in json.loads(text).items() if k != "fields"} != data:
        raise SystemExit(f"upgrade_results: {path}: adding the fields would change what the file holds")
    with open(path, "w") as f:
        f.write(text)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--registry", required=True, help="the output of `hashlab list --json`")
    parser.add_argument("results", nargs="+", help="results folders (their full/ runs are upgraded too)")
    args = parser.parse_args(argv)
    with open(args.registry) as f:
        registry = json.load(f)
    modules = {m["name"]: m for m in registry["modules"]}
    for results in args.results:
        folders = [results] + ([os.path.join(results, "full")] if os.path.isdir(os.path.join(results, "full")) else [])
        for folder in folders:
            sidecars = csvs = 0
            for path in sorted(glob.glob(os.path.join(folder, "*", "*.json"))):
                sidecars += upgrade_sidecar(path, modules)
            for path in sorted(glob.glob(os.path.join(folder, "*", "*.csv"))):
                module = os.path.basename(os.path.dirname(path))
                csvs += upgrade_csv(path, module, os.path.splitext(os.path.basename(path))[0])
            device = os.path.join(folder, "device.json")
            limits = os.path.exists(device) and upgrade_device_json(device, registry["hardware_limits"])
            print(f"upgrade_results: {folder}: {sidecars} sidecars, {csvs} CSVs" +
                  (", device.json" if limits else "") + " upgraded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
