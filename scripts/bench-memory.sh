#!/usr/bin/env bash
# bench-memory.sh measures the memory of `analyze serve` under analyses, in
# one run (issue 26, "memory bounded as a whole"):
#
#   one    peak RSS of a server that answers one incident analysis
#   eight  peak RSS of a server that answers eight at once, each of another
#          window: five through the JSON API, one through /mcp and two
#          through the Alertmanager hook (a local stand-in for Slack)
#   idle   RSS of that server 10, 30 and 60 seconds after the last one
#
# for the build of this tree and, with BEFORE_REV=<git rev>, for the build
# of that revision beside it. The store is a simulated incident of about
# TPS*2400 records (faultsim, 10 minutes of baseline and 10 of incident;
# TPS=30 gives 600k records, windows of 15 minutes about 450k), loaded
# once. The figures go to stdout and to docs/memory-bench.md (OUT=...).
# Linux only (peak RSS is VmHWM of /proc/PID/status); needs curl and
# python3 (the Slack stand-in). Numbers vary with the machine's load.
#
#   BEFORE_REV=f854e6f scripts/bench-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="${BENCH_DIR:-$(mktemp -d /tmp/faultline-bench-memory.XXXXXX)}"
tps="${TPS:-30}"
out="${OUT:-$root/docs/memory-bench.md}"
idle_wait="${IDLE_WAIT:-60}"
mkdir -p "$work"
for tool in curl python3; do
	command -v "$tool" >/dev/null || { echo "bench-memory.sh needs $tool" >&2; exit 2; }
done

echo "== build (work dir $work)"
go build -o "$work/analyze" ./cmd/analyze
go build -o "$work/ingest" ./cmd/ingest
go build -o "$work/faultsim" ./cmd/faultsim
builds=(now)
if [[ -n "${BEFORE_REV:-}" ]]; then
	rm -rf "$work/before-src" && mkdir -p "$work/before-src"
	git archive "$BEFORE_REV" | tar -x -C "$work/before-src"
	(cd "$work/before-src" && go build -o "$work/analyze-before" ./cmd/analyze)
	builds=(before now)
fi

echo "== store: simulated incident at $tps requests/s"
case="$work/cases/sim-db-pool-exhaustion-42"
if [[ ! -d "$case" ]]; then
	"$work/faultsim" -out "$work/cases" -cases 1 -seed 42 -tps "$tps" -fault db-pool-exhaustion -baseline 10m -window 10m |
		sed -n 's/.*\t\([0-9]*\) records.*/\1/p' >"$work/records.txt"
fi
db="$work/bench.db"
if [[ ! -f "$db" ]]; then
	# shellcheck disable=SC2046
	"$work/ingest" load -q --store "$db" $(find "$case" -type f ! -name truth.json | sort)
fi
records=$(cat "$work/records.txt" 2>/dev/null || echo "?")
# The incident of seed 42 runs from 09:10 to 09:20 after ten minutes of
# baseline; every window below is 15 minutes long.
day=$(sed -n 's/.*"from": "\([0-9-]*\)T.*/\1/p' "$case/truth.json" | head -n1)
at() { echo "${day}T$1Z"; }

# The Slack stand-in: answers every post "ok" and counts them.
slack_log="$work/slack.log"
slack_port_file="$work/slack.port"
rm -f "$slack_port_file"
python3 - "$slack_log" "$slack_port_file" <<'EOF' &
import http.server, sys
log, portfile = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(log, "a") as f: f.write("post\n")
        self.send_response(200); self.send_header("Content-Type", "text/plain"); self.end_headers(); self.wfile.write(b"ok")
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(portfile, "w").write(str(s.server_port))
s.serve_forever()
EOF
slack_pid=$!
server_pid=""
cleanup() {
	[[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
	kill "$slack_pid" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 50); do [[ -s "$slack_port_file" ]] && break; sleep 0.1; done
slack_url="http://127.0.0.1:$(cat "$slack_port_file")/services/bench"

port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"
kb() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$server_pid/status"; }
mb() { echo $(( $1 / 1024 )); }

# start BIN: a server on a fresh copy of the store (a server keeps
# runbooks and the alerts' Slack state in it: a second run would find the
# alerts delivered), with the alert hooks on.
start() {
	rm -f "$work/run.db" "$work/run.db-wal" "$work/run.db-shm"
	cp "$db" "$work/run.db"
	FAULTLINE_SLACK_WEBHOOK_URL="$slack_url" "$1" serve --store "$work/run.db" --listen "127.0.0.1:$port" \
		--request-timeout 120s --analysis-queue 8 >"$work/serve.log" 2>&1 &
	server_pid=$!
	for _ in $(seq 100); do curl -fs "$base/healthz" >/dev/null 2>&1 && return; sleep 0.1; done
	echo "the server did not start:" >&2; cat "$work/serve.log" >&2; exit 1
}
stop() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""; }

api() { curl -fsS -o /dev/null "$base/api/v1/incident?from=$(at "$1")&to=$(at "$2")"; }
mcp() {
	curl -fsS -o /dev/null "$base/mcp" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		-d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"incident","arguments":{"from":"'"$(at "$1")"'","to":"'"$(at "$2")"'"}}}'
}
# alert STARTS ENDS: a resolved Alertmanager group, named anew each run;
# its window is STARTS less 15 minutes (the hooks' look-back) to ENDS.
alert() {
	local name="Bench${1//:/}x$RANDOM"
	curl -fsS -o /dev/null "$base/hooks/alertmanager" -H 'Content-Type: application/json' -d '{"version":"4","groupKey":"'"$name"'","status":"resolved","receiver":"bench",
	"groupLabels":{"alertname":"'"$name"'"},"commonLabels":{"alertname":"'"$name"'"},"commonAnnotations":{},"externalURL":"http://alertmanager",
	"alerts":[{"status":"resolved","labels":{"alertname":"'"$name"'"},"annotations":{},"startsAt":"'"$(at "$1")"'","endsAt":"'"$(at "$2")"'","fingerprint":"'"$name"'"}]}'
}
posts() { [[ -f "$slack_log" ]] && wc -l <"$slack_log" || echo 0; }

declare -A one one_secs eight idle10 idle30 idle60 secs
for b in "${builds[@]}"; do
	bin="$work/analyze"
	[[ "$b" == before ]] && bin="$work/analyze-before"
	echo "== $b: one analysis"
	start "$bin"
	t0=$(date +%s.%N)
	api 09:05:00 09:20:00
	one_secs[$b]=$(echo "$(date +%s.%N) - $t0" | bc)
	one[$b]=$(mb "$(kb VmHWM)")
	stop
	echo "   peak ${one[$b]} MB in ${one_secs[$b]} s"

	echo "== $b: eight at once (5 API, 1 MCP, 2 alert hooks)"
	rm -f "$slack_log"
	start "$bin"
	t0=$(date +%s.%N)
	pids=()
	for k in 1 2 3 4 5; do
		s=$((4 * 60 + k * 20)) # 09:04:20, 09:04:40, ...
		api "09:$(printf %02d $((s / 60))):$(printf %02d $((s % 60)))" "09:$(printf %02d $((s / 60 + 15))):$(printf %02d $((s % 60)))" &
		pids+=($!)
	done
	mcp 09:04:10 09:19:10 &
	pids+=($!)
	alert 09:19:15 09:19:45
	alert 09:19:30 09:20:00
	for p in "${pids[@]}"; do wait "$p"; done
	for _ in $(seq 600); do (($(posts) >= 2)) && break; sleep 0.2; done
	(($(posts) >= 2)) || echo "   (the alerts were not all posted: $(posts) of 2)" >&2
	secs[$b]=$(echo "$(date +%s.%N) - $t0" | bc)
	eight[$b]=$(mb "$(kb VmHWM)")
	echo "   peak ${eight[$b]} MB in ${secs[$b]} s; idle for ${idle_wait}s"
	sleep 10
	idle10[$b]=$(mb "$(kb VmRSS)")
	sleep 20
	idle30[$b]=$(mb "$(kb VmRSS)")
	sleep $((idle_wait - 30))
	idle60[$b]=$(mb "$(kb VmRSS)")
	stop
	echo "   idle ${idle10[$b]} MB after 10 s, ${idle30[$b]} MB after 30 s, ${idle60[$b]} MB after ${idle_wait} s"
done

rev=$(git rev-parse --short HEAD)
dirty=""
[[ -n "$(git status --porcelain -- cmd web enrich store rootcause analysis correlate)" ]] && dirty=" (with uncommitted changes)"
{
	echo "# Memory of analyze serve under analyses"
	echo
	echo "Written by \`scripts/bench-memory.sh\` on $(date -u +%Y-%m-%d), build $rev$dirty, $(nproc) cores,"
	echo "$(free -g | awk '/^Mem:/ {print $2}') GB of memory; store: the simulated incident of seed 42 at $tps requests/s,"
	echo "$records records; each analysis reads a window of 15 minutes. See docs/memory.md."
	echo
	echo "| build | one analysis: peak RSS | took | eight at once: peak RSS | ratio | took | idle after 10 s | 30 s | ${idle_wait} s |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for b in "${builds[@]}"; do
		name="$rev$dirty"
		[[ "$b" == before ]] && name="$BEFORE_REV (before)"
		ratio=$(echo "scale=2; ${eight[$b]} / ${one[$b]}" | bc)
		echo "| $name | ${one[$b]} MB | ${one_secs[$b]%.*} s | ${eight[$b]} MB | ${ratio}× | ${secs[$b]%.*} s | ${idle10[$b]} MB | ${idle30[$b]} MB | ${idle60[$b]} MB |"
	done
} >"$out"
echo "== figures in $out"
cat "$out"
