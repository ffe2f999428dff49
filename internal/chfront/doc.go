// Package chfront is a test-only HTTP front over chDB (ClickHouse as a
// library): it speaks the subset of ClickHouse's HTTP interface that
// clickhouse-go uses in its HTTP protocol mode, and runs every statement in
// one embedded chDB session. The ClickHouse backend's tests run the
// production clickhouse-go code against it, so they exercise a real modern
// ClickHouse engine without a server.
//
// # Design
//
// The front runs as its own process (see cmd/chfront) because chDB installs
// signal handlers that break Go's panics in the process that loads it. One
// session on one data directory serves every request under a mutex. For
// each request the front decodes the body (gzip or deflate), takes the SQL
// from the query parameter or the body, turns the URL parameters into
// param_* values (bound per call with chdb_query_with_params) and settings
// (applied with SET before the statement and reset after it), answers the
// client's handshake query itself (chDB's Native output is revision 0, so
// the front reports revision() = 0), runs an INSERT whose data is in the
// body as INSERT ... FROM INFILE over a temporary file, and replies with the
// Native bytes or with a ClickHouse exception (X-ClickHouse-Exception-Code).
//
// # Gaps against a real server
//
// One shared session (SET and temporary tables persist), multi-statement
// SQL accepted, every error is HTTP 500, no native LZ4/ZSTD compression, no
// external tables, no authentication, whole results buffered.
package chfront
