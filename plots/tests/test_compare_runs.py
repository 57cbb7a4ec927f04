"""scripts/compare_runs.py: two results folders compared point by point (the rows it joins, what
counts as moved, the rows of one run only), on two tiny folders written here."""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "compare_runs.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import compare_runs  # noqa: E402

FIELDS = ["paper", "experiment", "variant", "n", "param_name", "param_value", "metric", "median", "min", "max",
          "unit", "verified", "status"]


def row(variant, metric, median, lo, hi, unit="ms", n="1000", param=("", ""), status="ok"):
    return {"paper": "demo", "experiment": "exp", "variant": variant, "n": n, "param_name": param[0],
            "param_value": param[1], "metric": metric, "median": median, "min": lo, "max": hi, "unit": unit,
            "verified": "true", "status": status}


def write_run(folder, rows, limits=None):
    os.makedirs(os.path.join(folder, "demo"))
    with open(os.path.join(folder, "demo", "exp.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    if limits is not None:
        with open(os.path.join(folder, "device.json"), "w") as f:
            json.dump(dict(limits, device="GPU", fields={}), f)


class CompareRuns(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.old, self.new = os.path.join(self.dir.name, "old"), os.path.join(self.dir.name, "new")
        write_run(self.old, [
            row("a", "t_time", 1.0, 0.98, 1.02),                # 1.5x, ranges apart: moved
            row("b", "t_time", 1.0, 0.80, 1.40),                # 1.2x, ranges overlap: not moved
            row("c", "t_time", 1.0, 0.99, 1.01),                # 1.05x: within the threshold
            row("d", "phase_time", 2.0, 2.0, 2.0),              # once in both runs, 0.5x
            row("e", "t_time", 1.0, 0.99, 1.01, param=("p", "1")),  # old only
            row("f", "t_time", 1.0, 0.99, 1.01),                # skipped in the new run
            row("a", "t_rate", 1.0, 0.9, 1.1, unit="G/s"),      # not a time: not compared
        ], {"random_read_gops_large": 40.0})
        write_run(self.new, [
            row("a", "t_time", 1.5, 1.45, 1.55),
            row("b", "t_time", 1.2, 1.1, 1.3),
            row("c", "t_time", 1.05, 1.04, 1.06),
            row("d", "phase_time", 1.0, 1.0, 1.0),
            row("e", "t_time", 1.0, 0.99, 1.01, param=("p", "2")),  # new only
            row("f", "t_time", "", "", "", status="skipped"),
            row("a", "t_rate", 0.6, 0.5, 0.7, unit="G/s"),
        ], {"random_read_gops_large": 36.0})

    def tearDown(self):
        self.dir.cleanup()

    def test_rows_are_joined_at_the_same_point_and_judged_by_their_ranges(self):
        table = compare_runs.compare(compare_runs.load(self.old), compare_runs.load(self.new), 0.10)
        e = table[("demo", "exp")]
        self.assertEqual(e["compared"], 4)  # a, b, c, d: the times at points of both runs
        self.assertEqual(sorted(round(r, 3) for r in e["ratios"]), [0.5, 1.05, 1.2, 1.5])
        self.assertEqual([m[0][2] for m in e["moved"]], ["a"])
        self.assertEqual([m[0][2] for m in e["one_value"]], ["d"])
        self.assertEqual((e["only_new"], e["only_old"]), (1, 2))  # e at p=2; e at p=1 and f (skipped now)

    def test_the_threshold_decides_what_moved(self):
        table = compare_runs.compare(compare_runs.load(self.old), compare_runs.load(self.new), 0.6)
        self.assertEqual(table[("demo", "exp")]["moved"], [])

    def test_the_command_prints_the_limits_the_tables_and_the_moved_rows(self):
        done = subprocess.run([sys.executable, SCRIPT, self.old, self.new, "--moved"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("| random_read_gops_large | 40 | 36 | 0.9 |", done.stdout)
        self.assertIn("| exp | 4 | 1.12 | ", done.stdout)
        self.assertIn("1 moved (beyond 10%, ranges apart), 1 values recorded once beyond 10%", done.stdout)
        self.assertIn("moved: demo exp a 1000 - t_time: 1.0 [0.98-1.02] -> 1.5 [1.45-1.55] ms, 1.500", done.stdout)
        self.assertIn("one_value: demo exp d 1000 - phase_time: 2.0 [2.0-2.0] -> 1.0 [1.0-1.0] ms, 0.500", done.stdout)

    def test_a_folder_without_results_is_refused_with_its_name(self):
        empty = os.path.join(self.dir.name, "empty")
        os.makedirs(empty)
        done = subprocess.run([sys.executable, SCRIPT, self.old, empty], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("empty: no <module>/<experiment>.csv here", done.stderr)
        done = subprocess.run([sys.executable, SCRIPT, self.old, os.path.join(self.dir.name, "absent")],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("no such folder", done.stderr)

    def test_help_says_what_moved_means(self):
        done = subprocess.run([sys.executable, SCRIPT, "--help"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0)
        self.assertIn("ranges of repetitions", done.stdout)


if __name__ == "__main__":
    unittest.main()
