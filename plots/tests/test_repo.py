"""The repository stands alone: no file refers to a folder outside the clone (issue 15). GPU tests
that read what the whole device shares run alone under parallel ctest (issue 29)."""
import glob
import os
import re
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class StandsAlone(unittest.TestCase):
    def test_no_file_mentions_the_shared_folder_beside_the_checkout(self):
        try:
            files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            self.skipTest("not a git checkout: the file list comes from git")
        offenders = []
        for name in files.decode().split("\0"):
            path = os.path.join(ROOT, name)
            if not name or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                if b"../" + b"shared" in f.read():
                    offenders.append(name)
        self.assertEqual(offenders, [], "files that point outside the repository")


# Calls that read or change what every process on the GPU shares: the free memory, the device's
# measured rates. A test that makes one must belong to a suite ctest runs alone (RUN_SERIAL for
# suites named *Exclusive or *Large, cmake/hashlab.cmake; docs/design.md, "Tests").
DEVICE_WIDE = re.compile(r"\b(cudaMemGetInfo|device_memory_available|device_memory|probe_device|cudaDeviceReset)\s*\(")
TEST_MACRO = re.compile(r"^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\(\s*(\w+)\s*,", re.M)


class GpuTestsThatReadTheWholeDeviceRunAlone(unittest.TestCase):
    def test_every_device_wide_call_in_a_test_is_in_an_exclusive_or_large_suite(self):
        sources = [f for pattern in ("*/tests/*.cu", "*/tests/*.cpp", "papers/*/tests/*.cu", "papers/*/tests/*.cpp")
                   for f in glob.glob(os.path.join(ROOT, pattern))]
        self.assertTrue(sources, "no test sources found")
        offenders = []
        for path in sorted(set(sources)):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            starts = [(m.start(), m.group(1)) for m in TEST_MACRO.finditer(text)]
            for call in DEVICE_WIDE.finditer(text):
                line = text.count("\n", 0, call.start()) + 1
                if text[text.rfind("\n", 0, call.start()) + 1:call.start()].lstrip().startswith("//"):
                    continue  # a comment that names the call
                suite = next((name for start, name in reversed(starts) if start < call.start()), None)
                if suite is None or not suite.endswith(("Exclusive", "Large")):
                    offenders.append(f"{os.path.relpath(path, ROOT)}:{line}: {call.group(1)} in "
                                     f"{'suite ' + suite if suite else 'code outside a test'}")
        self.assertEqual(offenders, [], "move these into a suite named *Exclusive (ctest runs it alone)")

    def test_the_serial_suites_are_the_ones_cmake_runs_alone(self):
        with open(os.path.join(ROOT, "cmake", "discover_suites.cmake"), encoding="utf-8") as f:
            cmake = f.read()
        self.assertIn('if(suite MATCHES "(Large|Exclusive)$")', cmake)
        self.assertIn("RUN_SERIAL TRUE", cmake)


if __name__ == "__main__":
    unittest.main()
