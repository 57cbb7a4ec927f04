#!/usr/bin/env bash
# The Python package's validation on a GPU (issue 26), step by step, each step's log in LOG_DIR:
#
#   python/gpu_validate.sh LOG_DIR [step ...]        # from the repository's root
#
#   build      the hashlab command and the catalogue's tests (the benchmark times the command)
#   catalogue  build/catalogue/catalogue_tests, then compute-sanitizer memcheck over its GPU tests
#              (the device answers' kernels, the device NaN check, the address checks)
#   install    pip install . into a fresh virtual environment that sees the system's packages
#              (--no-build-isolation --no-index: no network), then `import hashlab` outside the tree
#   pytest     every test of python/tests against the installed package, device arrays included
#              (CuPy, PyTorch); the notebooks are the next step's
#   bench      python/benchmarks/bench_vs_cli.py at 2^27 keys: group-by (hash), join (bsp), table
#              (cuckoo), Python on CuPy arrays against the command, both with the harness's routine
#   notebooks  python -m hashlab.notebook docs/notebooks/*.ipynb: every cell run, the outputs
#              written into the notebooks (copied to LOG_DIR/notebooks/ too)
#
# Without steps, all of them in this order. Each step runs under a time limit (STEP_TIMEOUT,
# default 540 s) and its exit status goes to LOG_DIR/summary.txt; the script's own status is 1
# when any step failed. Environment: BUILD_DIR (build), JOBS, CUDA_ARCH, VENV (default
# ${TMPDIR:-/tmp}/hashlab_venv; kept between runs, so that `pytest` can follow `install` in a
# later call), HASHLAB_GIT_SHA (the revision to record when the tree has no .git).
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,25p' "$0"; exit 2; }
LOG_DIR=$(mkdir -p "$1" && cd "$1" && pwd)
shift
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build catalogue install pytest bench notebooks)
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
VENV=${VENV:-${TMPDIR:-/tmp}/hashlab_venv}
STEP_TIMEOUT=${STEP_TIMEOUT:-540}
PY=python3
status=0

# run NAME COMMAND...: the command's output into LOG_DIR/NAME.log, its status and time into the summary.
run() {
  local name=$1 start rc
  shift
  start=$(date +%s)
  echo "== $name: $*"
  timeout "$STEP_TIMEOUT" "$@" > "$LOG_DIR/$name.log" 2>&1
  rc=$?
  echo "$name: exit $rc in $(( $(date +%s) - start )) s" | tee -a "$LOG_DIR/summary.txt"
  [ $rc -eq 124 ] && echo "$name: timed out after $STEP_TIMEOUT s" | tee -a "$LOG_DIR/summary.txt"
  [ $rc -ne 0 ] && status=1
  return $rc
}

# What `import hashlab` must give after the install: the package in the environment, a GPU.
IMPORT_CHECK=$(cat <<'EOF'
import os, hashlab, hashlab._core
print("hashlab", hashlab.__file__)
print("extension", hashlab._core.__file__)
assert hashlab._core.__file__.startswith(os.environ["VENV"]), "not the installed package"
available, why = hashlab.gpu_status()
print("GPU:", hashlab.device_info()["name"] if available else "none: " + why)
print(hashlab.catalogue()[["operation", "name", "needs_gpu"]].to_string())
assert available, why
EOF
)

venv_python() {
  [ -x "$VENV/bin/python" ] || { echo "no environment at $VENV: run the install step first" >&2; return 1; }
  echo "$VENV/bin/python"
}

for step in "${steps[@]}"; do
  case $step in
    build)
      { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; $PY --version;
        $PY -c 'import cupy, numpy; print("cupy", cupy.__version__, "numpy", numpy.__version__)';
        $PY -c 'import torch; print("torch", torch.__version__)'; } > "$LOG_DIR/device.txt" 2>&1
      cat "$LOG_DIR/device.txt"
      configure=(cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${CUDA_ARCH:+-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCH})
      build_cmd=(cmake --build "$BUILD_DIR" -j "$JOBS" --target hashlab catalogue_tests)
      run build bash -c "$(printf '%q ' "${configure[@]}") && $(printf '%q ' "${build_cmd[@]}")" ||
        tail -30 "$LOG_DIR/build.log"
      ;;
    catalogue)
      run catalogue_tests "$BUILD_DIR/catalogue/catalogue_tests"
      tail -3 "$LOG_DIR/catalogue_tests.log"
      run catalogue_memcheck compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 \
        "$BUILD_DIR/catalogue/catalogue_tests" --gtest_filter='GroupByEntries.*:JoinEntries.*:TableEntries.*' --gtest_brief=1
      tail -3 "$LOG_DIR/catalogue_memcheck.log"
      ;;
    install)
      # A fresh environment each time: what `pip install .` gives a user, the GPU host's CuPy,
      # PyTorch, pandas, nanobind and scikit-build-core seen through the system's packages.
      rm -rf "$VENV"
      run install bash -c "$PY -m venv --system-site-packages '$VENV' &&
        '$VENV/bin/python' -m pip install --no-build-isolation --no-index --no-deps -v . -C build-dir=build-pip \
          ${CUDA_ARCH:+-C cmake.define.CMAKE_CUDA_ARCHITECTURES=$CUDA_ARCH}" || tail -30 "$LOG_DIR/install.log"
      # Outside the tree, with nothing pointing at the sources: the installed package alone.
      run import env -u PYTHONPATH -u HASHLAB_EXTENSION_DIR VENV="$VENV" \
        bash -c 'cd / && "$VENV/bin/python" -c "$0"' "$IMPORT_CHECK"
      cat "$LOG_DIR/import.log"
      ;;
    pytest)
      py=$(venv_python) || { status=1; continue; }
      run pytest env -u PYTHONPATH -u HASHLAB_EXTENSION_DIR "$py" -m pytest -p no:cacheprovider -v -rs \
        --ignore=python/tests/test_docs_notebooks.py python/tests
      grep -E "^hashlab extension|^GPU:|passed|failed|SKIPPED|FAILED|ERROR" "$LOG_DIR/pytest.log" | tail -30
      ;;
    bench)
      py=$(venv_python) || { status=1; continue; }
      for operation in groupby join table; do
        data=$(mktemp -d "${TMPDIR:-/tmp}/hashlab_bench_XXXXXX")  # 2^27-row .npy columns: not in the logs
        run "bench_$operation" env -u PYTHONPATH -u HASHLAB_EXTENSION_DIR "$py" python/benchmarks/bench_vs_cli.py \
          --hashlab "$BUILD_DIR/hashlab" --operation "$operation" --rows $((1 << 27)) --dir "$data"
        rm -rf "$data"
        grep -E "median|within|in place|whole" "$LOG_DIR/bench_$operation.log"
      done
      ;;
    notebooks)
      py=$(venv_python) || { status=1; continue; }
      run notebooks env -u PYTHONPATH -u HASHLAB_EXTENSION_DIR "$py" -m hashlab.notebook docs/notebooks/*.ipynb
      tail -10 "$LOG_DIR/notebooks.log"
      mkdir -p "$LOG_DIR/notebooks"
      cp docs/notebooks/*.ipynb "$LOG_DIR/notebooks/"
      ;;
    *)
      echo "gpu_validate: unknown step '$step' (build, catalogue, install, pytest, bench, notebooks)" >&2
      exit 2
      ;;
  esac
done
echo "== summary ($LOG_DIR/summary.txt)"
cat "$LOG_DIR/summary.txt"
exit $status
