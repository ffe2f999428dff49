// Package clickhouse is faultline's ClickHouse backend. It reads and writes
// the tables of the OpenTelemetry Collector's ClickHouse exporter
// (otel_logs, otel_traces, otel_traces_trace_id_ts), so faultline can
// analyse what a Collector already stores without re-ingesting it, and adds
// a few tables of its own for speed (faultline_log_trace_ts,
// faultline_errors) and for documents (faultline_docs).
//
// # Schema
//
// The DDL is embedded in package schema (schema/ddl/*.sql) as numbered
// migrations; Open applies the missing ones and records each in
// schema_migrations. With Options.Cluster the DDL runs ON CLUSTER, tables
// are Replicated*MergeTree named *_local, and a Distributed table with the
// plain name spans the shards (sharded by trace id, so a trace lives on one
// shard). Reading adapts to the columns present, so both generations of the
// Collector's schema work (SeverityNumber Int32 or UInt8, EventName present
// or not, StatusCode 'STATUS_CODE_ERROR' or 'Error').
//
// # Record mapping
//
// Logs go to otel_logs, spans to otel_traces. Record fields that have no
// Collector column (a log's ParentSpanID, a span's Severity, Template and
// Signature, ...) travel in the attributes map under "faultline.*" keys,
// which readers of the plain Collector schema simply see as attributes.
// Reading a row without them computes Template and Signature with
// patterns.Mask at read time.
//
// # Writes
//
// WriteBatch validates every record first (a time outside DateTime64(9)'s
// range refuses the whole batch with backend.ErrBadRecord), then hands the
// batch to the writer (writer.go): batches are grouped by size and time into
// one INSERT per table, each call has a timeout, transient failures are
// retried with exponential backoff and jitter, a circuit breaker stops
// hammering a server that is down, and with a spool directory every
// accepted batch that cannot be inserted now is kept on disk and replayed in
// order later, with an insert_deduplication_token so that a replay never
// duplicates rows. Batches ClickHouse rejects as bad go to a dead-letter
// directory after a bounded number of tries (dlq.go).
package clickhouse
