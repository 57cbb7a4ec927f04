"""The repository stands alone: no file refers to a folder outside the clone (issue 15)."""
import os
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


if __name__ == "__main__":
    unittest.main()
