"""docs/teaching.md is a course a teacher can use without us: every exercise is marked [CPU] or
[GPU] truthfully, gives its prerequisites, a time estimate, the command that runs it and the
command that checks it; docs/teaching_answers.md answers every exercise and names its sources, and
its numbers are the committed reference run's (scripts/teaching_answers.py writes them from the
template docs/teaching_answers.md.in); every `build/hashlab ...` command in the course exists and
parses, and every claim a check command greps the verdict engine's output for exists.

    python3 -m unittest plots/tests/test_teaching.py

The command checks run the hashlab binary at $HASHLAB_BINARY_DIR/hashlab (ctest sets it to the
build folder), else build/hashlab; without a binary they are skipped with a message.
"""
import os
import re
import shlex
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEACHING = os.path.join(ROOT, "docs", "teaching.md")
ANSWERS = os.path.join(ROOT, "docs", "teaching_answers.md")

HEADING = re.compile(r"^### Exercise (\d+\.\d+) \[(CPU|GPU)\] \S.*$")
ANSWER_HEADING = re.compile(r"^### Exercise (\d+\.\d+)\b.*$")
FIELDS = ("Needs", "Time", "Run", "Check")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def sections(text, heading):
    """{id: (mark or None, body)} for every heading that matches, in order; the body runs to the
    next heading of level 2 or 3."""
    out = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = heading.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith(("## ", "### ")):
            j += 1
        mark = m.group(2) if m.re.groups >= 2 else None
        if m.group(1) in out:
            raise AssertionError(f"exercise {m.group(1)} appears twice")
        out[m.group(1)] = (mark, "\n".join(lines[i + 1:j]))
        i = j
    return out


def field(body, name):
    """The text of `- **Name:** ...`, continuation lines included; None when absent."""
    m = re.search(r"^- \*\*" + re.escape(name) + r":\*\*(.*(?:\n  .*)*)", body, re.M)
    return " ".join(part.strip() for part in m.group(1).splitlines()) if m else None


def commands(text):
    """The backticked spans of a text."""
    return re.findall(r"`([^`\n]+)`", text)


def hashlab_commands(text):
    """Every `build/hashlab ...` invocation of the text (in backticks or code blocks), as argument
    lists, cut at a pipe or a shell separator; commands with placeholders (<paper>) are left out."""
    found = []
    for m in re.finditer(r"build/hashlab\b([^`\n|;&]*)", text):
        args = m.group(1).strip()
        if "<" in args:
            continue
        found.append(shlex.split(args))
    return found


def binary():
    folder = os.environ.get("HASHLAB_BINARY_DIR")
    return os.path.join(folder, "hashlab") if folder else os.path.join(ROOT, "build", "hashlab")


def run_binary(args):
    return subprocess.run([binary()] + args, cwd=ROOT, capture_output=True, text=True, timeout=120)


class Exercises(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.text = read(TEACHING)
        cls.exercises = sections(cls.text, HEADING)

    def test_there_is_a_course(self):
        self.assertGreaterEqual(len(self.exercises), 20)
        self.assertTrue(any(mark == "CPU" for mark, _ in self.exercises.values()))
        self.assertTrue(any(mark == "GPU" for mark, _ in self.exercises.values()))

    def test_every_exercise_heading_is_marked_cpu_or_gpu(self):
        for line in self.text.splitlines():
            if re.match(r"^#+ *Exercise|^\*+Exercise", line):
                with self.subTest(line=line):
                    self.assertRegex(line, HEADING, "write '### Exercise N.M [CPU] title' or '[GPU]'")

    def test_every_exercise_has_needs_time_run_and_check(self):
        for ex, (mark, body) in self.exercises.items():
            for name in FIELDS:
                with self.subTest(exercise=ex, field=name):
                    self.assertIsNotNone(field(body, name), f"exercise {ex} has no '- **{name}:**' line")
            with self.subTest(exercise=ex, field="Time"):
                self.assertRegex(field(body, "Time") or "", r"\b\d+ min\b", "a time estimate in minutes")
            for name in ("Run", "Check"):
                with self.subTest(exercise=ex, field=name):
                    self.assertTrue(commands(field(body, name) or ""), f"exercise {ex}: {name} gives no `command`")

    def test_gpu_exercises_need_a_gpu_and_say_what_to_read_without_one(self):
        for ex, (mark, body) in self.exercises.items():
            if mark != "GPU":
                continue
            with self.subTest(exercise=ex):
                self.assertRegex(field(body, "Needs") or "", r"\ba GPU\b", "Needs should say: a GPU")
                self.assertIsNotNone(field(body, "No GPU"), "a [GPU] exercise says what to read without a GPU")
                run = " ".join(commands(field(body, "Run") or ""))
                self.assertRegex(run, r"hashlab (run|probe)\b", "a [GPU] exercise whose run needs no GPU is [CPU]")

    def test_cpu_exercises_run_nothing_that_needs_a_gpu(self):
        for ex, (mark, body) in self.exercises.items():
            if mark != "CPU":
                continue
            with self.subTest(exercise=ex):
                self.assertNotRegex(field(body, "Needs") or "", r"(?<!no )\ba GPU\b")
                self.assertIsNone(field(body, "No GPU"))
                for name in ("Run", "Check"):
                    for cmd in commands(field(body, name) or ""):
                        if "--dry-run" in cmd:
                            continue
                        self.assertNotRegex(cmd, r"hashlab (run|probe)\b", f"{name} of a [CPU] exercise needs a GPU")

    def test_the_cpu_only_path_lists_every_cpu_exercise(self):
        m = re.search(r"\*\*A course without GPUs\*\*(.*?)\n\n", self.text, re.S)
        self.assertIsNotNone(m, "the paragraph '**A course without GPUs**' is missing")
        listed = set(re.findall(r"\b\d+\.\d+\b", m.group(1)))
        cpu = {ex for ex, (mark, _) in self.exercises.items() if mark == "CPU"}
        self.assertEqual(listed, cpu)

    def test_change_a_constant_exercises_name_the_file_and_a_ctest_check(self):
        for ex, (mark, body) in self.exercises.items():
            title = self.text.split(f"### Exercise {ex} ", 1)[1].splitlines()[0]
            if "Change a constant" not in title:
                continue
            with self.subTest(exercise=ex):
                run = field(body, "Run") or ""
                self.assertRegex(run, r"in `[\w/.]+\.(hpp|cpp|cu|h)` change `", "which file and which constant")
                self.assertRegex(run, r"cmake --build build --target \w+_tests", "which test binary to rebuild")
                self.assertRegex(field(body, "Check") or "", r"ctest --test-dir build -R ", "the ctest command")
                self.assertIn("git checkout -- ", body, "how to undo the change")


def top_level_alternatives(pattern):
    """'a|b(c|d)' -> ['a', 'b(c|d)']: the alternatives of an extended regular expression."""
    parts, depth, current = [], 0, ""
    for ch in pattern:
        if ch == "|" and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += {"(": 1, ")": -1}.get(ch, 0)
        current += ch
    return parts + [current]


class Claims(unittest.TestCase):
    """A check that greps the verdict engine's output for claims names claims that exist (claim
    files change; a grep for a renamed claim would silently print nothing)."""

    def test_every_claim_a_check_greps_for_exists(self):
        try:
            sys.path.insert(0, os.path.join(ROOT, "plots"))
            import verdicts
        except (ImportError, SystemExit) as e:  # Python < 3.11 without tomli
            self.skipTest(f"cannot load plots/verdicts.py: {e}")
        ids = {}
        for module in verdicts.MODULES:
            path = verdicts.claims_path(module)
            if os.path.exists(path):
                ids[module] = [f"{module}/{c['id']}: " for c in verdicts.load_claims(path)[1]]
        checked = 0
        for ex, (_, body) in sections(read(TEACHING), HEADING).items():
            for cmd in commands(field(body, "Check") or ""):
                m = re.search(r"verdicts\.py .*--paper (\w+) \| grep (.*)$", cmd)
                if not m:
                    continue
                pattern = [a for a in shlex.split(m.group(2)) if not a.startswith("-")][0]
                for alternative in top_level_alternatives(pattern):
                    checked += 1
                    with self.subTest(exercise=ex, claim=alternative):
                        self.assertTrue(any(re.search(alternative, line) for line in ids.get(m.group(1), [])),
                                        f"no claim of {m.group(1)} matches {alternative!r}")
        self.assertGreater(checked, 20)


class Answers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.exercises = sections(read(TEACHING), HEADING)
        cls.answers = sections(read(ANSWERS), ANSWER_HEADING)

    def test_every_exercise_has_an_answer(self):
        self.assertEqual(sorted(set(self.exercises) - set(self.answers)), [])

    def test_every_answer_answers_an_exercise(self):
        self.assertEqual(sorted(set(self.answers) - set(self.exercises)), [])

    def test_every_answer_gives_the_outcome_and_its_source(self):
        for ex, (_, body) in self.answers.items():
            with self.subTest(exercise=ex):
                self.assertRegex(body, r"\*\*Expected[^*\n]*:\*\*", "the expected outcome")
                self.assertRegex(body, r"\*\*Source:\*\*", "where the numbers come from")


class Files(unittest.TestCase):
    PATH = re.compile(r"(?<![\w/.])(?:papers|common|harness|plots|docs|compare|scripts|results/reference)/[\w./-]*[\w/]")

    def test_every_repository_path_named_exists(self):
        for doc in (TEACHING, ANSWERS):
            text = read(doc)
            # A path cut short by a placeholder (demo_<paper>.log) or a wildcard is not one.
            named = {m.group(0) for m in self.PATH.finditer(text) if text[m.end():m.end() + 1] not in "<*"}
            for path in sorted(named):
                with self.subTest(doc=os.path.basename(doc), path=path):
                    self.assertTrue(os.path.exists(os.path.join(ROOT, path)), f"{path} does not exist")

    def test_the_course_stands_alone(self):
        outside = ".." + "/shared"  # spelled apart so that this file does not name it either
        for doc in (TEACHING, ANSWERS):
            with self.subTest(doc=os.path.basename(doc)):
                self.assertNotIn(outside, read(doc))


@unittest.skipUnless(os.path.exists(binary()),
                     f"no hashlab binary at {binary()}: build it with `make` (or set HASHLAB_BINARY_DIR) "
                     "to check that the course's commands parse")
class Commands(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.commands = hashlab_commands(read(TEACHING))
        listing = run_binary(["list"])
        cls.papers = {line.strip() for line in listing.stdout.splitlines() if line and not line[0].isspace()}

    def test_the_course_has_commands(self):
        self.assertGreaterEqual(len([c for c in self.commands if c and c[0] == "run"]), 15)

    def test_every_run_command_parses_with_dry_run(self):
        for args in self.commands:
            if not args or args[0] != "run":
                continue
            with self.subTest(command="build/hashlab " + " ".join(args)):
                r = run_binary(args + ["--dry-run"])
                self.assertEqual(r.returncode, 0, r.stderr.strip() or r.stdout[-500:])

    def test_every_other_command_exists_and_parses(self):
        for args in self.commands:
            if not args or args[0] == "run":
                continue
            with self.subTest(command="build/hashlab " + " ".join(args)):
                r = run_binary(args + ["--help"])
                self.assertEqual(r.returncode, 0, r.stderr.strip() or r.stdout[-500:])
                if args[0] == "demo":
                    self.assertIn(args[1], self.papers, f"hashlab list has no paper {args[1]!r}")


class AnswersFromTheReference(unittest.TestCase):
    """The answers' numbers are generated from the reference run, not typed (issue 29)."""

    def test_the_committed_answers_are_what_the_template_and_the_reference_give(self):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "teaching_answers.py"), "--check"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, (r.stdout[-4000:] + r.stderr).strip())

    def test_a_changed_reference_number_changes_the_answers(self):
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        import teaching_answers as ta
        reference = ta.Reference(ta.REFERENCE)
        template = read(ta.TEMPLATE)
        before = ta.render(template, reference)
        key = "baselines/tables"
        reference.rows(key)  # loaded, then one median changed as a new run would
        row = next(r for r in reference.tables[key] if r["variant"] == "linear_probing" and r["n"] == 33554432
                   and r["metric"] == "build_time")
        row["median"] = row["median"] * 2
        after = ta.render(template, reference)
        self.assertNotEqual(before, after)
        self.assertIn(format(float(row["median"]), ".3f") + " ms", after)


if __name__ == "__main__":
    unittest.main()
