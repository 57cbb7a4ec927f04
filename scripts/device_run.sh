#!/usr/bin/env bash
# Experiments on a lent GPU machine: build (reusing build/), probe, then `hashlab run` of each
# paper given, into $OUT/results; a paper that is cut off by the time budget ($BUDGET s) keeps
# the points it wrote. Usage: scripts/device_run.sh paper... (plus hashlab run options after --)
# Pass HASHLAB_GIT_SHA=<the revision shipped> in the environment: the copy of the tree on the GPU
# machine may carry a .git of an earlier revision, whose name the binaries would then record.
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
cmake -S . -B build -U "Boost*" -U "boost*" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH} > "$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
cmake --build build -j 16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -40; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
[ -f "$OUT/results/device.json" ] || build/hashlab probe --out "$OUT/results" | tail -3
status=0
for p in "${papers[@]}"; do
  left=$(( BUDGET - ($(date +%s) - start) ))
  [ $left -le 10 ] && { echo "no time left for $p"; status=1; continue; }
  t0=$(date +%s)
  timeout $left build/hashlab run $p "${opts[@]}" --out "$OUT/results" > "$OUT/run_$p.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && status=1
  echo "== $p rc=$rc in $(( $(date +%s) - t0 )) s: $(tail -n 30 "$OUT/run_$p.log" | grep -E 'points,' )"
  grep -E "FAILED" "$OUT/run_$p.log" | head -20
done
tar czf "$OUT/results.tgz" -C "$OUT" results $(cd "$OUT" && ls *.log)
exit $status
