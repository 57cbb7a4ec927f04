#!/usr/bin/env bash
# GPU validation in one go on a GPU box that can build (a node that cannot: scripts/bundle.sh):
# configure + build, every test, compute-sanitizer memcheck and racecheck over the GPU test binaries, on a host with
# several GPUs the servers' tests under mpirun, the device probe, then the given experiments.
# Logs go to $LOG_DIR (default build/gpu_check).
#
#   scripts/gpu_check.sh [--no-sanitize] [--sanitize-filter F] [--run "paper [exp...] [opts]"]...
#
# Environment: CMAKE_PREFIX_PATH (extra library prefixes), JOBS, BUILD_DIR, LOG_DIR, OUT,
# HASHLAB_GIT_SHA (the revision to record when the sources carry no git history, cmake/git_sha.cmake).
set -uo pipefail
# NVLink multicast stays off on GPUs others share (servers/README.md), unless the caller set it.
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
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
  # The *_mpi_tests binaries need mpirun (below), not the sanitizer.
  for bin in $(find "$BUILD_DIR" -name '*_tests' ! -name '*_mpi_tests' -type f -perm -u+x | sort); do
    name=$(basename "$bin")
    # CPU-only tests and the tests that fail a CUDA call on purpose are left out.
    # Suites named *Large (big inputs) are left out too: under instrumentation they take minutes.
    # The NCCL servers (parameters nccl1, nccl2, ...) are left out: NCCL's own kernels are not
    # ours to check, and the same collectives run under the local backend (local1 .. local4).
    negative="DeliberateApiError.*:Cli.*:Runner.*:Timing.*:Cache.*:*Large.*:*/nccl*"
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

# The servers in the second launch mode, one process per GPU under mpirun (2 and 4 GPUs as the
# host has them); --fail-on 1 must end every process with a non-zero status, never hang.
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -ge 2 ] && command -v mpirun >/dev/null 2>&1 && [ -x "$BUILD_DIR/servers/servers_mpi_tests" ]; then
  root=()
  [ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
  for np in 2 4; do
    [ "$np" -gt "$gpus" ] && continue
    for bin in "$BUILD_DIR/servers/servers_mpi_tests" "$BUILD_DIR/papers/pkpk_join/pkpk_join_mpi_tests"; do
      step "mpirun -np $np $(basename "$bin")"
      timeout 600 mpirun "${root[@]}" -np "$np" -x NCCL_NVLS_ENABLE "$bin" > "$LOG_DIR/mpi_${np}_$(basename "$bin").log" 2>&1 ||
        status=1
      tail -3 "$LOG_DIR/mpi_${np}_$(basename "$bin").log"
    done
    step "mpirun -np $np servers_mpi_tests --fail-on 1 (must end every process, status != 0)"
    timeout 120 mpirun "${root[@]}" -np "$np" -x NCCL_NVLS_ENABLE "$BUILD_DIR/servers/servers_mpi_tests" --fail-on 1 \
      > "$LOG_DIR/mpi_${np}_fail_on.log" 2>&1
    rc=$?
    tail -3 "$LOG_DIR/mpi_${np}_fail_on.log"
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then echo "FAILED: --fail-on 1 exited $rc (0: no error; 124: a hang)"; status=1; fi
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
