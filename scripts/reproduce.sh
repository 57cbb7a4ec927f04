#!/usr/bin/env bash
# reproduce.sh HASHLAB OUT TARGET PROFILE: runs the experiments of TARGET (a paper or 'all'),
# then the plots and the report. A failed verification stops nothing but makes the exit
# non-zero. Without a GPU the CPU-only experiments run, and the figures and the report are built
# from a copy of the committed reference results (results/reference/<gpu>/) in OUT/from_reference/.
# A point that does not fit this machine's memory (or lacks its data, e.g. TPC-H) is skipped, not
# failed, with its reason; the skipped points are
# listed at the end (STRICT=1 in the environment makes a skip fatal; RESUME=1 keeps the experiments
# an earlier run of the same revision and options finished in OUT).
set -uo pipefail
hashlab=$1 out=$2 target=$3 profile=$4
paper_arg=()
[ "$target" != all ] && paper_arg=(--paper "$target")
run_flags=()
[ -n "${STRICT:-}" ] && run_flags+=(--strict)
[ -n "${RESUME:-}" ] && run_flags+=(--resume)  # keep what an earlier run of the same settings finished
status=0
mkdir -p "$out"
# compare/tpch reads TPC-H columns (scripts/tpch.py, tpchgen-cli from `make deps`): SF 1 quick,
# SF 10 full. Without them its points are skipped with the reason; the rest of the run goes on.
if { [ "$target" = all ] || [ "$target" = compare ]; } && nvidia-smi -L >/dev/null 2>&1; then
  sf=1
  [ "$profile" = --full ] && sf=10
  python3 scripts/tpch.py --sf "$sf" --out data/tpch ||
    echo "reproduce: no TPC-H data at SF $sf (above): compare/tpch will be skipped"
fi
log="$out/run_$target.log"
"$hashlab" run "$target" "$profile" "${run_flags[@]}" --out "$out" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

if nvidia-smi -L >/dev/null 2>&1; then
  python3 plots/make_plots.py --results "$out" "${paper_arg[@]}" || status=1
  python3 plots/report.py --results "$out" || status=1
else
  ref=$(find results/reference -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort | head -n1)
  if [ -z "$ref" ]; then
    echo "reproduce: no CUDA GPU and no committed reference results: no figures to draw" >&2
    exit 1
  fi
  copy="$out/from_reference/$(basename "$ref")"
  echo "reproduce: no CUDA GPU here, so only the CPU experiments ran (results in $out)."
  echo "reproduce: figures and report come from the committed reference results of $(basename "$ref"), copied to $copy"
  mkdir -p "$copy" && cp -r "$ref"/. "$copy"/
  python3 plots/make_plots.py --results "$copy" "${paper_arg[@]}" || status=1
  python3 plots/report.py --results "$copy" --from-reference "$ref" || status=1
fi
skips=$(grep -c '^SKIPPED ' "$log" 2>/dev/null)
if [ "${skips:-0}" -gt 0 ]; then
  echo
  echo "reproduce: $skips points skipped, each with its reason (the run goes on without them):"
  grep '^SKIPPED ' "$log"
fi
exit $status
