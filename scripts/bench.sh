#!/usr/bin/env bash
# bench.sh measures what the README reports: the Go benchmarks of each
# package, then the whole pipeline on a simulated incident of about a
# million records in its window (ingest load, analyze incident, analyze
# trace), with wall time, CPU time and peak memory. Numbers vary with the
# machine's load; run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
work="${BENCH_DIR:-$(mktemp -d /tmp/faultline-bench.XXXXXX)}"
mkdir -p "$work"
echo "== Go benchmarks"
# micro-benchmarks need many iterations; the whole-store ones a few
go test -run '^$' -bench . ./patterns ./correlate/
go test -run '^$' -bench . -benchtime 3x ./ingest ./web ./sim ./store/sqlite ./rootcause

echo "== whole pipeline on a simulated incident (work dir $work)"
go build -o "$work/analyze" ./cmd/analyze
go build -o "$work/ingest" ./cmd/ingest
go build -o "$work/faultsim" ./cmd/faultsim
case="$work/cases/sim-db-pool-exhaustion-42"
if [[ ! -d "$case" ]]; then
	"$work/faultsim" -out "$work/cases" -cases 1 -seed 42 -tps 100 -fault db-pool-exhaustion -baseline 10m
fi
rm -f "$work/big.db" "$work/big.db-wal" "$work/big.db-shm"
files=$(find "$case" -type f ! -name truth.json | sort)
t() { /usr/bin/time -f "   %e s wall, %U s user, %M KB peak RSS" "$@"; }
echo "-- ingest load"
# shellcheck disable=SC2086
t "$work/ingest" load -q --store "$work/big.db" $files
from=$(sed -n 's/.*"from": "\(.*\)".*/\1/p' "$case/truth.json" | head -n1)
to=$(sed -n 's/.*"to": "\(.*\)".*/\1/p' "$case/truth.json" | head -n1)
echo "-- analyze incident --from $from --to $to"
t "$work/analyze" incident --store "$work/big.db" --from "$from" --to "$to" --top 3 | head -n 4
id=$("$work/analyze" incident --store "$work/big.db" --from "$from" --to "$to" --top 1 --json |
	sed -n 's/.*"example_traces": \[ *"\([0-9a-f]*\)".*/\1/p; /"example_traces"/{n;s/ *"\([0-9a-f]*\)".*/\1/p}' | head -n1)
echo "-- analyze trace $id"
t "$work/analyze" trace --store "$work/big.db" --json "$id" >/dev/null
