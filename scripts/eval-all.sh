#!/usr/bin/env bash
# eval-all.sh measures what the README's accuracy table reports, all at
# once: both real data sets and simulated incidents of every fault variant
# across the three system topologies, on the seeds given (fresh ones, to
# judge a change where it was not developed).
#
#   scripts/eval-all.sh [SEED...]      default seeds: 7000 8000
#
# Each seed set has 3 × 13 cases (every variant of every fault kind, each
# topology in turn). Needs ../shared/datasets for the real sets (skipped
# with a message when absent).
set -euo pipefail
cd "$(dirname "$0")/.."
work="${EVAL_DIR:-$(mktemp -d /tmp/faultline-eval.XXXXXX)}"
mkdir -p "$work"
go build -o "$work/analyze" ./cmd/analyze
go build -o "$work/faultsim" ./cmd/faultsim
seeds=("$@")
[[ ${#seeds[@]} -eq 0 ]] && seeds=(7000 8000)
data=../shared/datasets
for set in nezha-ob nezha-tt; do
	if [[ -d "$data/$set" ]]; then
		echo "== $set"
		"$work/analyze" eval "$data/$set" 2>/dev/null
	else
		echo "== $set: $data/$set is absent, skipped"
	fi
done
dirs=()
for s in "${seeds[@]}"; do
	if [[ ! -d "$work/sim-$s" ]]; then
		"$work/faultsim" -out "$work/sim-$s" -cases 39 -seed "$s" -topology all >/dev/null
	fi
	dirs+=("$work/sim-$s")
done
echo "== simulator, seeds ${seeds[*]} (every fault variant, topologies shop, jobqueue, edge)"
"$work/analyze" eval "${dirs[@]}" 2>"$work/sim-cases.txt"
echo "(per case: $work/sim-cases.txt)"
