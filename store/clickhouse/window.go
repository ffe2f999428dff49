package clickhouse

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/faultline/faultline/schema"
)

// WindowRecords yields the records with q.From <= Time < q.To, ordered by
// time, filtered by service and ErrorsOnly, at most q.Limit (0:
// Options.WindowLimit; with q.Newest the newest of them, still in time
// order). ErrorsOnly reads faultline_errors when it exists,
// else the record tables with the alert conditions.
func (s *Store) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	limit := q.Limit
	if limit <= 0 {
		limit = s.opts.WindowLimit
	}
	if !q.From.Before(q.To) {
		return func(func(schema.Record, error) bool) {}
	}
	what := fmt.Sprintf("window %s..%s", q.From.UTC().Format("2006-01-02T15:04:05Z"), q.To.UTC().Format("2006-01-02T15:04:05Z"))
	return s.queryOrdered(ctx, what, s.windowParts(q), limit, q.Newest)
}

// CountRecords counts the records WindowRecords(q) would give were it not
// limited (q.Limit, q.Newest and q.Attrs aside), without sending them: the
// store rules ask it before reading a service's errors they may not hold.
func (s *Store) CountRecords(ctx context.Context, q schema.WindowQuery) (int, error) {
	if err := s.check(); err != nil {
		return 0, fmt.Errorf("cannot count records: %w", err)
	}
	if !q.From.Before(q.To) {
		return 0, nil
	}
	q.Attrs = nil
	sqls, args := splitParts(s.windowParts(q))
	sql := "SELECT count() FROM (" + strings.Join(sqls, " UNION ALL ") + ")"
	t0 := time.Now()
	var n uint64
	err := s.conn.QueryRow(ctx, sql, args...).Scan(&n)
	s.log.Debug("query", "took", time.Since(t0), "sql", sql)
	if err != nil {
		return 0, fmt.Errorf("cannot count records: %w", err)
	}
	return int(n), nil
}

func (s *Store) windowParts(q schema.WindowQuery) []part {
	var srcs []source
	var conds []string
	switch {
	case q.ErrorsOnly && s.layout.has(schema.TableErrors):
		srcs, conds = []source{s.errorSource()}, []string{""}
	default:
		for _, src := range s.recordSources() {
			srcs = append(srcs, src)
			switch {
			case !q.ErrorsOnly:
				conds = append(conds, "")
			case src.table == schema.TableLogs:
				conds = append(conds, logAlertCond)
			default:
				conds = append(conds, spanAlertCond)
			}
		}
	}
	parts := make([]part, len(srcs))
	for i, src := range srcs {
		t := timeCond(src, q.From, q.To, false)
		var p part
		if len(q.Attrs) > 0 {
			sel, args := projectAttrs(src.sel, q.Attrs)
			p = s.selectFrom(source{table: src.table, sel: sel}, t.sql, append(args, t.args...)...)
		} else {
			p = s.selectFrom(src, t.sql, t.args...)
		}
		if q.Service != "" {
			p = and(p, "ServiceName = ?", q.Service)
		}
		if conds[i] != "" {
			p = and(p, conds[i])
		}
		parts[i] = p
	}
	return parts
}

// projectAttrs narrows the attribute map a source selects (Attrs, see
// mergedAttrs) to the keys of WindowQuery.Attrs and faultline's own keys,
// so that the server sends only what the reader asked for. It returns the
// select list and the arguments its placeholders take, in order. Each map
// is narrowed before the two are merged, and the keys are a set (IN), not
// an array searched for each key (has): on the 5M spans of
// docs/analysis-bench-clickhouse.md's window, 2.1 s of the engine's time
// rather than 8.3.
func projectAttrs(sel string, keys []string) (string, []any) {
	end := strings.Index(sel, ") AS Attrs")
	start := strings.LastIndex(sel[:max(end, 0)], "mapUpdate(")
	if end < 0 || start < 0 {
		return sel, nil
	}
	keep := "(k, v) -> startsWith(k, '" + extraPrefix + "') OR k IN ?"
	set := make([]any, len(keys)) // a tuple of them, as IN takes on every version
	for i, k := range keys {
		set[i] = k
	}
	expr, args := sel[start:end+1], []any(nil)
	var b strings.Builder
	for {
		i := strings.Index(expr, "CAST(")
		j := strings.Index(expr[max(i, 0):], ", ")
		if i < 0 || j < 0 {
			break
		}
		col := expr[i+len("CAST(") : i+j]
		b.WriteString(expr[:i] + "CAST(mapFilter(" + keep + ", " + col + "), ")
		expr, args = expr[i+j+len(", "):], append(args, clickhouse.GroupSet{Value: set})
	}
	b.WriteString(expr)
	return sel[:start] + b.String() + sel[end+1:], args
}

// FirstTime is the time of the first record of [from, to), ok false when
// it holds none: min(Timestamp), which reads that column alone, where
// WindowRecords with a limit of 1 sorts every column of the stretch.
func (s *Store) FirstTime(ctx context.Context, from, to time.Time) (at time.Time, ok bool, err error) {
	if err := s.check(); err != nil {
		return time.Time{}, false, fmt.Errorf("cannot read the first record: %w", err)
	}
	union, args := s.columnOf("Timestamp", from, to)
	if union == "" || !from.Before(to) {
		return time.Time{}, false, nil
	}
	q := "SELECT min(Timestamp), count() FROM (" + union + ")"
	t0 := time.Now()
	var n uint64
	err = s.conn.QueryRow(ctx, q, args...).Scan(&at, &n)
	s.log.Debug("query", "took", time.Since(t0), "sql", q)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("cannot read the first record: %w", err)
	}
	return at.UTC(), n > 0, nil
}

// columnOf is a UNION ALL of col of every record table's rows in [from,
// to), with its arguments; "" when the store has no record table.
func (s *Store) columnOf(col string, from, to time.Time) (string, []any) {
	var sqls []string
	var args []any
	for _, src := range s.recordSources() {
		t := timeCond(src, from, to, false)
		sqls, args = append(sqls, "SELECT "+col+" FROM "+s.table(src.table)+" WHERE "+t.sql), append(args, t.args...)
	}
	return strings.Join(sqls, " UNION ALL "), args
}
