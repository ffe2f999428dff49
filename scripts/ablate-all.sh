#!/usr/bin/env bash
# ablate-all.sh measures what each rule of the analysis is worth: `analyze
# eval --ablate` over every set at once (both real data sets, the
# simulator's fault variants and the four seed systems, each at a 15-minute
# and a one-minute baseline, on the seeds given), every rule of the ranking
# (rootcause) and of the per-trace analysis (correlate) switched off in
# turn. A rule whose removal costs nothing pooled is a candidate for
# deletion, with its scenario.
#
#   scripts/ablate-all.sh [SEED...]      default seed: 7000
#
# It writes docs/ablation.md: the pooled table, the per-set AC@1 of each
# rule that changed a case, the number of rules and the lines of rootcause/
# and correlate/. The sets are generated as scripts/eval-all.sh generates
# them (EVAL_DIR reuses its folder). Needs ../shared/datasets for the real
# sets (skipped with a message when absent).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
setup_work
seeds=("$@")
[[ ${#seeds[@]} -eq 0 ]] && seeds=(7000)
sets=()
add_real_sets
for base in 15m 1m; do
	for s in "${seeds[@]}"; do
		sets+=("$(sim_set sim "$s" "$base")" "$(sim_set seed "$s" "$base")")
	done
done
out=docs/ablation.md
start=$(date +%s)
"$work/analyze" eval --ablate "${sets[@]}" >"$work/ablation.txt" 2>"$work/ablation-cases.txt"
mins=$((($(date +%s) - start + 59) / 60))
# lines DIR [_test]: non-blank lines of the package's code, or of its tests.
lines() {
	if [[ ${2:-} == _test ]]; then
		cat "$1"/*_test.go | grep -vc '^\s*$'
	else
		find "$1" -maxdepth 1 -name '*.go' ! -name '*_test.go' -exec cat {} + | grep -vc '^\s*$'
	fi
}
{
	echo "# Ablation"
	echo
	echo "Written by \`scripts/ablate-all.sh ${seeds[*]}\` on $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), in ${mins} min."
	echo "Each row is \`analyze eval --ablate\` over every set below with one rule switched off: the pooled AC@1, AC@3,"
	echo "top-kind accuracy and per-trace origin accuracy, and their change from all rules on. A rule whose row changes"
	echo "nothing pooled has not paid for itself on these sets."
	echo
	echo "Sets: ${sets[*]/#$work\//}"
	echo
	echo "Non-blank lines of Go: rootcause/ $(lines rootcause) (tests $(lines rootcause _test)), correlate/ $(lines correlate)" \
		"(tests $(lines correlate _test)). The first row of the table counts the rules."
	echo
	echo '```'
	cat "$work/ablation.txt"
	echo '```'
	echo
	echo "Cases where a rule off changed the rank of the truth or how many per-trace origins were right:"
	echo
	echo '```'
	grep "with the rule off" "$work/ablation-cases.txt" || true
	echo '```'
} >"$out"
echo "(written: $out; per case: $work/ablation-cases.txt)"
