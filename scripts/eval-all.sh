#!/usr/bin/env bash
# eval-all.sh measures the analysis's accuracy, beside the plain baseline
# methods of `analyze eval --baselines`, on every set at once: both real
# data sets and simulated incidents of every fault variant across the three
# system topologies, on the seeds given (fresh ones, to judge a change where
# it was not developed), each seed twice: with the simulator's 15-minute
# baseline and with one minute of baseline data (normal in real use: a
# service restarted, a store that keeps a day).
#
#   scripts/eval-all.sh [SEED...]      default seeds: 7000 8000
#   ORIGINS=30 scripts/eval-all.sh 50000
#
# ORIGINS=N checks the per-trace origin of at most N failing traces per
# case (evenly spread) rather than all of them: the ranking and kind are
# the same, the origin figure a sample, and the run several times faster.
#
# It writes docs/accuracy.md (what the README's accuracy table quotes) and
# leaves the per-case lines in the work folder. Each seed has 3 × 13 cases,
# and 24 of the four seed systems (6 each).
# Needs ../shared/datasets for the real sets (skipped with a message when
# absent).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
setup_work
seeds=("$@")
[[ ${#seeds[@]} -eq 0 ]] && seeds=(7000 8000)
data=../shared/datasets
out=docs/accuracy.md
mkdir -p docs
{
	echo "# Accuracy"
	echo
	echo "Written by \`scripts/eval-all.sh ${seeds[*]}\` on $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)."
	echo "Each block is \`analyze eval --baselines\` on one set: faultline's AC@k (the share of cases with the true"
	echo "service among its first k candidates), its per-trace origin accuracy and top kind, and the same for three"
	echo "plain methods (the floor faultline must not fall below). Per-case lines: $work/*-cases.txt."
	if [[ ${ORIGINS:-0} -gt 0 ]]; then
		echo "Per-trace origins: at most $ORIGINS failing traces of each case, evenly spread (ORIGINS=$ORIGINS)."
	fi
} >"$out"
section() { # section TITLE CASE-DIR...
	local title=$1
	shift
	echo "== $title"
	{
		echo
		echo "## $title"
		echo
		echo '```'
	} >>"$out"
	"$work/analyze" eval --baselines --origins "${ORIGINS:-0}" "$@" 2>"$work/$(echo "$title" | tr -c 'a-zA-Z0-9\n' '-')-cases.txt" | tee -a "$out"
	echo '```' >>"$out"
}
for set in nezha-tt nezha-ob; do
	if [[ -d "$data/$set" ]]; then
		section "$set" "$data/$set"
	else
		echo "== $set: $data/$set is absent, skipped" | tee -a "$out"
	fi
done
for base in 15m 1m; do
	dirs=()
	for s in "${seeds[@]}"; do
		dirs+=("$(sim_set sim "$s" "$base")")
	done
	section "simulator, seeds ${seeds[*]}, baseline $base (every fault variant, topologies shop, jobqueue, edge)" "${dirs[@]}"
done
# The four seed systems (sim/doc.go), each with its own faults in turn.
for base in 15m 1m; do
	dirs=()
	for s in "${seeds[@]}"; do
		dirs+=("$(sim_set seed "$s" "$base")")
	done
	section "seed systems, seeds ${seeds[*]}, baseline $base (routing, jobclaim, triage, payment, each fault in turn)" "${dirs[@]}"
done
echo "(written: $out; per case: $work/*-cases.txt)"
