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
#   crash      what a crash of the interpreter needs to be found, on the build tree's extension
#              (BUILD_DIR/python/hashlab, as make test runs it; _core is built first): the versions
#              of nanobind and of the packages beside it; each run in a process of its own with the
#              fault handler on: test_generator.py alone (a crash there is the environment's, not
#              the notebooks'); the RAPIDS notebook alone, a failing cell's traceback printed; every
#              notebook in one process, a canary of host allocations after each cell
#              (python/tests/notebook_canary.py), then test_generator.py in that process, the order
#              in which Python.package crashed at 23aa942 on an H200: plainly, with
#              PYTHONMALLOC=debug, with glibc's malloc check (MALLOC_CHECK_=3, libc_malloc_debug, no
#              tcache), and under gdb when there is one (every thread's C stack, and the shared
#              libraries loaded, libstdc++'s among them). Each log's last "canary after" line names
#              the last cell after which the heap was sound
#   asan       (not among the defaults) the extension and the libraries it links built with
#              AddressSanitizer into BUILD_DIR-asan, then the crash step's canary run under it
#              (host code only: what kernels and copies write is not checked)
#
# Without steps, all of them but asan in this order. Each command runs under a time limit
# (STEP_TIMEOUT, default 540 s: each canary run of the crash step runs every notebook once, as the
# notebooks step does; the asan build compiles the extension's libraries anew) and its exit status
# goes to LOG_DIR/summary.txt; the script's own status is 1 when any failed. Environment:
# BUILD_DIR (build), JOBS, CUDA_ARCH, VENV (default ${TMPDIR:-/tmp}/hashlab_venv; kept between
# runs, so that `pytest` can follow `install` in a later call), HASHLAB_GIT_SHA (the revision to
# record when the tree has no .git).
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 2; }
LOG_DIR=$(mkdir -p "$1" && cd "$1" && pwd)
shift
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build catalogue install pytest bench notebooks crash)
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

configure=(cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${CUDA_ARCH:+-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCH})

# The interpreter a build tree's extension was built for (CMake's Python, else $PY), as the path of
# its executable (not a launcher script, which gdb cannot run).
tree_python() {
  local found
  found=$(sed -n 's/^_\{0,1\}Python_EXECUTABLE:[A-Z]*=//p' "$1/CMakeCache.txt" 2>/dev/null | head -n 1)
  [ -n "$found" ] && [ -x "$found" ] || found=$PY
  "$found" -c 'import sys; print(sys.executable)'
}

# canary_runs NAME EXTENSION_DIR PYTHON [VAR=VALUE ...]: notebook_canary.py over every notebook in one
# process, then test_generator.py in it, with the build tree's package (variables before the command).
canary_runs() {
  local name=$1 ext=$2 py=$3
  shift 3
  run "$name" env PYTHONPATH="$REPO/python" HASHLAB_EXTENSION_DIR="$ext" MPLBACKEND=Agg "$@" \
    "$py" -X faulthandler python/tests/notebook_canary.py docs/notebooks/*.ipynb \
    --then-pytest python/tests/test_generator.py
  grep -E "^canary after|^FAILED|Fatal Python error|ERROR: AddressSanitizer|passed|failed" "$LOG_DIR/$name.log" | tail -4
}

for step in "${steps[@]}"; do
  case $step in
    build)
      { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; $PY --version;
        $PY -c 'import cupy, numpy; print("cupy", cupy.__version__, "numpy", numpy.__version__)';
        $PY -c 'import torch; print("torch", torch.__version__)';
        $PY -c 'import nanobind; print("nanobind", nanobind.__version__)'; } > "$LOG_DIR/device.txt" 2>&1
      cat "$LOG_DIR/device.txt"
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
      # --system-site-packages gives the base interpreter's packages; where $PY runs in an environment
      # of its own (the GPU hosts' /opt/torch/.venv), a .pth names that environment's packages too.
      run install bash -c "$PY -m venv --system-site-packages '$VENV' &&
        $PY -c 'import sys, sysconfig; sys.prefix != sys.base_prefix and print(sysconfig.get_paths()[\"purelib\"]); sys.prefix != sys.base_prefix and print(sysconfig.get_paths()[\"platlib\"])' \
          > \"\$('$VENV/bin/python' -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')/hashlab_parent_env.pth\" &&
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
    crash)
      run crash_build bash -c "$(printf '%q ' "${configure[@]}") && cmake --build $(printf '%q' "$BUILD_DIR") -j $JOBS --target _core" ||
        { tail -30 "$LOG_DIR/crash_build.log"; continue; }
      ext=$(cd "$BUILD_DIR" && pwd)/python/hashlab
      tpy=$(tree_python "$BUILD_DIR")
      tree=(env PYTHONPATH="$REPO/python" HASHLAB_EXTENSION_DIR="$ext" MPLBACKEND=Agg)
      # What the extension was built with and runs beside (a crash without the notebooks is theirs).
      "${tree[@]}" "$tpy" -c 'import sys, importlib
print("python", sys.version.split()[0], sys.executable)
for name in ("nanobind", "numpy", "pandas", "pyarrow", "matplotlib", "scipy", "cupy", "torch"):
    try:
        print(name, importlib.import_module(name).__version__)
    except Exception as error:
        print(name, "not importable:", error)' > "$LOG_DIR/crash_versions.txt" 2>&1
      cat "$LOG_DIR/crash_versions.txt"
      run crash_generator_alone "${tree[@]}" "$tpy" -X faulthandler -m pytest -p no:cacheprovider -v \
        python/tests/test_generator.py
      tail -3 "$LOG_DIR/crash_generator_alone.log"
      run crash_rapids_notebook "${tree[@]}" "$tpy" -X faulthandler -m hashlab.notebook --check \
        docs/notebooks/rapids_groupby.ipynb
      tail -30 "$LOG_DIR/crash_rapids_notebook.log"
      canary_runs crash_canary "$ext" "$tpy"
      canary_runs crash_canary_pymalloc_debug "$ext" "$tpy" PYTHONMALLOC=debug
      malloc_debug=$(ldconfig -p 2>/dev/null | awk '/libc_malloc_debug\.so\.0 /{print $NF; exit}')
      canary_runs crash_canary_malloc_check "$ext" "$tpy" MALLOC_CHECK_=3 \
        GLIBC_TUNABLES=glibc.malloc.check=3:glibc.malloc.tcache_count=0 ${malloc_debug:+LD_PRELOAD=$malloc_debug}
      if command -v gdb > /dev/null; then
        canary_runs crash_canary_gdb "$ext" "$tpy" gdb -q -batch -return-child-result -ex run \
          -ex "thread apply all bt 30" -ex "info sharedlibrary" --args
        grep -A25 "^Program received signal" "$LOG_DIR/crash_canary_gdb.log" | head -40
      fi
      ;;
    asan)
      asan_dir="${BUILD_DIR}-asan"
      asan_flags=(-DCMAKE_BUILD_TYPE=Release ${CUDA_ARCH:+-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCH}
        -DHASHLAB_BUILD_TESTS=OFF -DHASHLAB_BUILD_PROGRAM=OFF
        "-DCMAKE_CXX_FLAGS=-fsanitize=address -fno-omit-frame-pointer -g"
        "-DCMAKE_CUDA_FLAGS=-Xcompiler=-fsanitize=address,-fno-omit-frame-pointer -g"
        -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address -DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=address)
      run asan_build bash -c "cmake -S . -B $(printf '%q' "$asan_dir") $(printf '%q ' "${asan_flags[@]}") &&
        cmake --build $(printf '%q' "$asan_dir") -j $JOBS --target _core" || { tail -30 "$LOG_DIR/asan_build.log"; continue; }
      # Python is not instrumented: the compiler's ASan runtime goes first, and the libstdc++ the
      # process would load anyway with it (ASan intercepts its throw only when it is there at start).
      cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$asan_dir/CMakeCache.txt" | head -n 1)
      stdcxx=$(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/{print $NF; exit}')
      preload="$("${cxx:-c++}" -print-file-name=libasan.so) ${stdcxx:-$("${cxx:-c++}" -print-file-name=libstdc++.so)}"
      canary_runs asan_canary "$(cd "$asan_dir" && pwd)/python/hashlab" "$(tree_python "$asan_dir")" \
        LD_PRELOAD="$preload" ASAN_OPTIONS=protect_shadow_gap=0:replace_intrin=0:detect_leaks=0:halt_on_error=1
      grep -A30 "ERROR: AddressSanitizer" "$LOG_DIR/asan_canary.log" | head -40
      ;;
    *)
      echo "gpu_validate: unknown step '$step' (build, catalogue, install, pytest, bench, notebooks, crash, asan)" >&2
      exit 2
      ;;
  esac
done
echo "== summary ($LOG_DIR/summary.txt)"
cat "$LOG_DIR/summary.txt"
exit $status
