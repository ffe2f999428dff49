#!/usr/bin/env bash
# tune-all.sh checks the ranking's chosen constants (rootcause/tuning.go)
# by leave-one-set-out: `analyze eval --tune` scores every case at each
# constant's value now and at one below and one above it, then, for each
# set, picks the value that scores best on all the other sets and measures
# it on the one left out. A constant whose folds pick its value now, or
# whose held-out AC@1 at the picked values is not above the value now, is
# where the data puts it; one whose held-out figure rises is chosen wrong.
#
#   scripts/tune-all.sh [SEED...]      default seeds: 7000 7001
#
# The sets: both real data sets, then the simulator's fault variants and
# the four seed systems, the first seed at the 15-minute baseline and the
# second at one minute (generated as scripts/eval-all.sh does; EVAL_DIR
# reuses its folder). One analysis at a time (a constant holds for the
# whole process while it is tried): about 17 analyses per case.
# Writes docs/tuning.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
setup_work
seeds=("$@")
[[ ${#seeds[@]} -eq 0 ]] && seeds=(7000 7001)
[[ ${#seeds[@]} -eq 1 ]] && seeds+=("${seeds[0]}")
sets=()
add_real_sets
for pair in "${seeds[0]}:15m" "${seeds[1]}:1m"; do
	s=${pair%%:*} base=${pair##*:}
	sets+=("$(sim_set sim "$s" "$base")" "$(sim_set seed "$s" "$base")")
done
# One value below and one above each constant's value now.
tune=(--tune min_decades=2,4 --tune full_decades=4,7 --tune slow_factor=1.05,1.25
	--tune older_share=0.25,0.75 --tune explained_share=0.125,0.5 --tune chain_floor=0.05,0.2
	--tune new_vote_weight=0.35,0.7 --tune symptom_unit=0.0143,0.0571)
start=$(date +%s)
"$work/analyze" eval "${tune[@]}" "${sets[@]}" >"$work/tuning.txt" 2>"$work/tuning-cases.txt"
mins=$((($(date +%s) - start + 59) / 60))
out=docs/tuning.md
{
	echo "# The ranking's constants, by leave-one-set-out"
	echo
	echo "Written by \`scripts/tune-all.sh ${seeds[*]}\` on $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), in ${mins} min."
	echo "\`analyze eval --tune\` scored every case at each constant of \`rootcause/tuning.go\` as it is and at one value"
	echo "below and one above; then, for each set, the value that scores best on all the other sets (pooled AC@1, then"
	echo "kind; a tie keeps the value now) is measured on the set left out. \"all, pooled\" is the held-out sets' AC@1"
	echo "together, each at the value picked without it, beside the same cases at the value now."
	echo
	echo "Sets: ${sets[*]/#$work\//}"
	echo
	echo '```'
	cat "$work/tuning.txt"
	echo '```'
	echo
	echo "Cases whose rank of the truth a value changed:"
	echo
	echo '```'
	grep "rank with:" "$work/tuning-cases.txt" || true
	echo '```'
} >"$out"
echo "(written: $out; per case: $work/tuning-cases.txt)"
