#!/usr/bin/env bash
# A correctness pass on a lent GPU machine, all at once: build, every test (ctest), and
# compute-sanitizer (memcheck, or the tool given as $1) over every GPU test binary in parallel,
# then each paper's demo. Logs in $OUT (tarred to $OUT/logs.tgz). Budget in seconds as $2.
set -uo pipefail
tool=${1:-memcheck}
budget=${2:-480}
OUT=${OUT:-build/device_pass}
mkdir -p "$OUT/logs"
L=$OUT/logs
if [ -d .deps ]; then
  for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
  export CMAKE_PREFIX_PATH=$PWD/.deps/root/usr
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
start=$(date +%s)
cmake -S . -B build -U "Boost*" -U "boost*" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH} > "$L/configure.log" 2>&1 || { tail -20 "$L/configure.log"; exit 1; }
cmake --build build -j 16 > "$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -40; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
left=$(( budget - ($(date +%s) - start) ))
( timeout $left ctest --test-dir build -j 4 --output-on-failure > "$L/ctest.log" 2>&1; echo "ctest rc=$?" ) &
negative="DeliberateApiError.*:Cli.*:Runner.*:Timing.*:Cache.*:*Large.*:ProbeGpuExclusive.*"
for bin in $(find build -name '*_tests' -type f -perm -u+x | sort); do
  name=$(basename "$bin")
  ( timeout $left compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$bin" \
      --gtest_filter="*:-$negative" --gtest_brief=1 > "$L/${tool}_$name.log" 2>&1
    rc=$?; grep -q "terminated before first instrumented API call" "$L/${tool}_$name.log" && rc="0 (no GPU test in the binary)"; echo "$tool $name rc=$rc" ) &
done
wait
for p in cuckoo hashgraph rapids_groupby ega pkpk_join; do
  timeout 60 build/hashlab demo $p > "$L/demo_$p.log" 2>&1; echo "demo $p rc=$?"
done
grep -E "tests passed|tests failed" "$L/ctest.log"
grep -E "^\s+[0-9]+ - .*(Failed|Timeout|Not Run)" "$L/ctest.log" | head -40
for f in "$L"/${tool}_*.log; do echo "-- $(basename $f): $(grep -E 'ERROR SUMMARY|FAILED TEST|tests ran' $f | tr '\n' ' ')"; done
tar czf "$OUT/logs.tgz" -C "$OUT" logs
