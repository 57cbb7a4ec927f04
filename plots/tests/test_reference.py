"""The committed reference runs against the claim files: every claim evaluates, every measurement a
claim names is in the committed results, every committed report (and the README's headline table)
is what the engine and report.py give today, byte for byte, and the plot scripts decide no verdict."""
import glob
import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
import report  # noqa: E402
import verdicts as ve  # noqa: E402

ROOT = os.path.dirname(HERE)
REFERENCES = report.reference_dirs()
# The papers' claims the report does not judge: not measured, or read as information (a paper's
# absolute figure, rule 2, or a row marked `information`). One bound on the sum (issue 29), so that
# turning a claim into an information row gains nothing over leaving it not measured; each says why.
# Raise it only with the claim that needs it, in the same commit.
MAX_UNJUDGED_PAPER_CLAIMS = 26
# Claims whose measurement a revision added after the committed reference runs (a new variant or
# metric): until the next reference runs they read "not measured: no verified rows with ...", and
# the test allows that for them alone. A listed claim that finds its data in every reference run
# (each GPU's, quick and FULL) fails the test, so the entry leaves with the runs that measure it.
# Each names the measurement it waits for.
AWAITING_A_REFERENCE_RUN = {
    "rapids_groupby/times31-shift-cheaper": "hashcode_cost's multiply_constant (x * 31 with the constant)",
    "pkpk_join/crystal-10x": "profile's crystal (our build of Crystal's join)",
    "pkpk_join/abstract-beats-crystal": "profile's crystal (our build of Crystal's join)",
    "pkpk_join/crystal-build-over-probe": "profile's crystal (its build and probe kernels)",
    "pkpk_join/abs-crystal-kernels-1m": "profile's crystal (its build and probe kernels)",
    "ega/merge-before-copy": "mp_merge_copy's piece_copies (4.2.5's T copies per partition)",
}
# The modules whose experiments need a host of several GPUs: a reference run of one GPU holds none of
# them, and a reference run of a multi-GPU host holds these only (its folder is listed in
# MULTI_GPU_REFERENCES). A module a run does not hold is not judged there: not a finding.
MULTI_GPU_MODULES = ["gpu_servers"]
MULTI_GPU_REFERENCES = {"h200x2": "2 H200s (NVLink)", "h200x4": "4 H200s (NVLink)"}
# Experiments a reference run (folder relative to results/reference/) did not run, each with why:
# the claims reading them are "not measured: no results for ..." there and nowhere else. An entry
# whose experiment the run holds fails the test, so it leaves with the run that measures it.
NOT_RUN_IN = {
    "h200x2/full": {"gpu_servers/samples": "--full not run: out of GPU time (revision d9aa772)",
                    "gpu_servers/groupby_scaling": "--full not run: out of GPU time (2^30 rows ran over 256 s "
                                                   "at 5f12298 and was stopped)"},
}
# A point a host cannot run for want of GPUs is skipped by the run with its reason (data, not an
# error: "skipped: needs 4 GPUs, this host has 2"): a claim reading only such points is not measured
# there, and says why. Any other skip (memory, time) is still the claim's finding.
HOST_SKIP = re.compile(r"\(skipped: needs \d+ GPUs, this host has \d+\)")
HOST_SKIP_FINDING = re.compile(r"no verified point at [^;()]*" + HOST_SKIP.pattern)


def reference_runs():
    """Each profile's run of every reference (the FULL ones too)."""
    return REFERENCES + [os.path.join(r, "full") for r in REFERENCES if os.path.isdir(os.path.join(r, "full"))]


def reference_key(ref):
    return os.path.relpath(ref, os.path.join(ROOT, "results", "reference"))


def is_multi_gpu(ref):
    return reference_key(ref).split(os.sep)[0] in MULTI_GPU_REFERENCES


class Reference(unittest.TestCase):
    def test_there_is_a_reference_run(self):
        self.assertTrue(REFERENCES, "no results/reference/<gpu>/ folder")

    def test_each_reference_holds_the_modules_of_its_host_kind(self):
        # A multi-GPU host's run holds the multi-GPU modules only; one GPU's run holds none of them
        # (its host cannot run them) and the papers' modules (more than 100 claims, below).
        self.assertTrue(set(MULTI_GPU_REFERENCES) <= {reference_key(r) for r in REFERENCES},
                        "MULTI_GPU_REFERENCES names a folder that results/reference/ lacks")
        for ref in reference_runs():
            with self.subTest(reference=os.path.relpath(ref, ROOT)):
                held = report.md.in_results(ref)
                self.assertTrue(held)
                if is_multi_gpu(ref):
                    self.assertEqual([m for m in held if m not in MULTI_GPU_MODULES], [])
                else:
                    self.assertEqual([m for m in held if m in MULTI_GPU_MODULES], [])
                    with open(os.path.join(ref, "report.md")) as f:  # said, not failed
                        self.assertIn(f"the claims of {', '.join(MULTI_GPU_MODULES)} are not judged here", f.read())

    def test_every_claim_evaluates_and_finds_its_data(self):
        # Each profile's run (the FULL ones too): a claim reads the points its own profile ran, and
        # every committed point is verified, so a point a claim expects and misses is the claim's error
        # (but for the points a host skipped for want of GPUs, and the experiments NOT_RUN_IN lists).
        awaiting_everywhere = set(AWAITING_A_REFERENCE_RUN)
        for ref in reference_runs():
            with self.subTest(reference=os.path.relpath(ref, ROOT)):
                modules = report.run_modules(ref)
                verdicts = ve.evaluate(ref, modules)
                claims = sum(len(ve.load_claims(ve.claims_path(m))[1]) for m in modules
                             if os.path.exists(ve.claims_path(m)))
                self.assertEqual(len(verdicts), claims, "every claim of every module the run holds")
                if not is_multi_gpu(ref):
                    self.assertGreater(len(verdicts), 100)
                not_run = NOT_RUN_IN.get(reference_key(ref), {})
                for experiment in not_run:
                    module, name = experiment.split("/")
                    self.assertFalse(os.path.exists(os.path.join(ref, module, name + ".csv")),
                                     f"{experiment} is in the run now: remove it from NOT_RUN_IN")
                excused = tuple(f"no results for {e}.csv" for e in not_run)
                lacking = {f"{v.module}/{v.id}": v.reason for v in verdicts
                           if v.verdict == ve.NOT_MEASURED and v.rule != "not_measured" and "undecided" not in v.reason
                           and not v.reason.startswith(excused) and not HOST_SKIP.search(v.reason)}
                missing = [f"{key}: {why}" for key, why in lacking.items() if key not in AWAITING_A_REFERENCE_RUN]
                self.assertEqual(missing, [], "claims naming data the committed run does not hold")
                awaiting_everywhere -= set(lacking)
                for key in AWAITING_A_REFERENCE_RUN:
                    if key in lacking:
                        self.assertIn("no verified rows", lacking[key], f"{key} waits for a measurement, not for this")
                absent = [f"{v.module}/{v.id}: {v.reason}" for v in verdicts
                          if "no verified point at" in HOST_SKIP_FINDING.sub("", v.reason)]
                self.assertEqual(absent, [], "claims expecting points the committed run did not plan")
        self.assertEqual(sorted(awaiting_everywhere), [],
                         "claims that found their data in every reference run: remove them from AWAITING_A_REFERENCE_RUN")

    def test_few_paper_claims_go_unjudged_and_each_says_why(self):
        for ref in REFERENCES:
            with self.subTest(reference=os.path.basename(ref)):
                verdicts = ve.evaluate(ref, report.run_modules(ref))  # a module not run there: not judged
                unjudged = [v for v in verdicts if not v.ours and v.verdict in (ve.NOT_MEASURED, ve.MEASURED)]
                self.assertLessEqual(len(unjudged), MAX_UNJUDGED_PAPER_CLAIMS,
                                     "\n".join(f"{v.module}/{v.id}: {v.verdict}" for v in unjudged))
                for v in unjudged:
                    why = v.reason if v.verdict == ve.NOT_MEASURED else v.information
                    self.assertGreater(len(why), 20, f"{v.module}/{v.id}: the reason says too little")
                lines = []
                report.unjudged_section(verdicts, lines)
                for v in unjudged:
                    self.assertIn(f"`{v.id}`", "\n".join(lines), "the report lists every unjudged paper claim")

    def test_every_committed_report_regenerates_unchanged(self):
        # Each reference run's report.md and report.html is exactly what report.py renders from the
        # committed CSVs with today's claims and rules: a rule or a claim changed without
        # regenerating the reports fails here.
        for ref in reference_runs():
            with self.subTest(reference=os.path.relpath(ref, ROOT)):
                lines = report.report_lines(ref, ref)
                for name, text in (("report.md", "\n".join(lines) + "\n"),
                                   ("report.html", report.to_html(lines, "hashlab report"))):
                    with open(os.path.join(ref, name)) as f:
                        committed = f.read()
                    self.assertTrue(committed == text,
                                    f"{os.path.relpath(ref, ROOT)}/{name} is stale: run python3 plots/report.py "
                                    f"--results {os.path.relpath(ref, ROOT)} --out {os.path.relpath(ref, ROOT)}")

    def test_readme_headline_table_is_the_engines(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            text = f.read()
        begin, end = text.find(report.README_BEGIN), text.find(report.README_END)
        self.assertTrue(begin >= 0 and end > begin, "README.md has no generated headline block")
        block = text[begin:end + len(report.README_END)].splitlines()
        expected = report.readme_block(ve.evaluate(REFERENCES[0]), os.path.relpath(REFERENCES[0], ROOT))
        self.assertEqual(block, expected, "README's headline table is stale: run python3 plots/report.py --readme")


    def test_the_report_shows_the_claims_about_hardware_on_every_gpu(self):
        self.assertGreaterEqual(len(REFERENCES), 2, "issue 16: a second GPU's reference run")
        verdicts = ve.evaluate(REFERENCES[0])
        lines = []
        report.gpus_section(REFERENCES[0], verdicts, lines)
        text = "\n".join(lines)
        for ref in REFERENCES:
            if not is_multi_gpu(ref):  # a multi-GPU host's run holds none of these claims' modules
                self.assertIn(report.device_name(ref), text)
        hardware = [v for v in verdicts if v.hardware]
        self.assertGreater(len(hardware), 10)
        for v in hardware:
            self.assertIn(f"`{v.id}`", text)


    def test_the_report_judges_the_claims_again_at_the_papers_sizes(self):
        full = os.path.join(REFERENCES[0], "full")
        self.assertTrue(os.path.isdir(full), "issue 16: the FULL reference run")
        verdicts = ve.evaluate(REFERENCES[0])
        lines = []
        report.full_section(REFERENCES[0], verdicts, lines)
        text = "\n".join(lines)
        self.assertIn("At the papers' sizes (FULL)", text)
        at_full = {(v.module, v.id): v for v in ve.evaluate(full, report.run_modules(full))}
        for v in verdicts:
            f = at_full.get((v.module, v.id))
            if f is not None and ve.differs(f, v):  # every change of verdict or winner is named
                self.assertIn(f"`{v.id}`", text)

    def test_a_report_covers_the_modules_its_run_holds(self):
        out = tempfile.mkdtemp(prefix="report_test_")
        try:
            shutil.copytree(os.path.join(REFERENCES[0], "cuckoo"), os.path.join(out, "cuckoo"))
            with open(report.build_report(out, out)) as f:
                text = f.read()
            self.assertIn("holds results of cuckoo only", text)
            self.assertIn("## cuckoo", text)
            self.assertNotIn("## hashgraph", text)
            self.assertNotIn("| hashgraph |", text)
        finally:
            shutil.rmtree(out)


class PlotScripts(unittest.TestCase):
    def test_plot_scripts_decide_no_verdict(self):
        for path in glob.glob(os.path.join(HERE, "*.py")):
            name = os.path.basename(path)
            if name in ("verdicts.py", "report.py"):
                continue
            with open(path) as f:
                source = f.read()
            with self.subTest(script=name):
                self.assertIsNone(re.search(r"^def claims\(", source, re.M), "a claims() function")
                self.assertIsNone(re.search(r"[\"'](reproduced|not reproduced|not measured|differs|partly)\b",
                                            source), "verdict text")


if __name__ == "__main__":
    unittest.main()
