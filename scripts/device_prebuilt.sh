#!/usr/bin/env bash
# On a lent GPU machine, with binaries built elsewhere for sm_90 (carried as .devbin/bin.tar.xz, with
# .devbin/lib for shared libraries the machine lacks, and .deps for Boost): runs the GPU tests,
# experiments, compute-sanitizer or mutants without spending device time on a build.
#   scripts/device_prebuilt.sh tests                     every test binary (the Large and Exclusive suites first, alone)
#   scripts/device_prebuilt.sh probe                     hashlab probe into $OUT/results (device.json)
#   scripts/device_prebuilt.sh run <paper> [exp...]      hashlab run ... --quick into $OUT/results
#                                                        (PROFILE=--full in the environment: the papers' sizes)
#   scripts/device_prebuilt.sh sanitize <tool> <bin> [gtest filter]
#   scripts/device_prebuilt.sh mutants                   .devbin/mutants/*.bin must fail their tests
#   scripts/device_prebuilt.sh pack                      $OUT's files into one $OUT/out.tgz (run last)
#   scripts/device_prebuilt.sh owndata                   the own-data commands at 2M rows (and MP-EGA
#                                                        on 60M rows, 480 MB, in a 128 MiB budget), --verify
# Logs go to $OUT (or build/prebuilt). The binaries unpack into build/prebuilt/ (PREBUILT=build uses
# the binaries of a build made on the device instead).
set -uo pipefail
OUT=${OUT:-build/prebuilt}
mkdir -p "$OUT"
B=${PREBUILT:-build/prebuilt}  # PREBUILT=build: the binaries of a build made on the device itself
source "$(dirname "$0")/prebuilt_binaries.sh"
use_prebuilt "$B" || exit 1
export HASHLAB_BINARY_DIR=$PWD/$B
what=${1:-}; shift || true
case "$what" in
  tests)
    bins=$(find "$B" -name '*_tests' -type f | sort)
    # Suites named *Large take GBs of GPU memory, *Exclusive ones read the device's free memory or
    # rates: one binary at a time (cmake/hashlab.cmake gives them ctest's RUN_SERIAL).
    for bin in $bins; do
      "$bin" --gtest_filter='*Large.*:*Exclusive.*' --gtest_brief=1 > "$OUT/large_$(basename "$bin").log" 2>&1
      echo "large $(basename "$bin") rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/large_$(basename "$bin").log" | tr '\n' ' ')"
    done
    for bin in $bins; do
      ( "$bin" --gtest_filter='-*Large.*:*Exclusive.*' --gtest_brief=1 > "$OUT/tests_$(basename "$bin").log" 2>&1
        echo "tests $(basename "$bin") rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/tests_$(basename "$bin").log" | tr '\n' ' ')" ) &
    done
    wait
    grep -h '^\[  FAILED  \]' "$OUT"/*tests*.log | sort -u | head -40 ;;
  probe)
    mkdir -p "$OUT/results"
    "$B/hashlab" probe --out "$OUT/results" | tail -9 ;;
  run)
    mkdir -p "$OUT/results"
    [ -f "$OUT/results/device.json" ] || cp results/reference/h100_80gb_hbm3/device.json "$OUT/results/" 2>/dev/null
    t0=$(date +%s)
    "$B/hashlab" run "$@" "${PROFILE:---quick}" --out "$OUT/results" > "$OUT/run_$1.log" 2>&1
    rc=$?
    echo "run $* rc=$rc in $(( $(date +%s) - t0 )) s: $(grep -E '^[0-9]+ points,' "$OUT/run_$1.log")"
    grep -E '^(FAILED|SKIPPED) ' "$OUT/run_$1.log" | head -20 ;;
  sanitize)
    tool=$1 bin=$2 filter=${3:-*}
    path=$(find "$B" -name "$bin" -type f | head -1)
    compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$path" --gtest_filter="$filter" \
      --gtest_brief=1 > "$OUT/${tool}_$bin.log" 2>&1
    echo "$tool $bin rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) ' "$OUT/${tool}_$bin.log" | tr '\n' ' ')" ;;
  mutants)  # .devbin/mutants/<patch>.bin, built by scripts/build_mutants.sh: each must fail its tests
    [ -d .devbin/mutants ] || tar xJf .devbin/mutants.tar.xz -C .devbin
    for bin in .devbin/mutants/*.bin; do
      name=$(basename "$bin" .bin) regex=$(cat "${bin%.bin}.test")
      chmod +x "$bin"
      filter=$("$bin" --gtest_list_tests | awk '/^[^ ]/ {suite=$1} /^  / {print suite $1}' | grep -E "$regex" | paste -sd: -)
      [ -z "$filter" ] && { echo "MUTANT $name: NO TESTS MATCH '$regex'"; continue; }
      "$bin" --gtest_filter="$filter" --gtest_brief=1 > "$OUT/mutant_$name.log" 2>&1
      rc=$?
      if [ $rc -ne 0 ] && grep -q '^\[  FAILED  \]' "$OUT/mutant_$name.log"; then res=killed
      elif grep -q '^\[  SKIPPED \]' "$OUT/mutant_$name.log"; then res="not run (skipped)"
      else res=SURVIVED; fi
      echo "MUTANT $name: $res  [$(grep -c '^\[  FAILED  \]' "$OUT/mutant_$name.log") failed lines; tests: $regex]"
    done ;;
  owndata)  # every GPU algorithm of each own-data command on numpy-written columns, verified (--verify
            # checks against the CPU reference, computed by sorting on all cores above 2^20 rows)
    d=$(mktemp -d)
    python3 - "$d" <<'PY'
import sys, numpy as np
d, rng, n = sys.argv[1], np.random.default_rng(5), 2_000_000
np.save(f"{d}/k.npy", rng.integers(0, 200_000, n).astype(np.uint32))
np.save(f"{d}/k2.npy", rng.integers(0, 8, n).astype(np.uint32))
np.save(f"{d}/v.npy", rng.integers(0, 1000, n).astype(np.uint32))
perm = rng.permutation(2 * n).astype(np.uint32)
np.save(f"{d}/rk.npy", perm[:n]); np.save(f"{d}/sk.npy", perm[n // 2: n // 2 + n])
big = 60_000_000
np.save(f"{d}/bk.npy", rng.integers(0, 5_000_000, big, dtype=np.uint32))
np.save(f"{d}/bv.npy", rng.integers(0, 1000, big, dtype=np.uint32))
PY
    H=$B/hashlab log=$OUT/own_data_commands.log
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$log"
    for a in rapids sp_ega lphga mp_ega sort hash; do
      echo "\$ hashlab groupby --algo $a --keys k.npy --values v.npy --agg sum,min,max,count,mean --verify" >> "$log"
      "$H" groupby --algo $a --keys $d/k.npy --values $d/v.npy --agg sum,min,max,count,mean --verify >> "$log" 2>&1; echo "rc=$?" >> "$log"
    done
    echo "\$ hashlab groupby --algo rapids --keys k.npy k2.npy --values v.npy --agg sum,mean --verify" >> "$log"
    "$H" groupby --algo rapids --keys $d/k.npy $d/k2.npy --values $d/v.npy --agg sum,mean --verify >> "$log" 2>&1; echo "rc=$?" >> "$log"
    for a in bsp sort hash hashgraph cpu; do
      echo "\$ hashlab join --algo $a --r-keys rk.npy --s-keys sk.npy --verify" >> "$log"
      "$H" join --algo $a --r-keys $d/rk.npy --s-keys $d/sk.npy --verify >> "$log" 2>&1; echo "rc=$?" >> "$log"
    done
    for a in cuckoo hashgraph linear_probing sorted_array; do
      echo "\$ hashlab table --algo $a --build rk.npy --probe sk.npy --verify" >> "$log"
      "$H" table --algo $a --build $d/rk.npy --probe $d/sk.npy --verify >> "$log" 2>&1; echo "rc=$?" >> "$log"
    done
    echo "\$ hashlab groupby --algo mp_ega --keys bk.npy --values bv.npy --agg sum --gpu-memory-budget 128MiB --reps 1 --warmup 0 --verify  (60M rows, 480 MB of columns)" >> "$log"
    "$H" groupby --algo mp_ega --keys $d/bk.npy --values $d/bv.npy --agg sum --gpu-memory-budget 128MiB --reps 1 --warmup 0 --verify >> "$log" 2>&1; echo "rc=$?" >> "$log"
    rm -rf "$d"
    grep -c "verify: ok" "$log" | sed 's/^/verified commands: /'; grep -E "^rc=[^0]|FAILED|error" "$log" | head ;;
  pack)  # everything under $OUT into one $OUT/out.tgz: a call brings back only a few files
    [ "$OUT" = "$B" ] && { echo "pack: set OUT (the device's output folder), not the binaries' folder"; exit 2; }
    tar czf /tmp/out.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/out.tgz "$OUT/out.tgz"
    echo "packed: $(tar tzf "$OUT/out.tgz" | wc -l) entries in $OUT/out.tgz" ;;
  *) echo "usage: $0 tests | probe | run <paper> [exp...] | sanitize <tool> <binary> [filter] | mutants | owndata | pack"; exit 2 ;;
esac
