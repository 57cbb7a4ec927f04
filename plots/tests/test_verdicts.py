"""The verdict engine's rules (docs/verdicts.md) on synthetic result CSVs: each rule decides what
the rule book says, and a claim that cannot be evaluated says why."""
import csv
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import verdicts as ve  # noqa: E402

HEADER = ["paper", "experiment", "variant", "n", "param_name", "param_value", "metric", "median", "min", "max",
          "unit", "verified", "device", "timestamp", "git_sha", "repetitions", "note", "status"]


class Synthetic(unittest.TestCase):
    """A results folder written row by row; evaluate() runs one claim against it."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="verdicts_test_")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def rows(self, experiment, rows, module="m"):
        os.makedirs(os.path.join(self.dir, module), exist_ok=True)
        with open(os.path.join(self.dir, module, experiment + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(HEADER)
            for r in rows:
                full = {"paper": module, "experiment": experiment, "n": 1000, "param_name": "", "param_value": "",
                        "unit": "ms", "verified": "true", "device": "NVIDIA H100 80GB HBM3", "timestamp": "t",
                        "git_sha": "g", "repetitions": 5, "note": "", "status": "ok"}
                full.update(r)
                full.setdefault("min", full["median"])
                full.setdefault("max", full["median"])
                w.writerow([full[h] for h in HEADER])

    def evaluate(self, claim):
        claim = dict({"id": "c", "where": "s", "claim": "c"}, **claim)
        return ve.evaluate_claim(claim, ve.Results(self.dir), "m")

    def point(self, variant, metric, median, lo=None, hi=None, **extra):
        return dict(variant=variant, metric=metric, median=median, min=median if lo is None else lo,
                    max=median if hi is None else hi, **extra)


class Rule1Noise(Synthetic):
    def ratio_claim(self):
        return {"rule": "bound", "a": {"experiment": "e", "variant": "fast", "metric": "rate"},
                "b": {"experiment": "e", "variant": "slow", "metric": "rate"}, "at_least": 1.0}

    def test_a_ratio_that_holds_at_the_worst_repetition_is_reproduced(self):
        self.rows("e", [self.point("fast", "rate", 2.0, 1.9, 2.1), self.point("slow", "rate", 1.0, 0.9, 1.1)])
        self.assertEqual(self.evaluate(self.ratio_claim()).verdict, ve.REPRODUCED)

    def test_a_ratio_that_holds_at_the_median_only_is_partly(self):
        self.rows("e", [self.point("fast", "rate", 1.1, 0.8, 1.2), self.point("slow", "rate", 1.0, 0.9, 1.1)])
        v = self.evaluate(self.ratio_claim())
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("worst repetition", v.reason)

    def test_a_ratio_that_fails_at_the_median_is_not_reproduced(self):
        self.rows("e", [self.point("fast", "rate", 0.9, 0.8, 1.2), self.point("slow", "rate", 1.0, 0.9, 1.1)])
        self.assertEqual(self.evaluate(self.ratio_claim()).verdict, ve.NOT_REPRODUCED)

    def test_a_sweep_that_holds_at_some_points_is_partly_and_names_the_others(self):
        self.rows("e", [self.point("fast", "rate", 2.0, n=1 << 20), self.point("slow", "rate", 1.0, n=1 << 20),
                        self.point("fast", "rate", 0.5, n=1 << 22), self.point("slow", "rate", 1.0, n=1 << 22)])
        v = self.evaluate(dict(self.ratio_claim(), over="n"))
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("N=4Mi", v.reason)

    def test_an_expected_point_without_a_verified_measurement_does_not_hold(self):
        self.rows("e", [self.point("fast", "rate", 2.0, n=1 << 20), self.point("slow", "rate", 1.0, n=1 << 20),
                        dict(self.point("fast", "rate", 2.0, n=1 << 22), verified="false"),
                        self.point("slow", "rate", 1.0, n=1 << 22)])
        claim = dict(self.ratio_claim(), over="n")
        for c in (claim, dict(claim, expect_x=["1Mi", "4Mi"])):  # with or without the list of its points
            v = self.evaluate(c)
            self.assertEqual(v.verdict, ve.PARTLY)
            self.assertIn("no verified point at N=4Mi (failed)", v.reason)

    def test_expected_points_by_profile_hold_each_run_to_its_own(self):
        self.rows("e", [self.point("fast", "rate", 2.0, n=100e6), self.point("slow", "rate", 1.0, n=100e6),
                        self.point("fast", "rate", 2.0, n=250e6), self.point("slow", "rate", 1.0, n=250e6)])
        claim = dict(self.ratio_claim(), over="n",
                     expect_x={"quick": ["20M", "100M"], "full": ["100M", "250M"]})
        with open(os.path.join(self.dir, "m", "e.json"), "w") as f:
            json.dump({"profile": "full"}, f)
        self.assertEqual(self.evaluate(claim).verdict, ve.REPRODUCED)
        with open(os.path.join(self.dir, "m", "e.json"), "w") as f:
            json.dump({"profile": "quick"}, f)
        v = self.evaluate(claim)
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("no verified point at N=20M", v.reason)
        os.remove(os.path.join(self.dir, "m", "e.json"))  # no sidecar: no profile, nothing expected
        self.assertEqual(self.evaluate(claim).verdict, ve.REPRODUCED)

    def test_expected_points_count_in_every_sweep_rule(self):
        self.rows("e", [self.point("v", "t", 3.0, n=1), self.point("v", "t", 2.0, n=2),
                        dict(self.point("v", "t", 5.0, n=3), verified="false")])
        claim = {"rule": "trend", "a": {"experiment": "e", "metric": "t"}, "over": "n", "direction": "falling"}
        for c in (claim, dict(claim, expect_x=[1, 2, 3])):
            v = self.evaluate(c)
            self.assertEqual(v.verdict, ve.PARTLY)
            self.assertIn("no verified point at N=3 (failed)", v.reason)
        v = self.evaluate(dict(claim, expect_x=[1, 2, 3, 4]))  # a listed point the CSV does not hold at all
        self.assertIn("N=4 (not in the results)", v.reason)

    def test_any_quantifier_needs_one_point(self):
        self.rows("e", [self.point("fast", "rate", 2.0, n=1 << 20), self.point("slow", "rate", 1.0, n=1 << 20),
                        self.point("fast", "rate", 0.5, n=1 << 22), self.point("slow", "rate", 1.0, n=1 << 22)])
        self.assertEqual(self.evaluate(dict(self.ratio_claim(), over="n", quantifier="any")).verdict, ve.REPRODUCED)

    def test_a_papers_factor_not_reached_is_not_reproduced(self):
        self.rows("e", [self.point("fast", "rate", 64.0), self.point("slow", "rate", 1.0)])
        self.assertEqual(self.evaluate(dict(self.ratio_claim(), at_least=78)).verdict, ve.NOT_REPRODUCED)

    def test_about_is_within_a_factor_of_one_and_a_quarter(self):
        self.rows("e", [self.point("fast", "share", 0.848)])
        claim = {"rule": "bound", "a": {"experiment": "e", "metric": "share"}, "about": 0.741}
        self.assertEqual(self.evaluate(claim).verdict, ve.REPRODUCED)
        self.assertEqual(self.evaluate(dict(claim, about=0.5)).verdict, ve.NOT_REPRODUCED)

    def test_a_falling_trend_with_overlapping_repetitions_is_partly(self):
        self.rows("e", [self.point("v", "t", 3.0, 2.9, 3.1, n=1), self.point("v", "t", 2.0, 1.9, 3.0, n=2),
                        self.point("v", "t", 1.0, 0.9, 1.1, n=3)])
        claim = {"rule": "trend", "a": {"experiment": "e", "metric": "t"}, "over": "n", "direction": "falling"}
        self.assertEqual(self.evaluate(claim).verdict, ve.PARTLY)
        self.assertEqual(self.evaluate(dict(claim, direction="rising")).verdict, ve.NOT_REPRODUCED)

    def test_an_optimum_tied_with_a_point_outside_the_range_is_partly(self):
        self.rows("e", [self.point("v", "r", 10.0, 9.5, 10.5, param_name="f", param_value=4),
                        self.point("v", "r", 9.8, 9.6, 10.2, param_name="f", param_value=2),
                        self.point("v", "r", 5.0, param_name="f", param_value=1.1)])
        claim = {"rule": "best_at", "a": {"experiment": "e", "metric": "r"}, "over": "param", "within": [3, 5]}
        self.assertEqual(self.evaluate(claim).verdict, ve.PARTLY)
        self.assertEqual(self.evaluate(dict(claim, within=[1.5, 5])).verdict, ve.REPRODUCED)
        self.assertEqual(self.evaluate(dict(claim, within=[1, 1.2])).verdict, ve.NOT_REPRODUCED)

    def test_first_point_reaching_a_bound(self):
        self.rows("e", [self.point("v", "ok", 0, param_name="f", param_value=1.05),
                        self.point("v", "ok", 1, param_name="f", param_value=1.1),
                        self.point("v", "ok", 1, param_name="f", param_value=1.2)])
        claim = {"rule": "first_at", "a": {"experiment": "e", "metric": "ok"}, "over": "param",
                 "reaches": {"at_least": 1}, "within": [1.08, 1.12]}
        self.assertEqual(self.evaluate(claim).verdict, ve.REPRODUCED)
        self.assertEqual(self.evaluate(dict(claim, within=[1.15, 1.3])).verdict, ve.NOT_REPRODUCED)

    def test_spread_uses_the_extremes_of_the_repetitions(self):
        self.rows("e", [self.point("v", "r", 1.0, 0.9, 1.0, param_name="f", param_value=1),
                        self.point("v", "r", 1.1, 1.1, 1.2, param_name="f", param_value=2)])
        claim = {"rule": "spread", "a": {"experiment": "e", "metric": "r"}, "over": "param", "at_most": 1.2}
        self.assertEqual(self.evaluate(claim).verdict, ve.PARTLY)  # 1.1 at the median, 1.33 at the worst

    def test_linear_within_tolerance(self):
        self.rows("e", [self.point("v", "t", 1.0, param_name="f", param_value=0),
                        self.point("v", "t", 1.52, param_name="f", param_value=0.5),
                        self.point("v", "t", 2.0, param_name="f", param_value=1)])
        claim = {"rule": "linear", "a": {"experiment": "e", "metric": "t"}, "over": "param", "at_most": 0.05}
        self.assertEqual(self.evaluate(claim).verdict, ve.REPRODUCED)
        self.assertEqual(self.evaluate(dict(claim, at_most=0.001)).verdict, ve.NOT_REPRODUCED)

    def linear_claim(self, times, spreads=None):
        ms = [1, 2, 4, 8, 16, 32, 64]
        spreads = spreads or [0.0] * len(ms)
        self.rows("e", [self.point("v", "t", t, t * (1 - d), t * (1 + d), param_name="m", param_value=m)
                        for m, t, d in zip(ms, times, spreads)])
        return self.evaluate({"rule": "linear", "a": {"experiment": "e", "metric": "t"}, "over": "param",
                              "at_most": 0.25})

    def test_linear_growth_is_reproduced(self):
        self.assertEqual(self.linear_claim([2.9 + 0.15 * m for m in (1, 2, 4, 8, 16, 32, 64)]).verdict,
                         ve.REPRODUCED)

    def test_a_flat_series_fails_a_claim_of_linear_growth(self):
        v = self.linear_claim([2.9] * 7)
        self.assertEqual(v.verdict, ve.NOT_REPRODUCED)
        self.assertIn("a flat line fits as well", v.reason)

    def test_a_quadratic_series_fails_a_claim_of_linear_growth(self):
        v = self.linear_claim([2.9 + 0.01 * m * m for m in (1, 2, 4, 8, 16, 32, 64)])
        self.assertEqual(v.verdict, ve.NOT_REPRODUCED)
        self.assertIn("off the line", v.reason)

    def test_a_falling_line_fails_a_claim_of_growth(self):
        v = self.linear_claim([12.0 - 0.15 * m for m in (1, 2, 4, 8, 16, 32, 64)])
        self.assertEqual(v.verdict, ve.NOT_REPRODUCED)
        self.assertIn("the line falls", v.reason)

    def test_linear_whose_repetitions_allow_a_flat_series_is_partly(self):
        # A rise of 1.8x at the medians, but each point's repetitions span +-20%: a flat choice fits.
        v = self.linear_claim([1.0, 1.0125, 1.0375, 1.0875, 1.1875, 1.3875, 1.7875], [0.2] * 7)
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("worst repetition", v.reason)


class Rule1Ranges(Synthetic):
    def claim(self, ratio, **bounds):
        self.rows("e", [self.point("fast", "rate", ratio), self.point("slow", "rate", 1.0)])
        return self.evaluate(dict({"rule": "bound", "a": {"experiment": "e", "variant": "fast", "metric": "rate"},
                                   "b": {"experiment": "e", "variant": "slow", "metric": "rate"}}, **bounds))

    def test_a_range_holds_between_its_ends(self):
        self.assertEqual(self.claim(3.0, within=[1.16, 5.39]).verdict, ve.REPRODUCED)

    def test_a_range_fails_below_its_lower_end(self):
        self.assertEqual(self.claim(1.1, within=[1.16, 5.39]).verdict, ve.NOT_REPRODUCED)

    def test_above_the_upper_end_of_a_range_says_so(self):
        v = self.claim(7.05, within=[1.16, 5.39])
        self.assertEqual(v.verdict, ve.NOT_REPRODUCED)
        self.assertIn("above the upper end of the claimed range (5.39)", v.reason)

    def test_a_figure_exceeded_by_more_than_a_quarter_says_so(self):
        v = self.claim(4.0, about=2.03)
        self.assertEqual(v.verdict, ve.NOT_REPRODUCED)
        self.assertIn("more than 1.25x the paper's 2.03", v.reason)
        self.assertEqual(self.claim(2.4, about=2.03).verdict, ve.REPRODUCED)
        self.assertEqual(self.claim(4.0, at_least=2.03).verdict, ve.REPRODUCED)  # a factor we exceed


class Rule5Choice(Synthetic):
    def claim(self, rows, at_least):
        self.rows("e", rows + [self.point("base", "rate", 1.0)])
        return self.evaluate({"rule": "bound", "a": {"experiment": "e", "variant": ["x", "y", "z"], "metric": "rate",
                                                     "pick": "max", "label": "best of x, y, z"},
                              "b": {"experiment": "e", "variant": "base", "metric": "rate"}, "at_least": at_least})

    def test_a_choice_the_repetitions_cannot_make_is_judged_at_its_weakest_candidate(self):
        # x has the best median, but y's and z's ranges reach it: at the worst repetition the choice
        # may be z, whose minimum is 0.8.
        rows = [self.point("x", "rate", 1.2, 1.1, 1.3), self.point("y", "rate", 1.15, 1.0, 1.3),
                self.point("z", "rate", 1.05, 0.8, 1.1)]
        v = self.claim(rows, 1.0)
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("chosen by the median (rule 5): best of x, y, z: x (tied with y, z)", v.measured)

    def test_a_clear_choice_is_judged_on_the_chosen_variant(self):
        rows = [self.point("x", "rate", 1.2, 1.15, 1.25), self.point("y", "rate", 0.9, 0.85, 0.95),
                self.point("z", "rate", 0.5, 0.4, 0.6)]
        v = self.claim(rows, 1.1)
        self.assertEqual(v.verdict, ve.REPRODUCED)
        self.assertIn("best of x, y, z: x", v.measured)
        self.assertNotIn("tied", v.measured)

    def test_a_failed_candidate_is_a_finding_of_the_choice(self):
        rows = [self.point("x", "rate", 1.2, 1.15, 1.25), dict(self.point("y", "rate", 2.0), verified="false"),
                self.point("z", "rate", 0.5)]
        v = self.claim(rows, 1.1)
        self.assertEqual(v.verdict, ve.NOT_REPRODUCED)
        self.assertIn("(failed)", v.reason)


class DerivedQuantities(Synthetic):
    def test_a_sum_of_kernels_carries_their_spread(self):
        rows = [self.point("bsp", "kernel_a_time", 1.0, 0.8, 1.2), self.point("bsp", "kernel_b_time", 2.0, 1.9, 2.5),
                self.point("bsp", "kernel_sum_time", 3.0), self.point("bsp", "join_time", 3.5, 3.4, 3.6)]
        self.rows("profile", rows, module="pkpk_join")
        s = ve.quantity(ve.Results(self.dir), {"experiment": "profile", "variant": "bsp", "metric": "kernel_sum_time"},
                        "pkpk_join", None)
        v = s.points[None]
        self.assertEqual((v.median, v.lo, v.hi), (3.0, 2.7, 3.7))

    def test_a_derived_sum_that_no_longer_matches_its_parts_is_an_error(self):
        self.rows("profile", [self.point("bsp", "kernel_a_time", 1.0), self.point("bsp", "kernel_sum_time", 5.0)],
                  module="pkpk_join")
        with self.assertRaises(ve.ClaimError):
            ve.quantity(ve.Results(self.dir), {"experiment": "profile", "variant": "bsp", "metric": "kernel_sum_time"},
                        "pkpk_join", None)

    def test_a_share_of_one_timing_takes_the_timings_range(self):
        self.rows("bandwidth_share", [self.point("c", "build_time", 10.0, 8.0, 12.5), self.point("c", "pin_share", 0.06)],
                  module="cuckoo")
        v = ve.quantity(ve.Results(self.dir), {"experiment": "bandwidth_share", "variant": "c", "metric": "pin_share"},
                        "cuckoo", None).points[None]
        self.assertAlmostEqual(v.lo, 0.048)
        self.assertAlmostEqual(v.hi, 0.075)

    def phase_share_claim(self, at_least):
        return {"id": "c", "where": "s", "claim": "c", "rule": "bound", "at_least": at_least,
                "a": {"experiment": "sp_breakdown", "variant": "sp_ega", "metric": "phase4_time"},
                "b": {"experiment": "sp_breakdown", "variant": "sp_ega", "metric": "total_time"}}

    def test_a_median_of_medians_is_judged_at_the_median_only(self):
        # The committed runs' sp_breakdown: each phase's median only (min = max), the total their sum.
        self.rows("sp_breakdown", [self.point("sp_ega", "phase1_time", 1.0), self.point("sp_ega", "phase4_time", 3.0),
                                   self.point("sp_ega", "total_time", 4.0)], module="ega")
        v = ve.evaluate_claim(self.phase_share_claim(0.5), ve.Results(self.dir), "ega")
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("not recorded", v.reason)

    def test_phases_timed_with_their_repetitions_are_judged_at_the_worst_one(self):
        # Newer runs record each phase's range; the total's range is the sum of the phases' ranges,
        # so phase 4's share at the worst repetition is 2.8 / (1.2 + 3.3) = 0.62 (median 0.75).
        self.rows("sp_breakdown", [self.point("sp_ega", "phase1_time", 1.0, 0.9, 1.2),
                                   self.point("sp_ega", "phase4_time", 3.0, 2.8, 3.3),
                                   self.point("sp_ega", "total_time", 4.0)], module="ega")
        held = ve.evaluate_claim(self.phase_share_claim(0.6), ve.Results(self.dir), "ega")
        self.assertEqual(held.verdict, ve.REPRODUCED)
        self.assertNotIn("not recorded", held.reason)
        worst = ve.evaluate_claim(self.phase_share_claim(0.7), ve.Results(self.dir), "ega")
        self.assertEqual(worst.verdict, ve.PARTLY)
        self.assertNotIn("not recorded", worst.reason)

    def test_a_total_that_is_not_the_sum_of_its_phases_is_an_error(self):
        self.rows("sp_breakdown", [self.point("sp_ega", "phase1_time", 1.0, 0.9, 1.2),
                                   self.point("sp_ega", "phase4_time", 3.0, 2.8, 3.3),
                                   self.point("sp_ega", "total_time", 5.0)], module="ega")
        with self.assertRaises(ve.ClaimError):
            ve.evaluate_claim(self.phase_share_claim(0.5), ve.Results(self.dir), "ega")

    def test_a_number_from_the_configuration_decides_no_claim(self):
        self.rows("mp_vs_cpu", [self.point("mp_ega", "data_over_budget", 8.0)], module="ega")
        claim = {"id": "c", "where": "s", "claim": "c", "rule": "bound", "at_least": 2,
                 "a": {"experiment": "mp_vs_cpu", "variant": "mp_ega", "metric": "data_over_budget"}}
        with self.assertRaises(ve.ClaimError):
            ve.evaluate_claim(claim, ve.Results(self.dir), "ega")
        beside = dict(claim, rule="measured", ours=True)  # information may show it
        self.assertEqual(ve.evaluate_claim(beside, ve.Results(self.dir), "ega").verdict, ve.MEASURED)


class FindingsInEverySweep(Synthetic):
    def test_a_skipped_point_is_a_finding(self):
        self.rows("e", [self.point("v", "t", 3.0, n=1), self.point("v", "t", 2.0, n=2),
                        dict(self.point("v", "status", 0, n=3), verified="false", status="skipped")])
        v = self.evaluate({"rule": "trend", "a": {"experiment": "e", "variant": "v", "metric": "t"}, "over": "n",
                           "direction": "falling"})
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("N=3 (skipped)", v.reason)

    def test_a_point_the_host_cannot_run_is_named_with_its_reason_not_as_a_failure(self):
        # A host of 2 GPUs skips the point of 4 with the run's reason: the bound holds where it was
        # measured, is undecided at 4 (partly, never reproduced) and says why; it is not "not at 4".
        note = "skipped: needs 4 GPUs, this host has 2 (--servers-share-gpu yes runs it)"
        self.rows("e", [self.point("v", "load", 1.02, 1.01, 1.03, n=2),
                        dict(self.point("v", "status", 0, n=4), verified="false", status="skipped", note=note)])
        claim = {"rule": "bound", "a": {"experiment": "e", "variant": "v", "metric": "load"}, "over": "n",
                 "at_most": 1.1}
        v = self.evaluate(claim)
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("holds at N=2, the only measured point", v.reason)
        self.assertIn("N=4 (skipped: needs 4 GPUs, this host has 2)", v.reason)
        self.assertNotIn("not at", v.reason)
        # Measured and above the bound: not reproduced where it was measured, undecided at 4.
        v = self.evaluate(dict(claim, at_most=1.0))
        self.assertEqual(v.verdict, ve.NOT_REPRODUCED)
        self.assertIn("is not <= 1 at N=2", v.reason)
        self.assertIn("N=4 (skipped: needs 4 GPUs, this host has 2)", v.reason)
        # A claim of the skipped point alone is not measured, with the run's reason.
        v = self.evaluate({"rule": "bound", "a": {"experiment": "e", "variant": "v", "metric": "load", "n": 4},
                           "at_most": 1.1})
        self.assertEqual(v.verdict, ve.NOT_MEASURED)
        self.assertIn("(skipped: needs 4 GPUs, this host has 2)", v.reason)

    def test_a_csv_holding_fewer_points_than_its_run_planned_is_incomplete(self):
        self.rows("e", [self.point("v", "t", 3.0, n=1), self.point("v", "t", 2.0, n=2)])
        with open(os.path.join(self.dir, "m", "e.json"), "w") as f:
            json.dump({"profile": "quick", "points": 3}, f)
        v = self.evaluate({"rule": "trend", "a": {"experiment": "e", "variant": "v", "metric": "t"}, "over": "n",
                           "direction": "falling"})
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("holds 2 of the 3 points its run planned", v.reason)

    def test_correct_results_are_refuted_by_a_failed_point(self):
        claim = {"rule": "verified", "a": {"experiment": "e", "variant": "v", "metric": "t"}, "over": "n"}
        self.rows("e", [self.point("v", "t", 1.0, n=1), self.point("v", "t", 2.0, n=2)])
        self.assertEqual(self.evaluate(claim).verdict, ve.REPRODUCED)
        self.rows("e", [self.point("v", "t", 1.0, n=1), dict(self.point("v", "t", 2.0, n=2), verified="false")])
        v = self.evaluate(claim)
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("verification failed at N=2", v.reason)
        self.rows("e", [dict(self.point("v", "t", 1.0, n=1), verified="false")])
        self.assertEqual(self.evaluate(claim).verdict, ve.NOT_REPRODUCED)

    def test_counting_metrics(self):
        self.rows("profile", [self.point("bsp", "kernel_a_rate", 1.0, unit="Grows/s"),
                              self.point("bsp", "kernel_b_rate", 1.0, unit="Gsamples/s"),
                              self.point("bsp", "kernel_c_rate", 1.0, unit="Grows/s")])
        v = self.evaluate({"rule": "bound", "at_most": 3, "a": {"experiment": "profile", "variant": "bsp",
                           "count_metrics": {"pattern": "kernel_*_rate", "unit": "Grows/s"}, "label": "passes"}})
        self.assertEqual(v.verdict, ve.REPRODUCED)
        self.assertIn("passes: 2 (kernel_a_rate, kernel_c_rate)", v.measured)


class Rule6OtherSystems(Synthetic):
    def test_a_claim_judged_through_a_stand_in_says_so(self):
        self.rows("e", [self.point("v", "rate", 2.0)])
        v = self.evaluate({"rule": "bound", "a": {"experiment": "e", "metric": "rate"}, "at_least": 1,
                           "system": "cuDF", "stand_in": "our linear-probing table", "differs": "not cuDF's code"})
        self.assertEqual(v.verdict, ve.REPRODUCED)
        self.assertTrue(v.reason.startswith("through our linear-probing table, not cuDF: not cuDF's code"), v.reason)

    def test_a_claim_about_another_system_without_its_stand_in_is_refused(self):
        with self.assertRaises(ve.ClaimError):
            ve.check_claim({"id": "c", "where": "s", "claim": "c", "rule": "bound", "system": "Crystal"}, "c")
        ve.check_claim({"id": "c", "where": "s", "claim": "c", "rule": "not_measured", "reason": "not built",
                        "system": "Crystal"}, "c")


class Rule3Observed(Synthetic):
    def test_no_relaunch_in_20_runs_admits_a_rate_its_interval_holds(self):
        self.rows("e", [self.point("v", "relaunched", 96, param_name="keys", param_value=10000),
                        self.point("v", "runs", 1000, param_name="keys", param_value=10000),
                        self.point("v", "relaunched", 0, param_name="keys", param_value=100),
                        self.point("v", "runs", 100, param_name="keys", param_value=100)])
        claim = {"rule": "proportion", "observed": [0, 20], "over": "param", "x_label": "keys",
                 "events": {"experiment": "e", "metric": "relaunched"}, "trials": {"experiment": "e", "metric": "runs"}}
        v = self.evaluate(claim)
        self.assertEqual(v.verdict, ve.REPRODUCED)  # 9.6% in [7.85%, 11.60%] lies inside 0 of 20's [0, 16.84%]
        self.assertIn("the paper's 0 of 20 admits [0.00%, 16.84%]", v.measured)
        self.assertIn("0 or fewer in 20 trials has probability 13.29%", v.measured)
        self.rows("e", [self.point("v", "relaunched", 300, param_name="keys", param_value=10000),
                        self.point("v", "runs", 1000, param_name="keys", param_value=10000),
                        self.point("v", "relaunched", 0, param_name="keys", param_value=100),
                        self.point("v", "runs", 100, param_name="keys", param_value=100)])
        v = self.evaluate(claim)
        self.assertEqual(v.verdict, ve.PARTLY)
        self.assertIn("excludes the claimed range at keys 10K", v.reason)


class InformationRows(Synthetic):
    def test_a_measured_row_is_ours_or_says_why_the_papers_claim_is_information(self):
        base = {"id": "c", "where": "s", "claim": "c", "rule": "measured"}
        with self.assertRaises(ve.ClaimError):
            ve.check_claim(base, "c")
        ve.check_claim(dict(base, ours=True), "c")
        ve.check_claim(dict(base, information="the paper gives no number to judge"), "c")
        self.rows("e", [self.point("v", "rate", 2.0)])
        v = self.evaluate(dict(base, a={"experiment": "e", "metric": "rate"}, information="no number to judge"))
        self.assertEqual((v.verdict, v.ours, v.information), (ve.MEASURED, False, "no number to judge"))
        self.assertFalse(v.judged)


class Rule3Proportions(Synthetic):
    def claim(self, events, trials, value=0.0056):
        self.rows("e", [self.point("v", "failed_attempt_fraction", events / trials),
                        self.point("v", "attempts", trials)])
        return self.evaluate({"rule": "proportion", "value": value,
                              "events": {"experiment": "e", "metric": "failed_attempt_fraction", "fraction": True},
                              "trials": {"experiment": "e", "metric": "attempts"}})

    def test_no_failure_in_200_trials_does_not_decide_a_claimed_0_56_percent(self):
        v = self.claim(0, 200)
        self.assertEqual(v.verdict, ve.NOT_MEASURED)
        self.assertIn("undecided", v.reason)
        self.assertIn("trials", v.reason)

    def test_no_failure_in_2000_trials_refutes_it(self):
        self.assertEqual(self.claim(0, 2000).verdict, ve.NOT_REPRODUCED)

    def test_the_claimed_rate_with_enough_trials_is_reproduced(self):
        self.assertEqual(self.claim(28, 5000).verdict, ve.REPRODUCED)

    def test_clopper_pearson_matches_known_intervals(self):
        lo, hi = ve.clopper_pearson(0, 200)
        self.assertAlmostEqual(hi, 0.01826, places=4)
        lo, hi = ve.clopper_pearson(5, 1000)
        self.assertAlmostEqual(lo, 0.001624, places=5)
        self.assertAlmostEqual(hi, 0.011629, places=5)


class MissingAndInformation(Synthetic):
    def test_a_missing_experiment_is_not_measured_with_its_reason(self):
        v = self.evaluate({"rule": "bound", "a": {"experiment": "absent", "metric": "rate"}, "at_least": 1})
        self.assertEqual(v.verdict, ve.NOT_MEASURED)
        self.assertIn("no results for m/absent.csv", v.reason)

    def test_failed_points_are_not_used(self):
        self.rows("e", [dict(self.point("v", "rate", 5.0), verified="false")])
        v = self.evaluate({"rule": "bound", "a": {"experiment": "e", "metric": "rate"}, "at_least": 1})
        self.assertEqual(v.verdict, ve.NOT_MEASURED)
        self.assertIn("no verified rows", v.reason)

    def test_a_verdict_on_sampled_points_says_so(self):
        self.rows("e", [dict(self.point("v", "rate", 5.0), verified="sampled")])
        v = self.evaluate({"rule": "bound", "a": {"experiment": "e", "metric": "rate"}, "at_least": 1})
        self.assertEqual(v.verdict, ve.REPRODUCED)
        self.assertTrue(v.sampled)

    def test_not_measured_needs_a_reason(self):
        with self.assertRaises(ve.ClaimError):
            self.evaluate({"rule": "not_measured"})
        v = self.evaluate({"rule": "not_measured", "reason": "the two-level table is not built"})
        self.assertEqual((v.verdict, v.reason), (ve.NOT_MEASURED, "the two-level table is not built"))

    def test_an_absolute_figure_is_information_scaled_by_bandwidth(self):
        self.rows("e", [self.point("v", "build_time", 4.95)])
        v = self.evaluate({"rule": "absolute", "a": {"experiment": "e", "metric": "build_time"},
                           "figure": {"value": 130, "unit": "ms", "kind": "time", "gpu": "GTX 470"}})
        self.assertEqual(v.verdict, ve.MEASURED)
        self.assertIn("5.19 ms", v.measured)  # 130 ms x 133.9 / 3352

    def test_an_ambiguous_selector_is_an_error_not_a_guess(self):
        self.rows("e", [self.point("a", "rate", 1.0), self.point("b", "rate", 2.0)])
        with self.assertRaises(ve.ClaimError):
            self.evaluate({"rule": "bound", "a": {"experiment": "e", "metric": "rate"}, "at_least": 1})
        v = self.evaluate({"rule": "bound", "a": {"experiment": "e", "metric": "rate", "pick": "max"}, "at_least": 1.5})
        self.assertEqual(v.verdict, ve.REPRODUCED)

    def test_a_typo_in_a_quantity_is_an_error(self):
        self.rows("e", [self.point("a", "rate", 1.0)])
        with self.assertRaises(ve.ClaimError):
            self.evaluate({"rule": "bound", "a": {"experiment": "e", "metirc": "rate"}, "at_least": 1})

    def test_a_sum_of_quantities_adds_medians_and_extremes(self):
        self.rows("e", [self.point("v", "phase1", 1.0, 0.9, 1.1), self.point("v", "phase2", 2.0, 1.8, 2.2),
                        self.point("v", "total", 2.5)])
        claim = {"rule": "bound", "a": {"sum": [{"experiment": "e", "metric": "phase1"},
                                                {"experiment": "e", "metric": "phase2"}]},
                 "b": {"experiment": "e", "metric": "total"}, "at_least": 1.15}
        v = self.evaluate(claim)
        self.assertEqual(v.verdict, ve.PARTLY)  # 3.0 / 2.5 = 1.2 at the median, 2.7 / 2.5 = 1.08 at the worst
        self.assertIn("1.2", v.measured)

    def test_the_winner_of_a_question_and_a_tie(self):
        self.rows("e", [self.point("a", "rate", 2.0, 1.5, 2.5), self.point("b", "rate", 1.9, 1.8, 2.0)])
        v = self.evaluate({"rule": "winner", "candidates": [{"experiment": "e", "variant": "a", "metric": "rate"},
                                                            {"experiment": "e", "variant": "b", "metric": "rate"}]})
        self.assertEqual(v.verdict, ve.MEASURED)
        self.assertIn("a, 1.05x over b (tied", v.reason)

    def test_a_winner_question_without_results_names_the_missing_file(self):
        self.rows("other", [self.point("a", "rate", 2.0)])
        claim = {"rule": "winner", "candidates": [{"experiment": "e", "variant": "a", "metric": "rate"},
                                                  {"experiment": "e", "variant": "b", "metric": "rate"}]}
        v = self.evaluate(claim)
        self.assertEqual(v.verdict, ve.NOT_MEASURED)
        self.assertTrue(v.reason.startswith("no results for m/e.csv"), v.reason)
        self.rows("e", [self.point("a", "rate", 2.0)])  # one candidate measured: not a missing file
        self.assertEqual(self.evaluate(claim).reason, "fewer than two candidates measured at any point")


    def test_another_winner_is_another_verdict(self):
        question = {"rule": "winner", "candidates": [{"experiment": "e", "variant": "a", "metric": "rate"},
                                                     {"experiment": "e", "variant": "b", "metric": "rate"}]}
        self.rows("e", [self.point("a", "rate", 2.0), self.point("b", "rate", 1.0)])
        first = self.evaluate(question)
        self.rows("e", [self.point("a", "rate", 3.0), self.point("b", "rate", 1.0)])
        same_winner = self.evaluate(question)
        self.rows("e", [self.point("a", "rate", 1.0), self.point("b", "rate", 2.0)])
        other_winner = self.evaluate(question)
        self.assertEqual((first.verdict, first.answer), (ve.MEASURED, ("a",)))
        self.assertFalse(ve.differs(first, same_winner))
        self.assertTrue(ve.differs(first, other_winner))
        self.assertFalse(ve.differs(first, first))


class SizeRelativeParameters(Synthetic):
    """A parameter that scales with the size (0.99 n groups) selects the same point at every n."""

    def test_param_per_n_selects_that_fraction_of_each_points_n(self):
        # 0.99 x 8Mi = 8,304,721.92 and 0.99 x 64Mi = 66,437,775.36; the CSV keeps 6 digits (6.64378e+07).
        self.rows("e", [self.point("v", "rate", 2.0, n=1 << 23, param_name="groups", param_value=8304721),
                        self.point("v", "rate", 9.0, n=1 << 23, param_name="groups", param_value=1 << 23),
                        self.point("v", "rate", 3.0, n=1 << 26, param_name="groups", param_value=6.64378e+07),
                        self.point("v", "rate", 9.0, n=1 << 26, param_name="groups", param_value=1 << 26)])
        s = ve.quantity(ve.Results(self.dir), {"experiment": "e", "metric": "rate", "param_per_n": 0.99,
                                               "x": "n"}, "m", None)
        self.assertEqual({x: v.median for x, v in s.points.items()}, {1 << 23: 2.0, 1 << 26: 3.0})

    def test_x_in_per_n_limits_a_sweep_relative_to_n(self):
        n = 1 << 26
        self.rows("e", [self.point("v", "rate", r, n=n, param_name="groups", param_value=g)
                        for g, r in ((10, 1.0), (1e7, 2.0), (6.64378e+07, 3.0), (n, 4.0))])
        s = ve.quantity(ve.Results(self.dir), {"experiment": "e", "metric": "rate", "x_in_per_n": [0, 0.99]},
                        "m", "param")
        self.assertEqual(sorted(s.points), [10, 1e7, 6.64378e+07])
        with self.assertRaises(ve.ClaimError):
            ve.quantity(ve.Results(self.dir), {"experiment": "e", "metric": "rate", "x_in_per_n": [0, 0.99]},
                        "m", "n")


class AboutHardware(Synthetic):
    def test_a_claim_reading_a_limit_or_an_absolute_figure_is_about_the_hardware(self):
        rate = {"experiment": "e", "metric": "rate"}
        self.assertTrue(ve.about_hardware({"rule": "bound", "a": rate, "b": {"limit": "copy_gbps"}}))
        self.assertTrue(ve.about_hardware({"rule": "bound", "a": {"ratio": [rate, {"limit": "copy_gbps"}]}}))
        self.assertTrue(ve.about_hardware({"rule": "absolute", "a": rate}))
        self.assertFalse(ve.about_hardware({"rule": "bound", "a": rate, "b": rate}))

    def test_the_claim_file_can_mark_or_unmark_it(self):
        rate = {"experiment": "e", "metric": "rate"}
        self.assertTrue(ve.about_hardware({"rule": "bound", "a": rate, "hardware": True}))
        self.assertFalse(ve.about_hardware({"rule": "absolute", "a": rate, "hardware": False}))
        self.rows("e", [self.point("v", "rate", 2.0)])
        self.assertTrue(self.evaluate({"rule": "bound", "a": rate, "at_least": 1, "hardware": True}).hardware)


class ClaimFiles(unittest.TestCase):
    def refused(self, text):
        """The ClaimError a claim file of this text raises."""
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write('[[claim]]\nid = "x"\nwhere = "1"\nclaim = "c"\nrule = "bound"\n' + text)
        try:
            with self.assertRaises(ve.ClaimError) as e:
                ve.load_claims(f.name)
            return str(e.exception)
        finally:
            os.unlink(f.name)

    def test_a_claim_file_with_an_unknown_field_is_refused(self):
        self.assertIn("at_leest", self.refused("at_leest = 1\n"))

    def test_expected_points_of_an_unknown_profile_are_refused(self):
        self.assertIn("'fast'", self.refused('expect_x = { quick = [1], fast = [2] }\n'))

    def test_every_claim_file_of_the_project_parses(self):
        self.assertGreater(ve.check_files(), 0)

    def test_every_judged_claim_about_another_system_names_it(self):
        # Rule 6 everywhere: a paper's claim that names Crystal, cuDF, cuDPP, WarpDrive, MC-Hash or the
        # two-level table carries `system`, so that its verdict says what it was judged through.
        missing = []
        for module in ve.MODULES:
            path = ve.claims_path(module)
            if not os.path.exists(path):
                continue
            for c in ve.load_claims(path)[1]:
                text = c["claim"] + " " + c.get("paper", "")
                named = [s for s in ve.OTHER_SYSTEMS if s in text]
                if named and not c.get("ours") and c["rule"] != "not_measured" and "system" not in c:
                    missing.append(f"{module}/{c['id']}: {', '.join(named)}")
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
