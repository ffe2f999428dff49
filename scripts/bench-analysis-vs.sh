#!/usr/bin/env bash
# bench-analysis-vs.sh times `analyze incident` of this checkout beside the
# build of another revision, on the simulated ~1M-record incident of
# bench.sh, loaded once; the two run alternately, RUNS times each, so the
# machine's load falls on both alike.
#
#   scripts/bench-analysis-vs.sh REV [RUNS]      e.g. REV=876b7c4, RUNS=3
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?give the revision to compare with}
runs=${2:-3}
work="${BENCH_DIR:-$(mktemp -d /tmp/faultline-benchvs.XXXXXX)}"
mkdir -p "$work"
go build -o "$work/analyze-head" ./cmd/analyze
go build -o "$work/ingest" ./cmd/ingest
go build -o "$work/faultsim" ./cmd/faultsim
rm -rf "$work/rev" && git worktree add -q --detach "$work/rev" "$rev"
(cd "$work/rev" && go build -o "$work/analyze-rev" ./cmd/analyze)
git worktree remove --force "$work/rev"
case="$work/cases/sim-db-pool-exhaustion-42"
if [[ ! -d "$case" ]]; then
	"$work/faultsim" -out "$work/cases" -cases 1 -seed 42 -tps 100 -fault db-pool-exhaustion -baseline 10m
fi
if [[ ! -f "$work/big.db" ]]; then
	# shellcheck disable=SC2046
	"$work/ingest" load -q --store "$work/big.db" $(find "$case" -type f ! -name truth.json | sort)
fi
from=$(sed -n 's/.*"from": "\(.*\)".*/\1/p' "$case/truth.json" | head -n1)
to=$(sed -n 's/.*"to": "\(.*\)".*/\1/p' "$case/truth.json" | head -n1)
echo "analyze incident --from $from --to $to: $rev against $(git rev-parse --short HEAD) (this checkout), $runs runs each"
for i in $(seq "$runs"); do
	for b in rev head; do
		/usr/bin/time -f "$b run $i: %e s wall, %U s user, %M KB peak RSS" \
			"$work/analyze-$b" incident --store "$work/big.db" --from "$from" --to "$to" --top 3 >/dev/null
	done
done
