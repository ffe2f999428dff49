package clickhouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/faultline/faultline/schema"
)

// colValue gives one column's value for a record.
type colValue func(r *schema.Record, res, rec map[string]string) any

type colSpec struct {
	name string
	val  colValue
}

// insertGroup inserts recs into otel_logs and otel_traces, one INSERT per
// table, each with a deduplication token derived from token so that
// inserting the same group again adds nothing.
func (s *Store) insertGroup(ctx context.Context, recs []schema.Record, token string) error {
	var logs, spans []*schema.Record
	for i := range recs {
		if recs[i].Type == schema.TypeSpan {
			spans = append(spans, &recs[i])
		} else {
			logs = append(logs, &recs[i])
		}
	}
	if len(logs) > 0 {
		if err := s.insertTable(ctx, schema.TableLogs, s.logColumns(), logs, token+":logs", true); err != nil {
			return err
		}
	}
	if len(spans) > 0 {
		return s.insertTable(ctx, schema.TableTraces, s.spanColumns(), spans, token+":spans", false)
	}
	return nil
}

func (s *Store) insertTable(ctx context.Context, table string, cols []colSpec, recs []*schema.Record, token string, isLog bool) error {
	if !s.layout.has(table) {
		return fmt.Errorf("cannot write to %s: the table does not exist (open the store read-write once to create it)", table)
	}
	settings := clickhouse.Settings{
		"insert_deduplicate":                                 1,
		"insert_deduplication_token":                         token,
		"deduplicate_blocks_in_dependent_materialized_views": 1,
	}
	if s.opts.Cluster != "" {
		settings["insert_distributed_sync"] = 1
	}
	ctx = clickhouse.Context(ctx, clickhouse.WithSettings(settings))
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = quoteIdent(c.name)
	}
	b, err := s.conn.PrepareBatch(ctx, fmt.Sprintf("INSERT INTO %s (%s)", s.table(table), strings.Join(names, ", ")))
	if err != nil {
		return fmt.Errorf("cannot prepare the insert into %s: %w", table, err)
	}
	if err := s.appendRows(b, cols, recs, isLog); err != nil {
		b.Abort()
		return err
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("cannot insert %d records into %s: %w", len(recs), table, err)
	}
	return nil
}

func (s *Store) appendRows(b driver.Batch, cols []colSpec, recs []*schema.Record, isLog bool) error {
	hasScope := s.layout.hasCol(schema.TableLogs, "ScopeName")
	vals := make([]any, len(cols))
	for _, r := range recs {
		res, rec := splitAttrs(r)
		if isLog {
			logExtras(r, rec, hasScope)
		} else {
			spanExtras(r, rec)
		}
		for i, c := range cols {
			vals[i] = c.val(r, res, rec)
		}
		if err := b.Append(vals...); err != nil {
			return fmt.Errorf("cannot encode a record: %w", err)
		}
	}
	return nil
}

// logColumns are the otel_logs columns faultline writes, limited to those
// the table has; the others take their defaults (TimestampTime is computed).
func (s *Store) logColumns() []colSpec {
	sevType := s.layout.colType(schema.TableLogs, "SeverityNumber")
	all := []colSpec{
		{"Timestamp", func(r *schema.Record, _, _ map[string]string) any { return r.Time }},
		{"TraceId", func(r *schema.Record, _, _ map[string]string) any { return string(r.TraceID) }},
		{"SpanId", func(r *schema.Record, _, _ map[string]string) any { return string(r.SpanID) }},
		{"SeverityText", func(r *schema.Record, _, _ map[string]string) any { return r.SeverityText }},
		{"SeverityNumber", func(r *schema.Record, _, _ map[string]string) any { return intAs(sevType, int64(r.Severity)) }},
		{"ServiceName", func(r *schema.Record, _, _ map[string]string) any { return r.Service }},
		{"Body", func(r *schema.Record, _, _ map[string]string) any { return r.Body }},
		{"ResourceAttributes", func(_ *schema.Record, res, _ map[string]string) any { return res }},
		{"ScopeName", func(r *schema.Record, _, _ map[string]string) any { return r.Name }},
		{"LogAttributes", func(_ *schema.Record, _, rec map[string]string) any { return rec }},
	}
	return s.present(schema.TableLogs, all)
}

// spanColumns are the otel_traces columns faultline writes.
func (s *Store) spanColumns() []colSpec {
	durType := s.layout.colType(schema.TableTraces, "Duration")
	all := []colSpec{
		{"Timestamp", func(r *schema.Record, _, _ map[string]string) any { return r.Time }},
		{"TraceId", func(r *schema.Record, _, _ map[string]string) any { return string(r.TraceID) }},
		{"SpanId", func(r *schema.Record, _, _ map[string]string) any { return string(r.SpanID) }},
		{"ParentSpanId", func(r *schema.Record, _, _ map[string]string) any { return string(r.ParentSpanID) }},
		{"SpanName", func(r *schema.Record, _, _ map[string]string) any { return r.Name }},
		{"ServiceName", func(r *schema.Record, _, _ map[string]string) any { return r.Service }},
		{"ResourceAttributes", func(_ *schema.Record, res, _ map[string]string) any { return res }},
		{"SpanAttributes", func(_ *schema.Record, _, rec map[string]string) any { return rec }},
		{"Duration", func(r *schema.Record, _, _ map[string]string) any { return intAs(durType, int64(r.Duration)) }},
		{"StatusCode", func(r *schema.Record, _, _ map[string]string) any { return statusCode(r.Status) }},
		{"StatusMessage", func(r *schema.Record, _, _ map[string]string) any { return r.Body }},
	}
	return s.present(schema.TableTraces, all)
}

func (s *Store) present(table string, all []colSpec) []colSpec {
	out := all[:0:0]
	for _, c := range all {
		if s.layout.hasCol(table, c.name) {
			out = append(out, c)
		}
	}
	return out
}

// intAs converts v to the Go type clickhouse-go wants for a column of the
// given integer type (the Collector's generations differ: UInt8 or Int32
// severities, UInt64 or Int64 durations), clamping to the type's range.
func intAs(typ string, v int64) any {
	clamp := func(lo, hi int64) int64 { return max(lo, min(hi, v)) }
	switch strings.TrimSuffix(strings.TrimPrefix(typ, "LowCardinality("), ")") {
	case "UInt8":
		return uint8(clamp(0, 255))
	case "Int8":
		return int8(clamp(-128, 127))
	case "UInt16":
		return uint16(clamp(0, 65535))
	case "Int16":
		return int16(clamp(-32768, 32767))
	case "UInt32":
		return uint32(clamp(0, 1<<32-1))
	case "Int32":
		return int32(clamp(-1<<31, 1<<31-1))
	case "UInt64":
		return uint64(clamp(0, 1<<63-1))
	}
	return v
}
