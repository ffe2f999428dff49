#!/usr/bin/env bash
# test.sh sets up what the tests need on a fresh Debian machine and runs
# them all: Go modules, the Collector's telemetrygen (OTLP/gRPC tests),
# Debian's Chromium (web UI tests), Debian's syslog-ng with its http()
# module (TestSyslogNG), the ClickHouse engine as a library
# (libchdb from npm, for the ClickHouse backend tests).
# Idempotent: what is already there is not installed again.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

echo "== Go modules"
go mod download

echo "== telemetrygen (OTLP/gRPC tests: the Collector's load generator)"
# v0.161.0 installs in about 20 s on a fresh module cache; -mod=mod so that
# a GOFLAGS of -mod=vendor or readonly does not get in the way.
gobin="$(go env GOBIN)"
gobin="${gobin:-$(go env GOPATH)/bin}"
if [[ -z "${FAULTLINE_TELEMETRYGEN:-}" && ! -x "$gobin/telemetrygen" ]]; then
	GOFLAGS=-mod=mod go install github.com/open-telemetry/opentelemetry-collector-contrib/cmd/telemetrygen@v0.161.0
fi
export FAULTLINE_TELEMETRYGEN="${FAULTLINE_TELEMETRYGEN:-$gobin/telemetrygen}"

echo "== Chromium (web UI tests)"
if ! command -v chromium >/dev/null 2>&1; then
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
export FAULTLINE_CHROMIUM="${FAULTLINE_CHROMIUM:-$(command -v chromium)}"

echo "== syslog-ng (TestSyslogNG: the README's file() -> http() configuration)"
if ! ls /usr/lib/syslog-ng/*/libhttp.so >/dev/null 2>&1; then # the http() module; it depends on syslog-ng-core
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends syslog-ng-core syslog-ng-mod-http >/dev/null
fi
export FAULTLINE_SYSLOGNG="${FAULTLINE_SYSLOGNG:-$(command -v syslog-ng || echo /usr/sbin/syslog-ng)}"

echo "== ClickHouse engine (libchdb from npm)"
FAULTLINE_CHDB_LIB="$(.ci/install-chdb.sh | tail -n1)"
export FAULTLINE_CHDB_LIB

echo "== an old ClickHouse server (Debian's 18.16), for the version refusal"
if ! command -v clickhouse-server >/dev/null 2>&1; then
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clickhouse-server >/dev/null
fi
old="$(mktemp -d /tmp/faultline-ch-old.XXXXXX)"
clickhouse-server --config-file=/etc/clickhouse-server/config.xml -- \
	--path="$old/" --tmp_path="$old/tmp/" --user_files_path="$old/uf/" --format_schema_path="$old/fs/" \
	--listen_host=127.0.0.1 --tcp_port=19000 --http_port=18123 \
	--logger.log="$old/log" --logger.errorlog="$old/err" --logger.console=0 >/dev/null 2>&1 &
old_pid=$!
trap 'kill "$old_pid" 2>/dev/null || true; rm -rf "$old"' EXIT
for _ in $(seq 1 100); do
	curl -sf http://127.0.0.1:18123/ping >/dev/null 2>&1 && break
	sleep 0.2
done
export FAULTLINE_CH_OLD_URLS="clickhouse://127.0.0.1:19000/default clickhouse://127.0.0.1:18123/default?protocol=http"

echo "== go vet"
go vet ./...

echo "== go test"
go test -count=1 -timeout 25m ./...
