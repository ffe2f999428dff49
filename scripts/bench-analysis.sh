#!/usr/bin/env bash
# bench-analysis.sh measures `analyze incident` of this checkout beside the
# build of BEFORE_REV, in one run, and writes docs/analysis-bench.md:
#
#   1. a 500k-record window (the newer half) of scripts/benchgen's 1M-line
#      file, loaded into the embedded store, beside VictoriaLogs' scans of
#      the same window: counting its records (`| count()`, the floor the
#      issue names) and reading them all (every field, as JSON lines);
#   2. the simulated ~1M-record incident of scripts/bench.sh (db pool
#      exhaustion at account-svc), with whether the injected fault ranks
#      first;
#   3. with BIG=N, a simulated incident at N requests/s for 10 minutes of
#      window, after BIG_BASELINE of baseline (10m unless set): BIG=800
#      BIG_BASELINE=1m is about 10M records in the window, 11M in the store
#      (faultsim holds an incident in memory: 11 GB for that one).
#
# Each window is analysed by the build of BEFORE_REV, by this checkout,
# and by this checkout with --sample-above $SAMPLE (250000 unless set).
#
# Each figure is the median of RUNS runs (wall seconds, CPU seconds, peak
# RSS), the builds alternating so the machine's load falls on each alike.
#
#   BEFORE_REV=f5e3035 scripts/bench-analysis.sh
#   RUNS=1 BIG=800 BIG_BASELINE=1m BEFORE_REV=HEAD~3 OUT=docs/analysis-bench-big.md scripts/bench-analysis.sh
#
# NOW_REV builds that commit as "now" rather than the working tree.
#
# Needs Go, curl, /usr/bin/time and a free port 9428 on 127.0.0.1.
# Numbers vary with the machine's load; run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work="${BENCH_DIR:-/tmp/faultline-bench-analysis}"
runs="${RUNS:-3}"
before="${BEFORE_REV:?set BEFORE_REV to the revision to compare with}"
vl_version="${VL_VERSION:-v1.52.1}"
out="${OUT:-docs/analysis-bench.md}"
mkdir -p "$work/bin"

echo "== building (work dir $work)"
if [[ -n ${NOW_REV:-} ]]; then # a commit rather than the working tree
	head_rev=$(git rev-parse --short "$NOW_REV") dirty=""
	rm -rf "$work/now-src" && mkdir -p "$work/now-src"
	git archive "$NOW_REV" | tar -x -C "$work/now-src"
	(cd "$work/now-src" && go build -o "$work/bin/analyze-now" ./cmd/analyze && go build -o "$work/bin/ingest-now" ./cmd/ingest)
	now_src="$work/now-src"
else
	head_rev=$(git rev-parse --short HEAD) dirty=""
	[[ -z $(git status --porcelain -- '*.go') ]] || dirty="+ (uncommitted changes)"
	go build -o "$work/bin/analyze-now" ./cmd/analyze
	go build -o "$work/bin/ingest-now" ./cmd/ingest
	now_src="$repo"
fi
go build -o "$work/bin/faultsim" ./cmd/faultsim
go build -o "$work/bin/benchgen" ./scripts/benchgen
before_short=$(git rev-parse --short "$before")
rm -rf "$work/before-src" && mkdir -p "$work/before-src"
git archive "$before" | tar -x -C "$work/before-src"
(cd "$work/before-src" && go build -o "$work/bin/analyze-before" ./cmd/analyze && go build -o "$work/bin/ingest-before" ./cmd/ingest)

# Each build reads the stores its own ingest writes (a build may not read
# a later layout): they are kept under $work/stores/KEY, KEY a hash of the
# build's store sources and ingest pipeline, and written once per KEY.
store_key() { (cd "$1" && cat store/sqlite/*.go schema/*.go patterns/*.go ingest/*.go 2>/dev/null | sha256sum | cut -c1-12); }
key_now=$(store_key "$now_src")
key_before=$(store_key "$work/before-src")
# store BUILD NAME FILE...: the path of store NAME as BUILD's ingest loads
# FILE..., loading it the first time.
store() {
	local b=$1 name=$2 key dir
	shift 2
	key="key_$b"
	dir="$work/stores/${!key}"
	mkdir -p "$dir"
	if [[ ! -f "$dir/$name" ]]; then
		echo "   loading $name with the $b build's ingest" >&2
		"$work/bin/ingest-$b" load -q --store "$dir/$name.tmp" "$@" >&2
		mv "$dir/$name.tmp" "$dir/$name"
	fi
	echo "$dir/$name"
}
if [[ ! -x "$work/bin/victoria-logs" ]]; then
	(cd "$work" && GOBIN="$work/bin" GOFLAGS=-mod=mod go install "github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs@$vl_version")
fi

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f", a / b; else print "n/a" }'; }

# once BUILD STORE FROM TO TAG: one `analyze incident`, its wall seconds,
# CPU seconds (user + system: steadier than wall time on a busy machine)
# and peak RSS appended to $work/BUILD-TAG.runs; its JSON kept. BUILD
# "sampled" is this checkout's with --sample-above $SAMPLE (250000 unless
# set): sampling forced on windows below its default threshold.
once() {
	local b=$1 st=$2 from=$3 to=$4 tag=$5 bin=$1 extra=()
	if [[ $b == sampled ]]; then
		bin=now extra=(--sample-above "${SAMPLE:-250000}")
	fi
	/usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" \
		"$work/bin/analyze-$bin" incident --store "$st" --from "$from" --to "$to" --top 3 --json "${extra[@]}" >"$work/$b-$tag.json"
	awk '{printf "%s %.1f %d\n", $1, $2 + $3, $4 / 1024}' "$work/time.txt" >>"$work/$b-$tag.runs"
}

# summary BUILD TAG: sets BUILD_TAG_s, _cpu, _mb (medians of its runs)
# and _top (its first candidate, and the sample when it sampled).
summary() {
	local b=$1 tag=$2 f="$work/$1-$2.runs" top
	top=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); c=r["candidates"]; s=r.get("sampled"); print((c[0]["service"] if c else "-") + (" (sampled: %d of %d traces held, healthy 1 in %d%s)" % (s["held"], s["traces"], s["k"], ", failing 1 in %d" % s["failing_k"] if s.get("failing_k") else "") if s else ""))' "$work/$b-$tag.json")
	printf -v "${b}_${tag}_s" '%s' "$(cut -d' ' -f1 "$f" | median)"
	printf -v "${b}_${tag}_cpu" '%s' "$(cut -d' ' -f2 "$f" | median)"
	printf -v "${b}_${tag}_mb" '%s' "$(cut -d' ' -f3 "$f" | median)"
	printf -v "${b}_${tag}_top" '%s' "$top"
	echo "   $b: $(cut -d' ' -f1 "$f" | median) s wall, $(cut -d' ' -f2 "$f" | median) s CPU, $(cut -d' ' -f3 "$f" | median) MB peak RSS; first: $top"
}

# side TAG NAME FROM TO FILE...: the three builds on store NAME of
# FILE..., alternating run by run so that the machine's load falls on
# each alike.
side() {
	local tag=$1 name=$2 from=$3 to=$4 i b st_before st_now
	shift 4
	st_before=$(store before "$name" "$@")
	st_now=$(store now "$name" "$@")
	echo "-- $tag: analyze incident --from $from --to $to"
	rm -f "$work"/*-"$tag".runs
	for i in $(seq "$runs"); do
		once before "$st_before" "$from" "$to" "$tag"
		once now "$st_now" "$from" "$to" "$tag"
		once sampled "$st_now" "$from" "$to" "$tag"
	done
	for b in before now sampled; do
		summary "$b" "$tag"
	done
}

# cell BUILD TAG: a table cell of a build's figures.
cell() {
	local s="${1}_${2}_s" c="${1}_${2}_cpu" m="${1}_${2}_mb"
	echo "${!s} s (CPU ${!c} s), ${!m} MB"
}

echo "== 1. the newer half of a 1M-line file"
data="$work/data-1000000"
if [[ ! -s "$data/all.jsonl" ]]; then
	rm -rf "$data"
	"$work/bin/benchgen" gen -lines 1000000 -out "$data"
fi
t_first=$(head -n1 "$data/all.jsonl" | sed 's/.*"time":"\([^"]*\)".*/\1/')
t_last=$(tail -n1 "$data/all.jsonl" | sed 's/.*"time":"\([^"]*\)".*/\1/')
mid=$(python3 -c 'import sys,datetime as d; f=d.datetime.fromisoformat(sys.argv[1].replace("Z","+00:00")); l=d.datetime.fromisoformat(sys.argv[2].replace("Z","+00:00")); print((f+(l-f)/2).strftime("%Y-%m-%dT%H:%M:%S.%fZ"))' "$t_first" "$t_last")
end=$(python3 -c 'import sys,datetime as d; l=d.datetime.fromisoformat(sys.argv[1].replace("Z","+00:00")); print((l+d.timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ"))' "$t_last")
side lines lines.db "$mid" "$end" "$data/all.jsonl"

echo "-- VictoriaLogs: the same window"
rm -rf "$work/vl-data"
"$work/bin/victoria-logs" -storageDataPath="$work/vl-data" -httpListenAddr=127.0.0.1:9428 -retentionPeriod=100y -loggerLevel=WARN >"$work/vl.log" 2>&1 &
vl_pid=$!
pids+=("$vl_pid")
for _ in $(seq 300); do curl -fs -o /dev/null http://127.0.0.1:9428/health && break; sleep 0.1; done
"$work/bin/benchgen" post -url "http://127.0.0.1:9428/insert/jsonline?_stream_fields=service&_msg_field=msg&_time_field=time" \
	-dir "$data/jsonl" -c 1 -ctype application/x-ndjson >/dev/null
curl -fs -o /dev/null http://127.0.0.1:9428/internal/force_flush
vl_query() { # LOGSQL: wall seconds of one query, output to $work/vl.out
	local t0 t1
	t0=$(date +%s%N)
	curl -fs --data-urlencode "query=$1" http://127.0.0.1:9428/select/logsql/query >"$work/vl.out"
	t1=$(date +%s%N)
	awk -v n=$((t1 - t0)) 'BEGIN {printf "%.3f", n / 1e9}'
}
q="_time:[$mid, $end)"
vl_query "$q | count()" >/dev/null # warm
c=() a=()
for _ in $(seq "$runs"); do
	c+=("$(vl_query "$q | count()")")
	vl_count=$(sed -n 's/.*"count(\*)":"\([0-9]*\)".*/\1/p' "$work/vl.out")
	a+=("$(vl_query "$q")")
	vl_rows=$(wc -l <"$work/vl.out")
done
vl_count_s=$(printf '%s\n' "${c[@]}" | median)
vl_all_s=$(printf '%s\n' "${a[@]}" | median)
vl_mb=$(($(awk '/VmHWM/ {print $2}' "/proc/$vl_pid/status") / 1024))
kill "$vl_pid"
echo "   VictoriaLogs: count() of $vl_count records in $vl_count_s s; all $vl_rows records, every field, in $vl_all_s s; server peak RSS $vl_mb MB (ingest included)"

echo "== 2. the simulated ~1M-record incident (scripts/bench.sh)"
case2="$work/cases/sim-db-pool-exhaustion-42"
if [[ ! -d "$case2" ]]; then
	"$work/bin/faultsim" -out "$work/cases" -cases 1 -seed 42 -tps 100 -fault db-pool-exhaustion -baseline 10m
fi
from2=$(sed -n 's/.*"from": "\(.*\)".*/\1/p' "$case2/truth.json" | head -n1)
to2=$(sed -n 's/.*"to": "\(.*\)".*/\1/p' "$case2/truth.json" | head -n1)
truth2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["root_cause"]["service"])' "$case2/truth.json")
# shellcheck disable=SC2046
side incident incident.db "$from2" "$to2" $(find "$case2" -type f ! -name truth.json | sort)

big_rows=""
if [[ -n ${BIG:-} ]]; then
	bb="${BIG_BASELINE:-10m}"
	echo "== 3. a simulated incident at $BIG requests/s after $bb of baseline"
	case3="$work/cases-big-$BIG-$bb/sim-db-pool-exhaustion-43"
	if [[ ! -d "$case3" ]]; then
		"$work/bin/faultsim" -out "$work/cases-big-$BIG-$bb" -cases 1 -seed 43 -tps "$BIG" -fault db-pool-exhaustion -baseline "$bb"
	fi
	from3=$(sed -n 's/.*"from": "\(.*\)".*/\1/p' "$case3/truth.json" | head -n1)
	to3=$(sed -n 's/.*"to": "\(.*\)".*/\1/p' "$case3/truth.json" | head -n1)
	truth3=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["root_cause"]["service"])' "$case3/truth.json")
	# shellcheck disable=SC2046
	side big "big-$BIG-$bb.db" "$from3" "$to3" $(find "$case3" -type f ! -name truth.json | sort)
	big_n=$(python3 -c 'import json,sys; print(sum(v["records"] for v in json.load(open(sys.argv[1]))["services"]))' "$work/now-big.json" 2>/dev/null || echo "?")
	big_rows="| simulated incident at $BIG requests/s, $bb of baseline before it (truth: $truth3; the window's read: $big_n records) | $(cell before big) | $(cell now big) | $(cell sampled big) | | $before_big_top | $now_big_top | $sampled_big_top |"
fi

mkdir -p "$(dirname "$out")"
{
	echo "# Analysis of large windows: time and memory"
	echo
	echo "Written by \`scripts/bench-analysis.sh\` on $(date -u +%F), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB of memory,"
	echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; median of $runs runs of \`analyze incident\` per build (wall"
	echo "seconds, CPU seconds, peak RSS), the builds alternating run by run. Before: $before_short; now: $head_rev $dirty."
	echo
	echo "| window | before | now | now, sampled | VictoriaLogs | first candidate, before | now | now, sampled |"
	echo "|---|---|---|---|---|---|---|---|"
	echo "| newer half ($vl_count records) of scripts/benchgen's 1M-line file | $(cell before lines) | $(cell now lines) | $(cell sampled lines) | count(): $vl_count_s s; every field: $vl_all_s s | $before_lines_top | $now_lines_top | $sampled_lines_top |"
	echo "| simulated incident of scripts/bench.sh (truth: $truth2) | $(cell before incident) | $(cell now incident) | $(cell sampled incident) | | $before_incident_top | $now_incident_top | $sampled_incident_top |"
	[[ -z $big_rows ]] || echo "$big_rows"
	echo
	echo "\"Now, sampled\" is this build with \`--sample-above ${SAMPLE:-250000}\`: sampling forced below its default threshold (a"
	echo "million records of healthy traces; see rootcause/sample.go). Against VictoriaLogs' count() of the same window, the"
	echo "analysis took $(ratio "$before_lines_s" "$vl_count_s")× before, $(ratio "$now_lines_s" "$vl_count_s")× now and $(ratio "$sampled_lines_s" "$vl_count_s")× sampled; against its read of every"
	echo "field, $(ratio "$before_lines_s" "$vl_all_s")×, $(ratio "$now_lines_s" "$vl_all_s")× and $(ratio "$sampled_lines_s" "$vl_all_s")×."
	echo "VictoriaLogs' server peaked at $vl_mb MB over the load and the queries."
} >"$out"
echo "== wrote $out"
cat "$out"
