#!/usr/bin/env bash
# GPU validation in one go (for a lent GPU machine or any GPU box): configure + build, every
# test, compute-sanitizer memcheck and racecheck over the GPU test binaries, the device probe,
# then the given experiments. Logs go to $LOG_DIR (default build/gpu_check).
#
#   scripts/gpu_check.sh [--no-sanitize] [--sanitize-filter F] [--run "paper [exp...] [opts]"]...
#
# Environment: CMAKE_PREFIX_PATH (extra library prefixes), JOBS, BUILD_DIR, LOG_DIR, OUT,
# HASHLAB_GIT_SHA (the revision to record when the tree was shipped without a matching .git).
set -uo pipefail
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
LOG_DIR=${LOG_DIR:-$BUILD_DIR/gpu_check}
OUT=${OUT:-results}
sanitize=1
sanitize_filter="*"
runs=()
while [ $# -gt 0 ]; do
  case $1 in
    --no-sanitize) sanitize=0 ;;
    --sanitize-filter) sanitize_filter=$2; shift ;;
    --run) runs+=("$2"); shift ;;
    *) echo "gpu_check: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$LOG_DIR"
status=0
step() { echo "== $*"; }

step "device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
step "configure + build"
cmake -S . -B "$BUILD_DIR" -U "Boost*" -U "boost*" -DCMAKE_BUILD_TYPE=Release ${CUDA_ARCH:+-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCH} \
  ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH} > "$LOG_DIR/configure.log" 2>&1 || { tail -30 "$LOG_DIR/configure.log"; exit 1; }
start=$(date +%s)
cmake --build "$BUILD_DIR" -j "$JOBS" > "$LOG_DIR/build.log" 2>&1 || { grep -E "error" "$LOG_DIR/build.log" | head -40; exit 1; }
echo "built in $(( $(date +%s) - start )) s"

step "tests"
ctest --test-dir "$BUILD_DIR" -j "$JOBS" --output-on-failure > "$LOG_DIR/ctest.log" 2>&1 || status=1
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|\(Skipped\)" "$LOG_DIR/ctest.log" | head -40

if [ $sanitize = 1 ]; then
  for bin in $(find "$BUILD_DIR" -name '*_tests' -type f -perm -u+x | sort); do
    name=$(basename "$bin")
    # CPU-only tests and the tests that fail a CUDA call on purpose are left out.
    # Suites named *Large (big inputs) are left out too: under instrumentation they take minutes.
    negative="DeliberateApiError.*:Cli.*:Runner.*:Timing.*:Cache.*:*Large.*"
    for tool in memcheck racecheck; do
      # The probe asserts plausible rates, which no instrumented run reaches; memcheck still
      # covers its kernels, and they use no shared memory for racecheck to inspect.
      [ $tool = racecheck ] && negative="$negative:ProbeGpuExclusive.*"
      step "compute-sanitizer $tool $name"
      timeout 600 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 \
        "$bin" --gtest_filter="$sanitize_filter:-$negative" --gtest_brief=1 > "$LOG_DIR/${tool}_$name.log" 2>&1
      rc=$?
      tail -3 "$LOG_DIR/${tool}_$name.log"
      [ $rc -ne 0 ] && { status=1; grep -E "=========|FAILED" "$LOG_DIR/${tool}_$name.log" | head -20; }
    done
  done
fi

step "probe"
"$BUILD_DIR/hashlab" probe --out "$OUT" || status=1
for r in "${runs[@]}"; do
  step "hashlab run $r"
  # shellcheck disable=SC2086
  "$BUILD_DIR/hashlab" run $r --out "$OUT" 2>&1 | tee -a "$LOG_DIR/runs.log" | grep -vE "^\[" || true
  [ "${PIPESTATUS[0]}" -ne 0 ] && status=1
done
exit $status
