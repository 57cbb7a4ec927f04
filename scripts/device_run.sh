#!/usr/bin/env bash
# Experiments on a lent GPU machine: build (reusing build/), probe, then `hashlab run` of each
# paper given, into $OUT/results; a paper that is cut off by the time budget ($BUDGET s) keeps
# the points it wrote. Usage: scripts/device_run.sh paper|paper/experiment... (plus hashlab run
# options after --), e.g. `scripts/device_run.sh compare/tpch -- --full`.
# Pass HASHLAB_GIT_SHA=<the revision shipped> in the environment: the copy of the tree on the GPU
# machine may carry a .git of an earlier revision, whose name the binaries would then record.
# `all` runs every module in one process (its log, run_all.log, is a reference's reproduce_all.log);
# with `all`, `compare` or `compare/tpch`, TPC-H's columns are generated first (SF 1, or 10 with -- --full).
# PREBUILT=dir skips the build: the binaries come from .devbin/bin.tar.xz, built elsewhere for sm_90
# (scripts/prebuilt_binaries.sh), unpacked into dir.
set -uo pipefail
OUT=${OUT:-build/device_run}
BUDGET=${BUDGET:-540}
start=$(date +%s)
if [ -d .deps ]; then
  for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
  export CMAKE_PREFIX_PATH=$PWD/.deps/root/usr
fi
papers=() opts=()
while [ $# -gt 0 ]; do [ "$1" = -- ] && { shift; opts=("$@"); break; }; papers+=("$1"); shift; done
mkdir -p "$OUT/results"
if [ -n "${PREBUILT:-}" ]; then
  source "$(dirname "$0")/prebuilt_binaries.sh"
  use_prebuilt "$PREBUILT" || exit 1
  HASHLAB=$PREBUILT/hashlab
else
  cmake -S . -B build -U "Boost*" -U "boost*" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH} > "$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
  cmake --build build -j 16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -40; exit 1; }
  echo "built in $(( $(date +%s) - start )) s"
  HASHLAB=build/hashlab
fi
[ -f "$OUT/results/device.json" ] || $HASHLAB probe --out "$OUT/results" | tail -3
nvidia-smi > "$OUT/nvidia_smi.log" 2>&1  # packed with the logs below
# compare/tpch reads TPC-H columns: SF 1 quick, SF 10 with --full. The machine has no PyPI: a
# tpchgen-cli wheel carried with the tree as .whl/*.whl is installed first.
if printf '%s\n' "${papers[@]}" | grep -qxE 'all|compare|compare/tpch'; then
  if [ -z "${TPCHGEN_CLI:-}" ] && ls .whl/tpchgen_cli-*.whl > /dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --target /tmp/tpchgen .whl/tpchgen_cli-*.whl &&
      export TPCHGEN_CLI=/tmp/tpchgen/bin/tpchgen-cli
  fi
  sf=1
  printf '%s\n' "${opts[@]}" | grep -qx -- --full && sf=10
  python3 scripts/tpch.py --sf $sf --out data/tpch > "$OUT/tpch_data_sf$sf.log" 2>&1 ||
    echo "no TPC-H data at SF $sf ($OUT/tpch_data_sf$sf.log): compare/tpch will be skipped"
fi
status=0
for p in "${papers[@]}"; do
  left=$(( BUDGET - ($(date +%s) - start) ))
  [ $left -le 10 ] && { echo "no time left for $p"; status=1; continue; }
  t0=$(date +%s)
  target=(${p/\// }) log="$OUT/run_${p//\//_}.log"  # compare/tpch: paper compare, experiment tpch
  timeout $left $HASHLAB run "${target[@]}" "${opts[@]}" --out "$OUT/results" > "$log" 2>&1
  rc=$?; [ $rc -ne 0 ] && status=1
  echo "== $p rc=$rc in $(( $(date +%s) - t0 )) s: $(tail -n 30 "$log" | grep -E 'points,' )"
  grep -E "FAILED" "$log" | head -20
done
tar czf "$OUT/results.tgz" -C "$OUT" results $(cd "$OUT" && ls *.log)
exit $status
