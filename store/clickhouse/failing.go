package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// Error conditions: what schema.Record.IsError holds, as SQL over the
// columns each failing-trace select below names (Kind, Severity,
// Status).
const isErrorCond = "((Kind = 0 AND Severity >= 17) OR (Kind = 1 AND Status IN ('Error', 'STATUS_CODE_ERROR')))"

// FailingTraces returns the ids of the traces with an error record (as
// schema.Record.IsError tells) among the newest limit alert records of
// [from, to) (limit <= 0: Options.WindowLimit): what a newest-first read
// of the window's alert records (WindowQuery{ErrorsOnly: true, Newest:
// true}) would name, selected by the server, which sends the ids alone
// rather than every alert record whole. It reads faultline_errors when it
// exists, else the record tables with the alert conditions.
func (s *Store) FailingTraces(ctx context.Context, from, to time.Time, limit int) ([]schema.TraceID, error) {
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("cannot read the failing traces: %w", err)
	}
	if !from.Before(to) {
		return nil, nil
	}
	q, args := s.failingSQL(from, to, limit)
	if q == "" {
		return nil, nil
	}
	q += " ORDER BY TraceId"
	t0 := time.Now()
	rows, err := s.conn.Query(ctx, q, args...)
	s.log.Debug("query", "took", time.Since(t0), "sql", q)
	if err != nil {
		return nil, fmt.Errorf("cannot read the failing traces: %w", err)
	}
	defer rows.Close()
	var out []schema.TraceID
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("cannot read the failing traces: %w", err)
		}
		out = append(out, schema.TraceID(id))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the failing traces: %w", err)
	}
	return out, nil
}

// failingSQL is the statement that selects the ids of FailingTraces (in no
// order) and its arguments; "" when the store has no table to read them
// from.
func (s *Store) failingSQL(from, to time.Time, limit int) (string, []any) {
	if limit <= 0 {
		limit = s.opts.WindowLimit
	}
	var sqls []string
	var args []any
	add := func(table, sel, cond string, hasSec bool) {
		t := timeCond(source{hasSec: hasSec}, from, to, false)
		q := "SELECT " + sel + " FROM " + s.table(table) + " WHERE " + t.sql
		if cond != "" {
			q += " AND " + cond
		}
		sqls, args = append(sqls, q), append(args, t.args...)
	}
	const logSel = "toUInt8(0) AS Kind, Timestamp, TraceId, toInt32(SeverityNumber) AS Severity, '' AS Status"
	const spanSel = "toUInt8(1) AS Kind, Timestamp, TraceId, toInt32(0) AS Severity, toString(StatusCode) AS Status"
	switch {
	case s.layout.has(schema.TableErrors):
		add(schema.TableErrors, "Kind, Timestamp, TraceId, toInt32(SeverityNumber) AS Severity, toString(StatusCode) AS Status", "", false)
	default:
		if s.layout.has(schema.TableLogs) {
			add(schema.TableLogs, logSel, logAlertCond, s.layout.hasCol(schema.TableLogs, "TimestampTime"))
		}
		if s.layout.has(schema.TableTraces) {
			add(schema.TableTraces, spanSel, spanAlertCond, false)
		}
	}
	if len(sqls) == 0 {
		return "", nil
	}
	return "SELECT DISTINCT TraceId FROM (SELECT * FROM (" + strings.Join(sqls, " UNION ALL ") +
		fmt.Sprintf(") ORDER BY Timestamp DESC, Kind DESC LIMIT %d) WHERE TraceId != '' AND ", limit) + isErrorCond, args
}
