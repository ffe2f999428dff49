#!/usr/bin/env bash
# bench-clickhouse.sh measures `analyze incident` of this checkout beside the
# build of BEFORE_REV on the ClickHouse store, in one run, and writes
# docs/analysis-bench-clickhouse.md: the simulated incident of
# scripts/bench-analysis.sh's third window (BIG requests/s, 800 unless set,
# for 10 minutes after BIG_BASELINE of baseline, 1m unless set: about 10M
# records in the window), loaded by `ingest load` into the ClickHouse engine
# the tests run (chDB behind internal/chfront's HTTP front, a process of its
# own, as a server is).
#
#   BEFORE_REV=5d2c4a9 scripts/bench-clickhouse.sh
#
# The engine's data directory ($work/ch-data) is kept between runs: loading
# 11M records takes about ten minutes. Each figure is the median of RUNS
# runs (1 unless set) of each build, alternating; this build also runs with
# --memory-limit 1GiB. The front buffers each
# whole result before it answers (a real server streams it), so the wall
# times are those of this engine, not of a ClickHouse server; the peak RSS
# is the analysis process's alone.
#
# Needs Go, npm (libchdb, as .ci/install-chdb.sh installs it), python3 and
# /usr/bin/time. Numbers vary with the machine's load; run it on an idle
# machine.
set -euo pipefail
cd "$(dirname "$0")/.."
work="${BENCH_DIR:-/tmp/faultline-bench-analysis}"
runs="${RUNS:-1}"
before="${BEFORE_REV:?set BEFORE_REV to the revision to compare with}"
out="${OUT:-docs/analysis-bench-clickhouse.md}"
big="${BIG:-800}" bb="${BIG_BASELINE:-1m}"
mkdir -p "$work/bin"

echo "== building (work dir $work)"
head_rev=$(git rev-parse --short HEAD) dirty=""
[[ -z $(git status --porcelain -- '*.go') ]] || dirty="+ (uncommitted changes)"
go build -o "$work/bin/analyze-now" ./cmd/analyze
go build -o "$work/bin/ingest" ./cmd/ingest
go build -o "$work/bin/faultsim" ./cmd/faultsim
go build -o "$work/bin/chfront" ./internal/chfront/cmd/chfront
before_short=$(git rev-parse --short "$before")
rm -rf "$work/before-src" && mkdir -p "$work/before-src"
git archive "$before" | tar -x -C "$work/before-src"
(cd "$work/before-src" && go build -o "$work/bin/analyze-before" ./cmd/analyze)
lib="$(.ci/install-chdb.sh | tail -n1)"

case="$work/cases-big-$big-$bb/sim-db-pool-exhaustion-43"
if [[ ! -d "$case" ]]; then
	"$work/bin/faultsim" -out "$work/cases-big-$big-$bb" -cases 1 -seed 43 -tps "$big" -fault db-pool-exhaustion -baseline "$bb"
fi
data="$work/ch-data-$big-$bb"
mkdir -p "$data"
"$work/bin/chfront" --lib "$lib" --data "$data" >"$work/chfront.out" 2>"$work/chfront.err" &
front=$!
trap 'kill $front 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	grep -q listening "$work/chfront.out" 2>/dev/null && break
	sleep 0.2
done
port=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$work/chfront.out")
url="clickhouse://127.0.0.1:$port/default?protocol=http"
if [[ ! -f "$data/.loaded" ]]; then
	echo "== loading $case into ClickHouse (once)"
	# shellcheck disable=SC2046
	/usr/bin/time -f "%e s" "$work/bin/ingest" load -q --store "$url" $(find "$case" -type f ! -name truth.json | sort)
	touch "$data/.loaded"
fi
from=$(sed -n 's/.*"from": "\(.*\)".*/\1/p' "$case/truth.json" | head -n1)
to=$(sed -n 's/.*"to": "\(.*\)".*/\1/p' "$case/truth.json" | head -n1)
truth=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["root_cause"]["service"])' "$case/truth.json")

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rm -f "$work"/*-ch.runs
for _ in $(seq "$runs"); do
	for b in before now limited; do
		bin=$b extra=()
		if [[ $b == limited ]]; then # this build with a 1 GiB soft memory limit
			bin=now extra=(--memory-limit 1GiB)
		fi
		/usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" \
			"$work/bin/analyze-$bin" incident --store "$url" --from "$from" --to "$to" --top 3 --json "${extra[@]}" >"$work/$b-ch.json"
		awk '{printf "%s %.1f %d\n", $1, $2 + $3, $4 / 1024}' "$work/time.txt" >>"$work/$b-ch.runs"
	done
done
cell() {
	local f="$work/$1-ch.runs"
	echo "$(cut -d' ' -f1 "$f" | median) s, $(cut -d' ' -f2 "$f" | median) s CPU, $(cut -d' ' -f3 "$f" | median) MB"
}
top() {
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); c=r["candidates"]; s=r.get("sampled") or {}; print((c[0]["service"] if c else "-") + (" (%s of %s records sent; healthy traces 1 in %d, failing 1 in %d)" % (s["sent"], "{:,}".format(sum(v["records"] for v in r["services"])), s["k"], s.get("failing_k", 1)) if s.get("sent") else ""))' "$work/$1-ch.json"
}
front_mb=$(($(awk '/VmHWM/ {print $2}' "/proc/$front/status") / 1024))

mkdir -p "$(dirname "$out")"
{
	echo "# Analysis of a large window on ClickHouse: time and memory"
	echo
	echo "Written by \`scripts/bench-clickhouse.sh\` on $(date -u +%F), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB of memory,"
	echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; median of $runs run(s) of \`analyze incident\` per build"
	echo "(wall seconds, CPU seconds of the analysis process, its peak RSS). Before: $before_short; now: $head_rev $dirty."
	echo
	echo "The window: the simulated incident at $big requests/s after $bb of baseline ($from to $to; truth: $truth),"
	echo "loaded by \`ingest load\` into chDB $(basename "$(dirname "$lib")") behind internal/chfront (which buffers each result"
	echo "whole before it answers: a ClickHouse server streams it). The engine's process peaked at $front_mb MB."
	echo
	echo "| build | time, CPU, peak RSS | first candidate |"
	echo "|---|---|---|"
	echo "| before | $(cell before) | $(top before) |"
	echo "| now | $(cell now) | $(top now) |"
	echo "| now, \`--memory-limit 1GiB\` | $(cell limited) | $(top limited) |"
	echo
	echo "The default soft memory limit is half the machine's memory, so the collector lets the heap grow to twice what"
	echo "is live; the last row is the same build asked to stay near a gigabyte."
} >"$out"
echo "== wrote $out"
cat "$out"
