"""Verdict mutants (issue 29): perturbations of the committed results that must flip a named claim's
verdict, and perturbations that must not. Like the code mutants, for the verdict engine: a rule with
a loophole lets a mutant through. Each test copies the module folders it needs from the committed
H100 reference run into a temporary folder (the committed files are never touched), edits CSV rows
there, and judges the named claim before and after, for every rule of docs/verdicts.md. Each test
first asserts the claim's verdict on the unmutated copy: a new reference run that changes it calls
for another claim of the same rule, not for a weaker test."""
import csv
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
import verdicts as ve  # noqa: E402

ROOT = os.path.dirname(HERE)
REFERENCE = os.path.join(ROOT, "results", "reference", "h100_80gb_hbm3")


class Mutants(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="verdict_mutants_")
        shutil.copy(os.path.join(REFERENCE, "device.json"), self.dir)
        self.claims = {}

    def tearDown(self):
        shutil.rmtree(self.dir)

    def copy(self, module):
        if not os.path.isdir(os.path.join(self.dir, module)):
            shutil.copytree(os.path.join(REFERENCE, module), os.path.join(self.dir, module),
                            ignore=shutil.ignore_patterns("*.png"))

    def edit(self, module, experiment, where, change=None, drop=False):
        """Rewrites the copied CSV: every row for which where(row) holds is changed in place by
        change(row) (or dropped). Returns how many rows it touched, so that no mutant is a no-op."""
        self.copy(module)
        path = os.path.join(self.dir, module, experiment + ".csv")
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            fields, rows = reader.fieldnames, list(reader)
        out, touched = [], 0
        for r in rows:
            if where(r):
                touched += 1
                if drop:
                    continue
                change(r)
            out.append(r)
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(out)
        self.assertGreater(touched, 0, f"the mutant of {module}/{experiment} changes nothing")
        return touched

    def judge(self, module, claim_id):
        self.copy(module)
        if module not in self.claims:
            self.claims[module] = {c["id"]: c for c in ve.load_claims(ve.claims_path(module))[1]}
        return ve.evaluate_claim(self.claims[module][claim_id], ve.Results(self.dir), module)

    def assertVerdict(self, module, claim_id, expected, why=""):
        v = self.judge(module, claim_id)
        self.assertEqual(v.verdict, expected, f"{module}/{claim_id}: {v.reason} | {v.measured}")
        if why:
            self.assertIn(why, v.reason + " | " + v.measured)
        return v


def metric(r, variant, name):
    return r["variant"] == variant and r["metric"] == name


def scale(r, factor):
    for k in ("median", "min", "max"):
        r[k] = repr(float(r[k]) * factor)


def fail(r):
    r["verified"], r["status"] = "false", "failed"


class Linear(Mutants):
    CLAIM = ("hashgraph", "cudf-collision-cost-quadratic-0.5")

    def test_a_flat_build_time_flips_the_quadratic_collision_cost(self):
        # The mutant: every linear_probing_0.5 build time in fig3.csv one flat 2.9 ms.
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)

        def flat(r):
            r["median"] = r["min"] = r["max"] = "2.9"
        self.edit("hashgraph", "fig3", lambda r: metric(r, "linear_probing_0.5", "build_time"), flat)
        self.assertVerdict(*self.CLAIM, ve.NOT_REPRODUCED, "a flat line fits as well")

    def test_a_quadratic_build_time_flips_it(self):
        def quadratic(r):
            m = float(r["param_value"])
            r["median"] = r["min"] = r["max"] = repr(2.9 + 0.01 * m * m)
        self.edit("hashgraph", "fig3", lambda r: metric(r, "linear_probing_0.5", "build_time"), quadratic)
        self.assertVerdict(*self.CLAIM, ve.NOT_REPRODUCED, "off the line")

    def test_a_uniformly_slower_build_does_not(self):
        self.edit("hashgraph", "fig3", lambda r: metric(r, "linear_probing_0.5", "build_time"), lambda r: scale(r, 3.0))
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)


class Verified(Mutants):
    CLAIM = ("rapids_groupby", "correct-1k-to-100m")

    def test_failed_100m_points_flip_correct_results(self):
        # The mutant: Fig. 4b's 100M points marked verified = false.
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)
        self.edit("rapids_groupby", "fig4b_rows_10k_keys", lambda r: float(r["n"]) == 1e8, fail)
        self.assertVerdict(*self.CLAIM, ve.PARTLY, "verification failed at N=100M")

    def test_every_point_failed_refutes_it(self):
        self.edit("rapids_groupby", "fig4b_rows_10k_keys", lambda r: r["variant"] == "hash_gpu_sampling", fail)
        self.assertVerdict(*self.CLAIM, ve.NOT_REPRODUCED)

    def test_a_failed_point_of_another_variant_does_not(self):
        self.edit("rapids_groupby", "fig4b_rows_10k_keys",
                  lambda r: r["variant"] == "sort_thrust" and float(r["n"]) == 1e8, fail)
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)

    def test_a_dropped_point_is_found_from_the_run_plan(self):
        # Removing the 100M rows altogether: the sidecar says the run planned them.
        self.edit("rapids_groupby", "fig4b_rows_10k_keys", lambda r: float(r["n"]) == 1e8, drop=True)
        self.assertVerdict(*self.CLAIM, ve.PARTLY)


class Bound(Mutants):
    CLAIM = ("hashgraph", "v2-faster-than-v1")

    def test_one_load_where_v1_wins_flips_it(self):
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)
        self.edit("hashgraph", "fig2", lambda r: metric(r, "v1", "build_rate") and float(r["param_value"]) == 2,
                  lambda r: scale(r, 5.0))
        self.assertVerdict(*self.CLAIM, ve.PARTLY, "not at load 2")

    def test_a_failed_point_flips_it_without_expect_x(self):
        self.edit("hashgraph", "fig2", lambda r: r["variant"] == "v2" and float(r["param_value"]) == 1, fail)
        self.assertVerdict(*self.CLAIM, ve.PARTLY, "load 1 (failed)")

    def test_a_skipped_point_flips_it(self):
        def skipped(r):
            fail(r)
            r["status"], r["metric"] = "skipped", "status"
        self.edit("hashgraph", "fig2", lambda r: r["variant"] == "v1" and float(r["param_value"]) == 4, skipped)
        self.assertVerdict(*self.CLAIM, ve.PARTLY, "load 4 (skipped)")

    def test_both_sides_scaled_alike_do_not(self):
        self.edit("hashgraph", "fig2", lambda r: r["metric"] == "build_rate" and r["variant"] in ("v1", "v2"),
                  lambda r: scale(r, 0.5))
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)

    def test_a_failed_point_of_a_variant_it_does_not_read_does_not(self):
        self.edit("hashgraph", "fig2", lambda r: r["variant"] == "linear_probing", fail)
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)


class RangesAndFigures(Mutants):
    CLAIM = ("cuckoo", "absent-queries-cost-4fn")  # about 2.03: all absent / all present

    def test_a_factor_far_above_the_papers_flips_it_and_says_so(self):
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)
        self.edit("cuckoo", "failed_queries", lambda r: metric(r, "cuckoo_4fn", "retrieve_time")
                  and float(r["param_value"]) == 1, lambda r: scale(r, 2.5))
        self.assertVerdict(*self.CLAIM, ve.NOT_REPRODUCED, "more than 1.25x the paper's 2.03")

    def test_a_factor_within_a_quarter_of_the_papers_does_not(self):
        self.edit("cuckoo", "failed_queries", lambda r: metric(r, "cuckoo_4fn", "retrieve_time")
                  and float(r["param_value"]) == 1, lambda r: scale(r, 1.1))
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)


class Trend(Mutants):
    CLAIM = ("cuckoo", "binary-search-slows-with-n")

    def test_a_rising_step_flips_it(self):
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)
        self.edit("cuckoo", "fig4_4", lambda r: metric(r, "sorted_array", "retrieve_rate")
                  and float(r["n"]) == 16 * 2 ** 20, lambda r: scale(r, 2.0))
        self.assertVerdict(*self.CLAIM, ve.PARTLY)

    def test_a_failed_middle_point_flips_it(self):
        self.edit("cuckoo", "fig4_4", lambda r: r["variant"] == "sorted_array" and float(r["n"]) == 16 * 2 ** 20, fail)
        self.assertVerdict(*self.CLAIM, ve.PARTLY, "N=16Mi (failed)")

    def test_a_steeper_fall_does_not(self):
        self.edit("cuckoo", "fig4_4", lambda r: metric(r, "sorted_array", "retrieve_rate")
                  and float(r["n"]) == 128 * 2 ** 20, lambda r: scale(r, 0.5))
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)


class Spread(Mutants):
    CLAIM = ("hashgraph", "probe-standard-flat-over-load")

    def test_one_slow_load_flips_it(self):
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)
        self.edit("hashgraph", "fig6", lambda r: metric(r, "probe_standard", "probe_rate")
                  and float(r["param_value"]) == 2, lambda r: scale(r, 0.5))
        self.assertVerdict(*self.CLAIM, ve.NOT_REPRODUCED)

    def test_a_uniform_change_does_not(self):
        self.edit("hashgraph", "fig6", lambda r: metric(r, "probe_standard", "probe_rate"), lambda r: scale(r, 0.5))
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)


class BestAt(Mutants):
    CLAIM = ("cuckoo", "fastest-around-4n")

    def test_an_optimum_moved_outside_the_range_flips_it(self):
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)
        self.edit("cuckoo", "fig4_7", lambda r: metric(r, "cuckoo", "build_rate") and float(r["param_value"]) == 2,
                  lambda r: scale(r, 2.0))
        self.assertVerdict(*self.CLAIM, ve.NOT_REPRODUCED, "best at space 2")

    def test_a_slower_point_far_from_the_optimum_does_not(self):
        self.edit("cuckoo", "fig4_7", lambda r: metric(r, "cuckoo", "build_rate") and float(r["param_value"]) == 1.05,
                  lambda r: scale(r, 0.5))
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)


class FirstAt(Mutants):
    CLAIM = ("cuckoo", "half-bound-at-1.3n")

    def test_an_earlier_threshold_flips_it(self):
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)
        self.edit("cuckoo", "fig4_7", lambda r: metric(r, "cuckoo", "build_rate") and float(r["param_value"]) == 1.05,
                  lambda r: scale(r, 10.0))
        self.assertVerdict(*self.CLAIM, ve.NOT_REPRODUCED, "first at space 1.05")

    def test_a_faster_build_after_the_threshold_does_not(self):
        self.edit("cuckoo", "fig4_7", lambda r: metric(r, "cuckoo", "build_rate") and float(r["param_value"]) == 2,
                  lambda r: scale(r, 1.2))
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)


class Proportion(Mutants):
    CLAIM = ("ega", "theorem1-overflow-rate")  # 0 overflows in 400,000 throws, claimed at most 1e-5

    def test_overflows_flip_it(self):
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)

        def overflows(r):
            r["median"] = r["min"] = r["max"] = "40"
        self.edit("ega", "mp_theorem1", lambda r: r["metric"] == "overflow_trials", overflows)
        self.assertVerdict(*self.CLAIM, ve.NOT_REPRODUCED, "excludes")

    def test_more_throws_without_an_overflow_do_not(self):
        def more(r):
            r["median"] = r["min"] = r["max"] = "800000"
        self.edit("ega", "mp_theorem1", lambda r: r["metric"] == "trials", more)
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)

    def test_fewer_trials_leave_it_undecided(self):
        def few(r):
            r["median"] = r["min"] = r["max"] = "1000"
        self.edit("ega", "mp_theorem1", lambda r: r["metric"] == "trials", few)
        self.assertVerdict(*self.CLAIM, ve.NOT_MEASURED, "undecided")


class Choice(Mutants):
    CLAIM = ("hashgraph", "probe-new-faster-than-cudf-at-32")  # against the faster cuDF load

    def test_a_candidate_that_overtakes_the_winner_is_the_choice(self):
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)
        self.edit("hashgraph", "fig7", lambda r: metric(r, "linear_probing_0.8", "probe_rate")
                  and float(r["param_value"]) == 32, lambda r: scale(r, 100.0))
        self.assertVerdict(*self.CLAIM, ve.NOT_REPRODUCED, "linear_probing_0.8")

    def test_a_tied_candidate_judges_the_choice_at_its_weakest(self):
        # probe-new's rate at 32 against the faster cuDF load: widen the slower load's range so that
        # it reaches the faster one's. The choice is then judged at the lower of the two.
        v0 = self.judge(*self.CLAIM)

        def tie(r):
            r["max"] = repr(float(r["max"]) * 100)
        self.edit("hashgraph", "fig7", lambda r: metric(r, "linear_probing_0.8", "probe_rate")
                  and float(r["param_value"]) == 32, tie)
        v = self.judge(*self.CLAIM)
        self.assertIn("tied with linear_probing_0.8", v.measured)
        self.assertNotEqual(v.measured, v0.measured)


class DerivedSpread(Mutants):
    CLAIM = ("cuckoo", "hash-bandwidth-share")  # pin_share, about 0.06: a share of one timing

    def test_a_wide_build_time_range_flips_the_share(self):
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)

        def wide(r):
            r["min"] = repr(float(r["median"]) * 0.7)
        self.edit("cuckoo", "bandwidth_share", lambda r: metric(r, "cuckoo_1.25N", "build_time"), wide)
        self.assertVerdict(*self.CLAIM, ve.PARTLY, "worst repetition")

    def test_a_narrower_build_time_range_does_not(self):
        def narrow(r):
            r["min"] = r["max"] = r["median"]
        self.edit("cuckoo", "bandwidth_share", lambda r: metric(r, "cuckoo_1.25N", "build_time"), narrow)
        self.assertVerdict(*self.CLAIM, ve.REPRODUCED)

    def test_a_kernel_sum_carries_its_kernels_spread(self):
        claim = ("pkpk_join", "cub-prefix-sum-cheap")  # prefix_sum / kernel_sum_time <= 0.093
        self.assertVerdict(*claim, ve.REPRODUCED)

        def wide(r):
            r["min"] = repr(float(r["median"]) * 0.01)
        # Every other kernel's fastest repetition 100x faster: the sum's minimum falls with them.
        self.edit("pkpk_join", "profile", lambda r: r["variant"] == "bsp" and r["metric"].startswith("kernel_")
                  and r["metric"].endswith("_time") and r["metric"] not in ("kernel_sum_time", "kernel_prefix_sum_time")
                  and float(r["n"]) == 1e6, wide)
        self.assertVerdict(*claim, ve.PARTLY, "worst repetition")


class Information(Mutants):
    def test_an_absolute_figure_stays_information(self):
        claim = ("cuckoo", "abstract-build-time")
        v0 = self.assertVerdict(*claim, ve.MEASURED)
        self.edit("cuckoo", "fig4_4", lambda r: metric(r, "cuckoo_1.25N", "build_time"), lambda r: scale(r, 10.0))
        v = self.assertVerdict(*claim, ve.MEASURED)
        self.assertNotEqual(v.measured, v0.measured)

    def test_a_winner_changes_with_the_rates(self):
        claim = ("compare", "table-build-winner")
        v0 = self.judge(*claim)
        self.assertEqual(v0.answer, ("linear probing",))
        self.edit("compare", "tables", lambda r: metric(r, "hashgraph_v1", "build_rate")
                  and r["param_name"] == "load_factor", lambda r: scale(r, 100.0))
        v = self.judge(*claim)
        self.assertTrue(ve.differs(v0, v), (v0.answer, v.answer))
        self.assertEqual(v.answer, ("HashGraph V1",))


if __name__ == "__main__":
    unittest.main()
