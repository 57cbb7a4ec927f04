#!/usr/bin/env bash
# A bundle for a GPU node without network access (a cluster's compute node, say): everything built
# here, nothing to build or download there.
#
#   scripts/bundle.sh [--build DIR] [--out FILE] [--mutants] [--debs PKG...] [--wheels REQ...]
#
# It builds DIR (default build/: configure it for the node's GPU, e.g. make CUDA_ARCH=90) and packs
# into FILE (default build/hashlab-bundle-<revision>.tar.gz):
#   bin/        hashlab and every test binary of the build
#   lib/        the shared libraries they load beyond the C runtime and the GPU driver (Boost, NCCL)
#   source/     this revision's tracked files (git archive): the committed reference results, the
#               plots, the claims, the scripts, the data generators
#   mutants/    with --mutants: one test binary per scripts/mutants/*.patch (each must fail its tests)
#   debs/       with --debs: those Debian packages (apt-get download), for the node's own builds
#   wheels/     with --wheels: those Python packages and their dependencies (pip download), e.g.
#               --wheels matplotlib pandas tpchgen-cli
#   run.sh      the one command on the node (it says what it runs):
#                 run.sh tests [gtest filter]            every test binary, one after another
#                 run.sh hashlab ARGS...                 the program, e.g. run.sh hashlab run compare --out results
#                 run.sh sanitize TOOL BINARY [FILTER]   compute-sanitizer (memcheck, racecheck, ...) over a test binary
#                 run.sh mutants                         each mutant's tests must fail
#                 run.sh python-setup                    pip install --no-index the carried wheels (--user)
#                 run.sh python ARGS...                  python3 in source/ (e.g. plots/make_plots.py --results results)
# On the node: tar xzf hashlab-bundle-*.tar.gz && cd hashlab-bundle-* && ./run.sh tests
set -euo pipefail
cd "$(dirname "$0")/.."
build=build out="" mutants=0 debs=() wheels=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift ;;
    --out) out=$2; shift ;;
    --mutants) mutants=1 ;;
    --debs) shift; while [ $# -gt 0 ] && [[ $1 != --* ]]; do debs+=("$1"); shift; done; continue ;;
    --wheels) shift; while [ $# -gt 0 ] && [[ $1 != --* ]]; do wheels+=("$1"); shift; done; continue ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bundle: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -f "$build/CMakeCache.txt" ] || { echo "bundle: no build in $build: run make (or cmake -S . -B $build) first" >&2; exit 2; }
revision=$(git rev-parse --short=12 HEAD)
[ -n "$(git status --porcelain --untracked-files=no)" ] && revision="$revision-dirty"
name=hashlab-bundle-$revision
out=${out:-$build/$name.tar.gz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/$name
mkdir -p "$root/bin" "$root/lib" "$root/source"

echo "bundle: building $build"
cmake --build "$build" -j "$(nproc)" > "$stage/build.log" 2>&1 || { grep -E "error" "$stage/build.log" | head -20; exit 1; }
cp "$build/hashlab" "$root/bin/"
find "$build" -name '*_tests' -type f -perm -u+x -exec cp {} "$root/bin/" \;
git archive HEAD | tar x -C "$root/source"
echo "$revision" > "$root/REVISION"

# The shared libraries the binaries load, but the C runtime and the GPU driver (the node's own).
for bin in "$root"/bin/*; do
  ldd "$bin" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libcuda.so*|libnvidia-*) ;;
    *) cp -L "$lib" "$root/lib/" ;;
  esac
done

if [ $mutants = 1 ]; then
  mkdir -p "$root/mutants"
  for p in scripts/mutants/*.patch; do
    m=$(basename "$p" .patch)
    target=$(sed -n 's/^# target: //p' "$p" | head -1)
    git apply "$p" || { echo "bundle: mutant $m does not apply" >&2; exit 1; }
    if cmake --build "$build" --target "$target" -j "$(nproc)" > "$stage/mutant_$m.log" 2>&1; then
      cp "$(find "$build" -name "$target" -type f -perm -u+x | head -1)" "$root/mutants/$m.bin"
      sed -n 's/^# test: //p' "$p" | head -1 > "$root/mutants/$m.test"
    else
      echo "bundle: mutant $m does not build ($stage/mutant_$m.log)" >&2
    fi
    git apply -R "$p"
  done
  cmake --build "$build" -j "$(nproc)" > /dev/null 2>&1  # the unmutated binaries again
fi
if [ ${#debs[@]} -gt 0 ]; then
  mkdir -p "$root/debs"
  (cd "$root/debs" && apt-get download "${debs[@]}")
fi
if [ ${#wheels[@]} -gt 0 ]; then
  python3 -m pip download --dest "$root/wheels" "${wheels[@]}"
fi

cat > "$root/run.sh" <<'RUN'
#!/usr/bin/env bash
# The bundle's one command on the GPU node (scripts/bundle.sh in the sources says what it holds).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export HASHLAB_BINARY_DIR=$here/bin HASHLAB_REFERENCE_DIR=$here/source/results/reference
cd "$here/source"  # results/, data/ and the plots are relative to the sources, as after `make`
what=${1:-}; shift || true
case "$what" in
  tests)  # one binary after another: no two tests share the GPU
    status=0
    for bin in "$here"/bin/*_tests; do
      echo "== $(basename "$bin")"
      "$bin" --gtest_filter="${1:-*}" --gtest_brief=1 || status=1
    done
    exit $status ;;
  hashlab) exec "$here/bin/hashlab" "$@" ;;
  sanitize)
    [ $# -ge 2 ] || { echo "run.sh sanitize TOOL BINARY [FILTER]"; exit 2; }
    exec compute-sanitizer --tool "$1" --error-exitcode 99 --print-limit 20 "$here/bin/$2" \
      --gtest_filter="${3:-*}:-*Large*" --gtest_brief=1 ;;
  mutants)
    [ -d "$here/mutants" ] || { echo "run.sh: this bundle has no mutants (scripts/bundle.sh --mutants)"; exit 2; }
    status=0
    for bin in "$here"/mutants/*.bin; do
      m=$(basename "$bin" .bin) regex=$(cat "${bin%.bin}.test")
      filter=$("$bin" --gtest_list_tests | awk '/^[^ ]/ {suite=$1} /^  / {print suite $1}' | grep -E "$regex" | paste -sd: -)
      if [ -z "$filter" ]; then echo "MUTANT $m: NO TESTS MATCH '$regex'"; status=1; continue; fi
      out=$("$bin" --gtest_filter="$filter" --gtest_brief=1 2>&1); rc=$?
      if [ $rc -ne 0 ] && grep -q '^\[  FAILED  \]' <<< "$out"; then res=killed
      elif grep -q '^\[  SKIPPED \]' <<< "$out"; then res="not run (skipped)"; status=1
      else res=SURVIVED; status=1; fi
      echo "MUTANT $m: $res  [tests: $regex]"
    done
    exit $status ;;
  python-setup)
    [ -d "$here/wheels" ] || { echo "run.sh: this bundle carries no wheels (scripts/bundle.sh --wheels ...)"; exit 2; }
    exec python3 -m pip install --user --no-index --find-links "$here/wheels" "$here"/wheels/* ;;
  python) exec python3 "$@" ;;
  *) echo "usage: run.sh tests [filter] | hashlab ARGS... | sanitize TOOL BINARY [FILTER] | mutants | python-setup | python ARGS..."
     exit 2 ;;
esac
RUN
chmod +x "$root/run.sh"
tar czf "$out" -C "$stage" "$name"
echo "bundle: $out ($(du -h "$out" | cut -f1)): $(ls "$root/bin" | wc -l) binaries, $(ls "$root/lib" | wc -l) libraries, revision $revision"
echo "bundle: on the node: tar xzf $(basename "$out") && cd $name && ./run.sh tests"
