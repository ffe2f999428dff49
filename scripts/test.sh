#!/usr/bin/env bash
# test.sh sets up what the tests need on a fresh Debian machine and runs
# them all: Go modules, Debian's Chromium (web UI tests), the ClickHouse
# engine as a library (libchdb from npm, for the ClickHouse backend tests).
# Idempotent: what is already there is not installed again.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

echo "== Go modules"
go mod download

echo "== Chromium (web UI tests)"
if ! command -v chromium >/dev/null 2>&1; then
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
export FAULTLINE_CHROMIUM="${FAULTLINE_CHROMIUM:-$(command -v chromium)}"

echo "== ClickHouse engine (libchdb from npm)"
FAULTLINE_CHDB_LIB="$(.ci/install-chdb.sh | tail -n1)"
export FAULTLINE_CHDB_LIB

echo "== go vet"
go vet ./...

echo "== go test"
go test -count=1 -timeout 25m ./...
