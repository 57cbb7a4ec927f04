#!/usr/bin/env python3
"""A call from Python on CuPy arrays against the same algorithm through the `hashlab` command
(a benchmark, not a test): both time the algorithm's run with the harness's timing routine
(warm-ups, then the median of the repetitions), the command on columns it read from .npy files,
Python on device arrays it reads in place. Issue 26 asks the Python median to lie within 10% of
the command's. The wall-clock time of a whole Python call (make, run, the answer left on the
device) is printed beside, as information, with the addresses the algorithm read its columns at
(the CuPy arrays' own: no copy).

    python3 python/benchmarks/bench_vs_cli.py --hashlab build/hashlab                # group-by, hash, 2^27 rows
    python3 python/benchmarks/bench_vs_cli.py --operation table --algo cuckoo
    python3 python/benchmarks/bench_vs_cli.py --operation join --algo bsp

Needs a GPU, CuPy and the package (pip install ., or PYTHONPATH=python with
HASHLAB_EXTENSION_DIR=build/python/hashlab). Exit status 1 when a median differs by more than
--tolerance.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import hashlab


def command_medians(hashlab_binary, args):
    """The medians the command printed ("time: median 1.234 ms of 7 runs ..."), by what."""
    out = subprocess.run([hashlab_binary] + args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{hashlab_binary} {' '.join(args)} failed ({out.returncode}):\n{out.stdout}{out.stderr}")
    found = dict(re.findall(r"^(time|build|probe): median ([0-9.]+) ms", out.stdout, re.M))
    if not found:
        sys.exit(f"no median in the command's output:\n{out.stdout}")
    return {k: float(v) for k, v in found.items()}, out.stdout


def wall_ms(call, cupy, reps):
    """The median wall-clock time of `call` (synchronised) over `reps` calls, after one."""
    call()
    times = []
    for _ in range(reps):
        cupy.cuda.runtime.deviceSynchronize()
        start = time.perf_counter()
        call()
        cupy.cuda.runtime.deviceSynchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hashlab", default="build/hashlab", help="the hashlab command (default build/hashlab)")
    parser.add_argument("--operation", choices=["groupby", "join", "table"], default="groupby")
    parser.add_argument("--algo", help="the catalogue entry (default: hash, bsp, cuckoo)")
    parser.add_argument("--rows", type=int, default=1 << 27, help="keys (default 2^27)")
    parser.add_argument("--groups", type=int, default=1 << 20, help="group-by: distinct keys (default 2^20)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--tolerance", type=float, default=0.10, help="largest relative difference (default 0.10)")
    parser.add_argument("--dir", help="where the .npy columns go (default: a temporary folder)")
    args = parser.parse_args()

    hashlab.require_gpu("the benchmark")
    import cupy

    algo = args.algo or {"groupby": "hash", "join": "bsp", "table": "cuckoo"}[args.operation]
    n = args.rows
    folder = args.dir or tempfile.mkdtemp(prefix="hashlab_bench_")
    os.makedirs(folder, exist_ok=True)

    def save(name, array):
        path = os.path.join(folder, f"{name}.npy")
        np.save(path, cupy.asnumpy(array))
        return path

    print(f"{hashlab.device_info()['name']}: {args.operation} --algo {algo}, {n:,} rows, "
          f"{args.warmup} warm-ups, median of {args.reps}")
    timing = ["--warmup", str(args.warmup), "--reps", str(args.reps)]
    if args.operation == "groupby":
        keys = hashlab.generate_keys(n, "uniform", distinct=args.groups, seed=1, device=True)
        values = hashlab.generate_values(n, 0, 100, seed=2, device=True)
        cli, text = command_medians(args.hashlab, ["groupby", "--algo", algo, "--keys", save("keys", keys),
                                                   "--values", save("values", values)] + timing)
        made = hashlab.GroupBy(algo, keys, values, "sum")
        in_place = made.device_inputs() == [keys.data.ptr, values.data.ptr]
        python = {"time": made.time(args.warmup, args.reps).median_ms}
        whole = wall_ms(lambda: hashlab.groupby(keys, values, "sum", algo=algo), cupy, args.reps)
    elif args.operation == "join":
        r, s = hashlab.generate_pkpk(n, n, match_rate=1.0, key_domain=hashlab.MAX_KEY_DOMAIN, seed=3, device=True)
        cli, text = command_medians(args.hashlab, ["join", "--algo", algo, "--r-keys", save("r", r),
                                                   "--s-keys", save("s", s)] + timing)
        made = hashlab.Join(algo, r, s)
        in_place = made.device_inputs()[0::2] == [r.data.ptr, s.data.ptr]  # values: row numbers, uploaded
        python = {"time": made.time(args.warmup, args.reps).median_ms}
        whole = wall_ms(lambda: hashlab.join(r, s, algo=algo), cupy, args.reps)
    else:
        keys = hashlab.generate_keys(n, "unique", seed=4, device=True)
        cli, text = command_medians(args.hashlab, ["table", "--algo", algo, "--build", save("keys", keys),
                                                   "--probe", save("keys", keys)] + timing)
        table = hashlab.Table(algo, keys)
        build, probe = table.time(keys, args.warmup, args.reps)
        in_place = table.device_inputs()[0::2] == [keys.data.ptr, keys.data.ptr]  # values: row numbers, uploaded
        python = {"build": build.median_ms, "probe": probe.median_ms}
        whole = wall_ms(lambda: hashlab.Table(algo, keys).lookup(keys), cupy, args.reps)

    print(text.rstrip())
    worst = 0.0
    for what, cli_ms in cli.items():
        py_ms = python[what]
        diff = py_ms / cli_ms - 1
        worst = max(worst, abs(diff))
        print(f"{what}: command median {cli_ms:.3f} ms, Python on CuPy arrays median {py_ms:.3f} ms "
              f"({diff:+.1%})")
    print(f"a whole Python call (make, run, the answer left on the device): median {whole:.3f} ms of {args.reps} "
          f"(wall clock)")
    print(f"CuPy arrays read in place (by address): {'yes' if in_place else 'NO'}")
    ok = worst <= args.tolerance and in_place
    print(f"within {args.tolerance:.0%}: {'yes' if ok else 'no'} (largest difference {worst:.1%})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
