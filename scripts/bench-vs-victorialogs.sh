#!/usr/bin/env bash
# bench-vs-victorialogs.sh measures faultline's ingest beside VictoriaLogs on
# the same machine in one run: the same realistic 1M-line workload
# (scripts/benchgen: 12 services, 1 error in 30, a new trace every 8 lines,
# numbers in every message, a span id per line), posted to each in the same
# ~8 MB requests, one after another and with 4 concurrent clients, as JSON
# lines, Loki push protobuf and OTLP logs protobuf. For every run it prints
# lines/s, bytes on disk (after a flush / a clean stop), peak RSS (VmHWM),
# CPU seconds the server used for the run (steadier than lines/s on a busy
# machine)
# and, after the sequential JSON-lines run, the latency of finding one
# trace by id (median of several ids): VictoriaLogs' /select/logsql/query,
# faultline's `analyze trace --json` as a whole process and its
# /api/v1/trace/ID. Ratios are faultline / VictoriaLogs.
#
#   scripts/bench-vs-victorialogs.sh             # all formats
#   FORMATS=jsonl LINES=200000 scripts/bench-vs-victorialogs.sh
#
# "+Nr" after a lines/s figure: N requests were answered 429/503 (back-pressure)
# and retried after Retry-After, as shippers do. FL_BIN=DIR takes prebuilt
# ingest and analyze binaries (e.g. of an older commit) instead of building.
# Needs Go, curl and free ports 9428, 3100, 4318, 8080 on 127.0.0.1.
# Numbers vary with the machine's load; run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work="${BENCH_DIR:-/tmp/faultline-vs-victorialogs}"
lines="${LINES:-1000000}"
formats="${FORMATS:-jsonl loki otlp}"
clients="${CLIENTS:-1 4}"
vl_version="${VL_VERSION:-v1.52.1}"
lookups="${LOOKUPS:-7}"
mkdir -p "$work/bin"
export GOBIN="$work/bin"

echo "== building (work dir $work)"
if [[ ! -x "$work/bin/victoria-logs" ]]; then
	(cd "$work" && GOFLAGS=-mod=mod go install "github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs@$vl_version")
fi
if [[ -n ${FL_BIN:-} ]]; then # prebuilt ingest and analyze (e.g. of an older commit)
	cp "$FL_BIN/ingest" "$FL_BIN/analyze" "$work/bin/"
else
	go build -o "$work/bin/ingest" ./cmd/ingest
	go build -o "$work/bin/analyze" ./cmd/analyze
fi
go build -o "$work/bin/benchgen" ./scripts/benchgen
data="$work/data-$lines"
if [[ ! -s "$data/traces.txt" ]]; then
	rm -rf "$data"
	"$work/bin/benchgen" gen -lines "$lines" -out "$data"
fi
echo "workload: $lines lines, $(du -sb "$data/all.jsonl" | cut -f1) bytes of JSON lines in $(ls "$data/jsonl" | wc -l) requests;" \
	"loki $(du -sb "$data/loki" | cut -f1) bytes, otlp $(du -sb "$data/otlp" | cut -f1) bytes"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr); $(date -u +%FT%TZ)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

now() { date +%s%N; }
# wait_http URL: until it answers 2xx, at most 30 s.
wait_http() {
	for _ in $(seq 300); do
		curl -fs -o /dev/null "$1" && return 0
		sleep 0.1
	done
	echo "no answer from $1" >&2
	return 1
}
hwm() { awk '/VmHWM/ {print $2 * 1024}' "/proc/$1/status"; }
# cpu PID: CPU seconds (user + system) the process used so far.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$1/stat"; }
# stop PID: SIGTERM and wait for the process to end.
stop() {
	kill -TERM "$1"
	while kill -0 "$1" 2>/dev/null; do sleep 0.1; done
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="${1%%+*}" -v b="${2%%+*}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

vl_url() {
	case "$1" in
	jsonl) echo "http://127.0.0.1:9428/insert/jsonline?_stream_fields=service&_msg_field=msg&_time_field=time" ;;
	loki) echo "http://127.0.0.1:9428/insert/loki/api/v1/push" ;;
	otlp) echo "http://127.0.0.1:9428/insert/opentelemetry/v1/logs" ;;
	esac
}
fl_url() {
	case "$1" in
	jsonl) echo "http://127.0.0.1:3100/ingest/jsonl" ;;
	loki) echo "http://127.0.0.1:3100/loki/api/v1/push" ;;
	otlp) echo "http://127.0.0.1:4318/v1/logs" ;;
	esac
}
ctype() {
	case "$1" in
	jsonl) echo "application/x-ndjson" ;;
	*) echo "application/x-protobuf" ;;
	esac
}

# post FORMAT URL CLIENTS: prints lines/s, and "+Nr" when N requests were
# answered 429/503 and retried
post() {
	"$work/bin/benchgen" post -url "$2" -dir "$data/$1" -c "$3" -ctype "$(ctype "$1")" |
		sed -n 's/.*retries=\([0-9]*\) lines_per_s=\(.*\)/\2 \1/p' | awk '{ if ($2 > 0) print $1 "+" $2 "r"; else print $1 }'
}

# Trace lookups, after the sequential JSON-lines runs: median ms.
vl_lookup() {
	local id ms=() t0 n
	for id in $(head -n "$lookups" "$data/traces.txt"); do
		t0=$(now)
		n=$(curl -fs --data-urlencode "query=trace_id:\"$id\"" http://127.0.0.1:9428/select/logsql/query | wc -l)
		ms+=($((($(now) - t0) / 1000)))
		[[ $n -ge 1 ]] || echo "warning: VictoriaLogs found no record of trace $id" >&2
	done
	printf '%s\n' "${ms[@]}" | median | awk '{printf "%.1f", $1 / 1000}'
}
fl_lookup_cli() {
	local id ms=() t0
	for id in $(head -n "$lookups" "$data/traces.txt"); do
		t0=$(now)
		"$work/bin/analyze" trace --store "$1" --json "$id" >/dev/null
		ms+=($((($(now) - t0) / 1000)))
	done
	printf '%s\n' "${ms[@]}" | median | awk '{printf "%.1f", $1 / 1000}'
}
fl_lookup_api() {
	local id ms=() t0 pid
	"$work/bin/analyze" serve --store "$1" --listen 127.0.0.1:8080 >"$work/analyze-serve.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	wait_http http://127.0.0.1:8080/healthz
	curl -fs -o /dev/null "http://127.0.0.1:8080/api/v1/trace/$(head -n1 "$data/traces.txt")" # warm the pool
	for id in $(head -n "$lookups" "$data/traces.txt"); do
		t0=$(now)
		curl -fs -o /dev/null "http://127.0.0.1:8080/api/v1/trace/$id"
		ms+=($((($(now) - t0) / 1000)))
	done
	stop "$pid"
	printf '%s\n' "${ms[@]}" | median | awk '{printf "%.1f", $1 / 1000}'
}

run_vl() { # FORMAT CLIENTS: sets vl_lps vl_disk vl_rss [vl_ms]
	local dir="$work/vl-data" pid
	rm -rf "$dir"
	"$work/bin/victoria-logs" -storageDataPath="$dir" -httpListenAddr=127.0.0.1:9428 -retentionPeriod=100y \
		-loggerLevel=WARN >"$work/vl.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	wait_http http://127.0.0.1:9428/health
	vl_lps=$(post "$1" "$(vl_url "$1")" "$2")
	curl -fs -o /dev/null http://127.0.0.1:9428/internal/force_flush
	sleep 2
	vl_rss=$(hwm "$pid")
	vl_cpu=$(cpu "$pid")
	vl_ms=""
	if [[ $1 == jsonl && $2 == 1 ]]; then
		vl_lookup >/dev/null # warm up
		vl_ms=$(vl_lookup)
	fi
	stop "$pid"
	vl_disk=$(du -sb "$dir" | cut -f1)
}

run_fl() { # FORMAT CLIENTS: sets fl_lps fl_disk fl_rss [fl_ms_cli fl_ms_api]
	local dir="$work/fl-data" pid
	rm -rf "$dir"
	mkdir -p "$dir"
	"$work/bin/ingest" serve --store "$dir/faultline.db" --listen 127.0.0.1:3100 --otlp-listen 127.0.0.1:4318 \
		--otlp-grpc-listen off >"$work/fl.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	wait_http http://127.0.0.1:3100/healthz
	fl_lps=$(post "$1" "$(fl_url "$1")" "$2")
	fl_rss=$(hwm "$pid")
	fl_cpu=$(cpu "$pid")
	stop "$pid"
	fl_disk=$(du -sb "$dir" | cut -f1)
	fl_ms_cli="" fl_ms_api=""
	if [[ $1 == jsonl && $2 == 1 ]]; then
		fl_lookup_cli "$dir/faultline.db" >/dev/null # warm up
		fl_ms_cli=$(fl_lookup_cli "$dir/faultline.db")
		fl_ms_api=$(fl_lookup_api "$dir/faultline.db")
	fi
}

echo
printf '%-6s %-3s | %12s %12s %6s | %11s %11s %6s | %9s %9s %6s | %6s %6s %6s\n' format c "VL lines/s" "FL lines/s" ratio \
	"VL disk" "FL disk" ratio "VL RSS" "FL RSS" ratio "VL cpu" "FL cpu" ratio
for f in $formats; do
	for c in $clients; do
		run_vl "$f" "$c"
		run_fl "$f" "$c"
		printf '%-6s %-3s | %12s %12s %6s | %11s %11s %6s | %8sM %8sM %6s | %5ss %5ss %6s\n' "$f" "$c" "$vl_lps" "$fl_lps" "$(ratio "$fl_lps" "$vl_lps")" \
			"$vl_disk" "$fl_disk" "$(ratio "$fl_disk" "$vl_disk")" \
			"$((vl_rss >> 20))" "$((fl_rss >> 20))" "$(ratio "$fl_rss" "$vl_rss")" \
			"$vl_cpu" "$fl_cpu" "$(ratio "$fl_cpu" "$vl_cpu")"
		if [[ -n $vl_ms ]]; then
			lookup="trace lookup (median of $lookups ids): VictoriaLogs query ${vl_ms} ms; faultline analyze trace (whole process) ${fl_ms_cli} ms ($(ratio "$fl_ms_cli" "$vl_ms")x), /api/v1/trace ${fl_ms_api} ms ($(ratio "$fl_ms_api" "$vl_ms")x)"
		fi
	done
done
echo
echo "${lookup:-}"
echo "raw file: $(du -sb "$data/all.jsonl" | cut -f1) bytes"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
