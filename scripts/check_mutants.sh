#!/usr/bin/env bash
# Mutation check: each scripts/mutants/*.patch breaks one mechanism on purpose; the tests named
# in its "# test:" line must then fail. For every patch: apply it, rebuild the test binary named
# in its "# target:" line, run the tests, expect a failure, revert. The tree is restored whatever
# happens. Usage: scripts/check_mutants.sh [BUILD_DIR] [patch...]   (GPU tests need a GPU)
set -uo pipefail
build=${1:-build}; shift || true
cd "$(dirname "$0")/.."
patches=("$@"); [ ${#patches[@]} -eq 0 ] && patches=(scripts/mutants/*.patch)
status=0
for p in "${patches[@]}"; do
  tests=$(sed -n 's/^# test: //p' "$p" | head -1)
  target=$(sed -n 's/^# target: //p' "$p" | head -1)
  if [ -z "$tests" ] || [ -z "$target" ]; then echo "MUTANT $p: no '# test:' or '# target:' line"; status=1; continue; fi
  if ! git apply "$p"; then echo "MUTANT $p: does not apply"; status=1; continue; fi
  if cmake --build "$build" --target "$target" -j "$(nproc)" > /tmp/mutant_build.log 2>&1; then
    out=$(ctest --test-dir "$build" -R "$tests" 2>&1); rc=$?
    if echo "$out" | grep -q "No tests were found"; then res="NO TESTS MATCH '$tests'"; status=1
    elif [ $rc -ne 0 ] && echo "$out" | grep -qE "\(Failed\)"; then res="killed"
    elif echo "$out" | grep -q "(Skipped)"; then res="not run: the tests were skipped (a GPU test without a GPU)"; status=1
    else res="SURVIVED"; status=1; fi
  else
    res="does not build (see /tmp/mutant_build.log)"; status=1
  fi
  git apply -R "$p"
  echo "MUTANT $(basename "$p"): $res  [tests: $tests]"
done
cmake --build "$build" -j "$(nproc)" > /dev/null 2>&1 || true
exit $status
