"""The own-data commands against pandas: data written by numpy, run through `hashlab groupby`,
`join` and `table`, must equal what pandas computes from the same arrays; every bad input gives
a clear error (naming the file) and exit status 2.

CPU algorithms and the bad inputs run everywhere (ctest: Python.own_data, the tests without
"gpu" in their names); the GPU algorithms (Python.own_data_gpu) run when a GPU is present and
are reported skipped otherwise. HASHLAB_BINARY_DIR names the build."""
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

try:
    import pandas as pd
except ModuleNotFoundError as e:  # make deps installs pandas; without it this check cannot run
    raise SystemExit("Python.own_data needs pandas (run `make deps`): " + str(e))

BINARY = os.path.join(os.environ.get("HASHLAB_BINARY_DIR", "build"), "hashlab")
GROUPBY_GPU = ["rapids", "sp_ega", "lphga", "mp_ega", "sort", "hash"]
JOIN_GPU = ["bsp", "sort", "hash", "hashgraph"]
TABLES = ["cuckoo", "hashgraph", "linear_probing", "sorted_array"]
AGGS = ["sum", "min", "max", "count", "mean"]


def hashlab(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300)


class OwnData(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.dir = cls.tmp.name
        rng = np.random.default_rng(17)
        n = 20000
        cls.n = n
        cls.k = rng.integers(0, 500, n).astype(np.uint32)          # repeated keys
        cls.k2 = rng.integers(0, 4, n).astype(np.int64)            # a second key, int64 on disk
        cls.vi = rng.integers(-1000, 100000, n).astype(np.int64)   # signed integers
        cls.vu = rng.integers(0, 1 << 31, n).astype(np.uint32)     # unsigned 32-bit
        cls.vf = rng.random(n) * 100                                # reals
        for name in ("k", "k2", "vi", "vu", "vf"):
            np.save(os.path.join(d, name + ".npy"), getattr(cls, name))
        perm = rng.permutation(3 * n).astype(np.uint32)
        cls.rk, cls.sk = perm[:n], perm[n // 2: n // 2 + n]        # unique keys, half of each match
        cls.rv = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
        for name in ("rk", "sk", "rv"):
            np.save(os.path.join(d, name + ".npy"), getattr(cls, name))
        probe = hashlab("groupby", "--algo", "sort", "--keys", cls.path("k.npy"), "--values", cls.path("vu.npy"))
        cls.gpu = probe.returncode == 0
        cls.gpu_why = probe.stderr.strip()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def path(cls, name):
        return os.path.join(cls.dir, name)

    def run_ok(self, *args):
        r = hashlab(*args)
        self.assertEqual(r.returncode, 0, f"hashlab {' '.join(args)}\n{r.stdout}\n{r.stderr}")
        self.assertIn("verify: ok", r.stdout)
        return r

    def need_gpu(self):
        if not self.gpu:
            self.skipTest("needs a CUDA GPU: " + self.gpu_why)

    # ---- across GPU servers --------------------------------------------------------------------

    def test_cpu_list_json_says_which_entries_run_across_servers(self):
        # `hashlab list --json` says it of every group-by and join, and --gpus agrees: an entry that
        # does not run across servers is refused by name (exit status 2, before anything is read);
        # one that does is not (it runs, or without a GPU stops at the machine, exit status 3).
        listing = hashlab("list", "--json")
        self.assertEqual(listing.returncode, 0, listing.stderr)
        catalogue = json.loads(listing.stdout)["catalogue"]
        p = self.path
        commands = {
            "groupby": lambda a: ["groupby", "--algo", a, "--keys", p("k.npy"), "--values", p("vu.npy")],
            "join": lambda a: ["join", "--algo", a, "--r-keys", p("rk.npy"), "--s-keys", p("sk.npy")],
        }
        across = {}
        for operation, command in commands.items():
            across[operation] = [e["name"] for e in catalogue[operation] if e["across_servers"]]
            for e in catalogue[operation]:
                self.assertIsInstance(e["across_servers"], bool, e["name"])
                with self.subTest(operation=operation, algo=e["name"]):
                    r = hashlab(*command(e["name"]), "--gpus", "2", "--servers-share-gpu", "yes", "--reps", "1")
                    if e["across_servers"]:
                        self.assertIn(r.returncode, (0, 3), r.stderr)
                        self.assertNotIn("does not run across GPU servers", r.stderr)
                    else:
                        self.assertEqual(r.returncode, 2, r.stderr)
                        self.assertIn(f"--algo {e['name']} does not run across GPU servers", r.stderr)
        self.assertEqual(across, {"groupby": ["rapids", "sp_ega", "lphga", "sort", "hash"],
                                  "join": ["bsp", "sort_join", "hash_join"]})

    # ---- group-by ----------------------------------------------------------------------------

    def expected_groupby(self, keys, values, aggs):
        df = pd.DataFrame({**keys, **values})
        g = df.groupby(list(keys), sort=True)
        out = pd.DataFrame(index=g.size().index)
        for v in values:
            for a in aggs:
                out[f"{a}_{v}"] = g[v].agg(a)
        return out.reset_index()

    def check_groupby(self, algo, keys, values, aggs, out_name="r.npy", extra=()):
        out = self.path(out_name)
        self.run_ok("groupby", "--algo", algo, "--keys", *[self.path(k + ".npy") for k in keys],
                    "--values", *[self.path(v + ".npy") for v in values], "--agg", ",".join(aggs),
                    "--out", out, "--verify", "--reps", "1", *extra)
        got = pd.read_csv(out) if out.endswith(".csv") else pd.DataFrame(np.load(out))
        expected = self.expected_groupby({k: getattr(self, k) for k in keys},
                                         {v: getattr(self, v) for v in values}, aggs)
        got = got.sort_values(list(keys)).reset_index(drop=True)
        self.assertEqual(list(got.columns), list(expected.columns), algo)
        self.assertEqual(len(got), len(expected), algo)
        for c in expected.columns:
            if expected[c].dtype.kind == "f" or got[c].dtype.kind == "f":
                np.testing.assert_allclose(got[c].to_numpy(float), expected[c].to_numpy(float), rtol=1e-9,
                                           err_msg=f"{algo} {c}")
            else:
                np.testing.assert_array_equal(got[c].to_numpy(np.int64), expected[c].to_numpy(np.int64),
                                              err_msg=f"{algo} {c}")

    def test_cpu_groupby_equals_pandas(self):
        self.check_groupby("cpu", ["k"], ["vi", "vf"], AGGS)
        self.check_groupby("cpu", ["k"], ["vu"], ["max", "mean"], out_name="r.csv")

    def test_gpu_groupbys_equal_pandas(self):
        self.need_gpu()
        for algo in GROUPBY_GPU:
            with self.subTest(algo=algo):
                self.check_groupby(algo, ["k"], ["vu"], AGGS, extra=["--gpu-memory-budget", "64MiB"] if algo == "mp_ega" else [])
        for sampling in ("none", "cpu", "gpu"):
            with self.subTest(sampling=sampling):
                self.check_groupby("rapids", ["k", "k2"], ["vi"], AGGS, extra=["--sampling", sampling])
                self.check_groupby("rapids", ["k2"], ["vf"], AGGS, extra=["--sampling", sampling])

    # ---- join --------------------------------------------------------------------------------

    def check_join(self, algo):
        out = self.path("j.npy")
        self.run_ok("join", "--algo", algo, "--r-keys", self.path("rk.npy"), "--r-values", self.path("rv.npy"),
                    "--s-keys", self.path("sk.npy"), "--out", out, "--verify", "--reps", "1")
        got = pd.DataFrame(np.load(out))
        r = pd.DataFrame({"key": self.rk, "rv": self.rv})
        s = pd.DataFrame({"key": self.sk, "s_row": np.arange(self.n, dtype=np.uint32)})
        expected = r.merge(s, on="key").sort_values("key").reset_index(drop=True)
        self.assertEqual(list(got.columns), ["key", "rv", "s_row"])
        np.testing.assert_array_equal(got.to_numpy(np.int64), expected.to_numpy(np.int64), err_msg=algo)

    def test_cpu_join_equals_pandas(self):
        self.check_join("cpu")

    def test_gpu_joins_equal_pandas(self):
        self.need_gpu()
        for algo in JOIN_GPU:
            with self.subTest(algo=algo):
                self.check_join(algo)

    # ---- table -------------------------------------------------------------------------------

    def test_gpu_tables_equal_pandas(self):
        self.need_gpu()
        queries = np.concatenate([self.sk, self.rk[:100]])
        np.save(self.path("q.npy"), queries)
        for algo in TABLES:
            with self.subTest(algo=algo):
                build = "k" if algo == "hashgraph" else "rk"  # hashgraph takes repeated keys
                keys = getattr(self, build)
                values = self.vu if algo == "hashgraph" else self.rv % 0xfffffff0
                np.save(self.path("tv.npy"), values)
                out = self.path("t.npy")
                q = self.path("q.npy") if algo != "hashgraph" else self.path("k.npy")
                self.run_ok("table", "--algo", algo, "--build", self.path(build + ".npy"), "--values",
                            self.path("tv.npy"), "--probe", q, "--out", out, "--verify", "--reps", "1")
                got = pd.DataFrame(np.load(out))
                per_key = pd.DataFrame({"key": keys, "v": values}).groupby("key")["v"].agg(["size", "min"])
                qs = queries if algo != "hashgraph" else self.k
                expected = per_key.reindex(qs).fillna(0).astype(np.int64)
                np.testing.assert_array_equal(got["count"].to_numpy(np.int64), expected["size"].to_numpy(), algo)
                np.testing.assert_array_equal(got["value"].to_numpy(np.int64), expected["min"].to_numpy(), algo)

    # ---- bad input ---------------------------------------------------------------------------

    def assert_error(self, args, *expected_words):
        r = hashlab(*args)
        self.assertEqual(r.returncode, 2, f"hashlab {' '.join(args)}: {r.stdout} {r.stderr}")
        self.assertTrue(r.stderr.startswith("hashlab: error: "), r.stderr)
        for w in expected_words:
            self.assertIn(w, r.stderr)
        self.assertNotIn("Aborted", r.stderr)

    def test_bad_inputs_are_clear_errors(self):
        p = self.path
        np.save(p("half.npy"), self.vi[: self.n // 2])
        np.save(p("f16.npy"), self.vf.astype(np.float16))
        np.save(p("neg.npy"), -self.vi)
        sentinel = self.k.copy()
        sentinel[7] = 0xFFFFFFFF
        np.save(p("sentinel.npy"), sentinel)
        with open(p("garbage.npy"), "wb") as f:
            f.write(b"not an npy file")
        with open(p("text.csv"), "w") as f:
            f.write("k\n1\ntwo\n")
        dup = self.rk.copy()
        dup[5] = dup[9]
        np.save(p("dup.npy"), dup)
        g = ["groupby", "--algo"]
        # wrong dtype
        self.assert_error(g + ["cpu", "--keys", p("f16.npy"), "--values", p("vi.npy")], "f16.npy", "dtype")
        self.assert_error(g + ["cpu", "--keys", p("vf.npy"), "--values", p("vi.npy")], "vf.npy", "integers")
        self.assert_error(g + ["sp_ega", "--keys", p("k.npy"), "--values", p("vf.npy")], "vf.npy", "floating")
        self.assert_error(g + ["sort", "--keys", p("k.npy"), "--values", p("vi.npy")], "vi.npy", "row",
                          "unsigned 32-bit")
        self.assert_error(g + ["cpu", "--keys", p("neg.npy"), "--values", p("vi.npy")], "neg.npy", "row")
        # unequal lengths
        self.assert_error(g + ["cpu", "--keys", p("k.npy"), "--values", p("half.npy")], "half.npy", "rows")
        self.assert_error(["join", "--algo", "cpu", "--r-keys", p("rk.npy"), "--r-values", p("half.npy"),
                           "--s-keys", p("sk.npy")], "half.npy")
        # a sentinel key the algorithm cannot hold
        for algo in ("sp_ega", "lphga", "mp_ega", "hash"):
            self.assert_error(g + [algo, "--keys", p("sentinel.npy"), "--values", p("vu.npy")], "sentinel.npy",
                              "row 7", "4294967295")
        self.assert_error(["table", "--algo", "cuckoo", "--build", p("sentinel.npy"), "--probe", p("k.npy")],
                          "sentinel.npy")
        # files that do not parse
        self.assert_error(g + ["cpu", "--keys", p("garbage.npy"), "--values", p("vi.npy")], "garbage.npy")
        self.assert_error(g + ["cpu", "--keys", p("text.csv"), "--values", p("vi.npy")], "text.csv", "line 3")
        self.assert_error(g + ["cpu", "--keys", p("missing.npy"), "--values", p("vi.npy")], "missing.npy")
        # beyond the algorithm's limits: key columns, and repeated keys where they must be unique
        self.assert_error(g + ["cpu", "--keys", p("k.npy"), p("k2.npy"), "--values", p("vi.npy")], "one 32-bit key column")
        nine = [p(f"k{i}.npy") for i in range(9)]
        for f in nine:
            np.save(f, self.k)
        self.assert_error(g + ["rapids", "--keys", *nine, "--values", p("vi.npy")], "9 key columns")
        self.assert_error(g + ["rapids", "--keys", p("k.npy"), p("k.npy"), "--values", p("vi.npy")], "k.npy twice")
        self.assert_error(["join", "--algo", "cpu", "--r-keys", p("dup.npy"), "--s-keys", p("sk.npy")], "dup.npy",
                          "unique")
        self.assert_error(["table", "--algo", "cuckoo", "--build", p("dup.npy"), "--probe", p("sk.npy")], "dup.npy")
        # options
        self.assert_error(g + ["nope", "--keys", p("k.npy"), "--values", p("vi.npy")], "nope", "choices")
        self.assert_error(g + ["cpu", "--keys", p("k.npy"), "--values", p("vi.npy"), "--agg", "median"], "median")
        self.assert_error(g + ["cpu", "--keys", p("k.npy"), "--values", p("vi.npy"), "--out", p("r.parquet")],
                          "r.parquet")
        self.assert_error(g + ["cpu", "--keys", p("k.npy"), "--values", p("vi.npy"), "--reps", "0"], "--reps")


if __name__ == "__main__":
    unittest.main()
