"""The claims against the registry (`hashlab list --json` of this build): every claim file belongs
to a registered module, and every experiment, variant, parameter, size and expected point a claim
names is one the registry plans, so that a renamed variant or a dropped point fails here, in CPU
CI, and not first when a GPU run finds no data for the claim."""
import glob
import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
import modules as md  # noqa: E402
import verdicts as ve  # noqa: E402

PROFILES = ("quick", "full")


def registry():
    binary = os.path.join(os.environ.get("HASHLAB_BINARY_DIR", "build"), "hashlab")
    if not os.path.exists(binary):
        raise unittest.SkipTest(f"no hashlab binary at {binary} (set HASHLAB_BINARY_DIR to a build)")
    out = subprocess.run([binary, "list", "--json"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def as_list(value):
    return value if isinstance(value, list) else [value]


def same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return abs(a - b) <= 1e-5 * max(1.0, abs(a), abs(b))


class ClaimsAgainstTheRegistry(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        reg = registry()
        cls.modules = {m["name"]: m for m in reg["modules"]}
        cls.experiments = {(m["name"], e["name"]): e for m in reg["modules"] for e in m["experiments"]}

    def points(self, experiment, profiles=PROFILES):
        return [p for prof in profiles for p in experiment["profiles"][prof]["points"]]

    def test_every_claims_file_belongs_to_a_registered_module(self):
        for name in md._claim_files():
            self.assertIn(name, self.modules, f"{md.claims_path(name)}: no module '{name}' is registered")

    def test_every_module_folder_holds_its_claims(self):
        for name, m in self.modules.items():
            path = md.claims_path(name)
            if os.path.exists(path):
                self.assertEqual(os.path.relpath(os.path.dirname(path), md.ROOT), m["folder"], name)

    def test_every_claim_names_what_the_registry_plans(self):
        problems = []
        for module in md._claim_files():
            _, claims = ve.load_claims(md.claims_path(module))
            for claim in claims:
                where = f"{module}/{claim['id']}"
                for q in (t for t in ve.tables({k: v for k, v in claim.items() if k != "expect_x"})
                          if "experiment" in t):
                    problems += self.check_quantity(where, q.get("module", module), q)
                problems += self.check_expected(where, module, claim)
        self.assertEqual(problems, [], "claims naming what the registry does not plan:\n" + "\n".join(problems))

    def test_every_hardware_limit_a_claim_or_a_figure_names_is_one_the_probe_measures(self):
        # device.json's keys are the probe's one list (harness/probe.hpp's limit_fields, and the
        # all-to-all key pattern); a claim's `limit` and a figure's hs.limits(...) key must be among them.
        hardware = registry()["hardware_limits"]
        known = {f["key"] for f in hardware["fields"]}
        pattern = re.compile(re.sub(r"\\\{\w+\\\}", r"\\d+", re.escape(hardware["all_to_all"]["key"])))
        named = []
        for module in md._claim_files():
            _, claims = ve.load_claims(md.claims_path(module))
            named += [(f"{module}/{c['id']}", key) for c in claims
                      for key in (t["limit"] for t in ve.tables(c) if isinstance(t.get("limit"), str))]
        for path in sorted(glob.glob(os.path.join(HERE, "*.py"))):
            with open(path) as f:
                text = f.read()
            named += [(os.path.basename(path), key) for key in re.findall(r'"([a-z0-9_]+_(?:gbps|gops_[a-z0-9]+))"', text)]
        unknown = [f"{where}: {key}" for where, key in named if key not in known and not pattern.fullmatch(key)]
        self.assertGreater(len(named), 10)
        self.assertEqual(unknown, [], "hardware limits the probe does not measure (known: " + ", ".join(sorted(known)) + ")")

    def check_quantity(self, where, module, q):
        key = (module, q["experiment"])
        if module not in self.modules:
            return [f"{where}: no module '{module}'"]
        if key not in self.experiments:
            names = [e["name"] for e in self.modules[module]["experiments"]]
            return [f"{where}: {module} has no experiment '{q['experiment']}' (it has {', '.join(names)})"]
        e = self.experiments[key]
        points = self.points(e)
        problems = []
        variants = set(e["variants"]) | {p[0] for p in points}
        for v in as_list(q.get("variant", [])):
            if v not in variants:
                problems.append(f"{where}: {module}/{e['name']} has no variant '{v}' (it has {', '.join(sorted(variants))})")
        if "param_name" in q and q["param_name"] not in {p[2] for p in points}:
            problems.append(f"{where}: {module}/{e['name']} sweeps no parameter '{q['param_name']}'")
        chosen = [p for p in points if "param_name" not in q or p[2] == q["param_name"]]
        for value in as_list(q.get("param", [])):
            if not any(p[3] is not None and same(p[3], value) for p in chosen):
                problems.append(f"{where}: {module}/{e['name']} plans no point at parameter {value!r}")
        if "n" in q and not any(same(float(p[1]), ve.parse_size(q["n"])) for p in points):
            problems.append(f"{where}: {module}/{e['name']} plans no point at n = {q['n']}")
        return problems

    def check_expected(self, where, module, claim):
        expected = claim.get("expect_x")
        a = claim.get("a")
        if expected is None or not isinstance(a, dict) or "experiment" not in a:
            return []
        key = (a.get("module", module), a["experiment"])
        if key not in self.experiments:
            return []  # check_quantity says so
        by_profile = expected if isinstance(expected, dict) else {p: expected for p in PROFILES}
        problems = []
        for profile, xs in by_profile.items():
            points = self.points(self.experiments[key], [profile])
            if claim.get("over") == "n":
                have = {float(p[1]) for p in points}
                wanted = [ve.parse_size(x) for x in xs]
            else:
                have = {p[3] for p in points if p[3] is not None}
                wanted = list(xs)
            for x in wanted:
                if not any(same(h, x) for h in have):
                    problems.append(f"{where}: expects x = {x!r} where {key[0]}/{key[1]}'s {profile} profile "
                                    "plans no point")
        return problems


if __name__ == "__main__":
    unittest.main()
