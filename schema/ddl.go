package schema

import "embed"

// DDL holds the ClickHouse schema as versioned migrations: files named
// NNNN_name.sql under ddl/, applied in order. Each file is a text/template
// (rendered by store/clickhouse, which names the placeholders) holding
// statements separated by ";" at the end of a line.
//
//go:embed ddl/*.sql
var DDL embed.FS

// DDLDir is the directory of the migrations inside DDL.
const DDLDir = "ddl"

// ClickHouse table names faultline reads and writes. The otel_* tables are
// the OpenTelemetry Collector ClickHouse exporter's; the faultline_* ones
// are faultline's own additions.
const (
	TableLogs         = "otel_logs"
	TableTraces       = "otel_traces"
	TableTraceIDTs    = "otel_traces_trace_id_ts"
	TableLogTraceIDTs = "faultline_log_trace_ts"
	TableErrors       = "faultline_errors"
	TableDocs         = "faultline_docs"
	TableMigrations   = "schema_migrations"
)
