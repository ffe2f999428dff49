#!/usr/bin/env bash
# install-chdb.sh installs libchdb (ClickHouse as a library) from the npm
# package @chdb/lib-linux-x64-gnu into a cache directory, for the tests that
# run the ClickHouse backend against a real engine (see internal/chfront).
#
# Idempotent: when the library is already there it only prints its path.
# The last line of output is the absolute path of libchdb.so; use it as
#   export FAULTLINE_CHDB_LIB="$(.ci/install-chdb.sh | tail -n1)"
#
# Environment:
#   FAULTLINE_CHDB_CACHE    cache directory (default ~/.cache/faultline/chdb)
#   FAULTLINE_CHDB_VERSION  npm version of the package (default 26.5.3)
set -euo pipefail

pkg="@chdb/lib-linux-x64-gnu"
version="${FAULTLINE_CHDB_VERSION:-26.5.3}"
cache="${FAULTLINE_CHDB_CACHE:-${HOME}/.cache/faultline/chdb}"
dir="${cache}/${version}"
lib="${dir}/libchdb.so"

if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
	echo "install-chdb: ${pkg} exists for Linux x86-64 only (this is $(uname -s)-$(uname -m))" >&2
	exit 1
fi

if [[ -s "${lib}" ]]; then
	echo "install-chdb: libchdb ${version} already in ${dir}" >&2
	echo "${lib}"
	exit 0
fi

command -v npm >/dev/null || { echo "install-chdb: npm is needed (node 20+)" >&2; exit 1; }

mkdir -p "${cache}"
tmp="$(mktemp -d "${cache}/.install.XXXXXX")"
trap 'rm -rf "${tmp}"' EXIT

echo "install-chdb: downloading ${pkg}@${version} (about 160 MiB)" >&2
# A throwaway npm cache: the library is cached here, not twice.
(cd "${tmp}" && npm pack --silent --cache "${tmp}/npm-cache" "${pkg}@${version}" >/dev/null)
tarball="$(ls "${tmp}"/*.tgz)"
tar -xzf "${tarball}" -C "${tmp}"
found="$(find "${tmp}/package" -name 'libchdb.so' -type f | head -n1)"
if [[ -z "${found}" ]]; then
	echo "install-chdb: no libchdb.so in ${pkg}@${version}" >&2
	exit 1
fi

# Move into place atomically so a concurrent or interrupted run never
# leaves a half-written library at the final path.
mkdir -p "${tmp}/out"
mv "${found}" "${tmp}/out/libchdb.so"
rm -rf "${dir}.partial"
mv "${tmp}/out" "${dir}.partial"
if ! mv -T "${dir}.partial" "${dir}" 2>/dev/null; then
	rm -rf "${dir}.partial" # another run won the race
fi
echo "install-chdb: installed ${lib}" >&2
echo "${lib}"
