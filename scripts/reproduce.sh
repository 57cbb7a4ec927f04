#!/usr/bin/env bash
# reproduce.sh HASHLAB OUT TARGET PROFILE: runs the experiments of TARGET (a paper or 'all'),
# then the plots and the report. Failed verifications stop nothing but make the exit non-zero.
set -uo pipefail
hashlab=$1 out=$2 target=$3 profile=$4
status=0
"$hashlab" run "$target" "$profile" --out "$out" || status=$?
python3 plots/make_plots.py --results "$out" ${target:+--paper "$target"} || status=1
python3 plots/report.py --results "$out" || status=1
exit $status
