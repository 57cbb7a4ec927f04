#!/usr/bin/env bash
# Builds one test binary per mutation patch (scripts/mutants/*.patch) for a machine that has no
# build tree (scripts/device_prebuilt.sh mutants runs them): apply, build the patch's target, keep
# the binary as OUT/<patch>.bin with its test regex in OUT/<patch>.test, revert. The tree is
# restored whatever happens. Usage: scripts/build_mutants.sh BUILD_DIR OUT [patch...]
set -uo pipefail
build=$1 out=$2; shift 2
cd "$(dirname "$0")/.."
mkdir -p "$out"
patches=("$@"); [ ${#patches[@]} -eq 0 ] && patches=(scripts/mutants/*.patch)
for p in "${patches[@]}"; do
  name=$(basename "$p" .patch)
  target=$(sed -n 's/^# target: //p' "$p" | head -1)
  git apply "$p" || { echo "$name: does not apply"; continue; }
  if cmake --build "$build" --target "$target" -j "$(nproc)" > "$out/$name.build.log" 2>&1; then
    cp "$(find "$build" -name "$target" -type f -perm -u+x | head -1)" "$out/$name.bin"
    sed -n 's/^# test: //p' "$p" | head -1 > "$out/$name.test"
    echo "$name: built"
  else
    echo "$name: does not build (see $out/$name.build.log)"
  fi
  git apply -R "$p"
done
