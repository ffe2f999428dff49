package clickhouse

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// traceSlack widens the time range the lookup tables give for a trace:
// they keep whole seconds, and a record may become visible a moment before
// its lookup row (the materialized view commits after the table).
const traceSlack = time.Minute

// TraceRecords yields the records of trace id, ordered by time, at most
// limit (<= 0: Options.TraceLimit). It narrows the scan to the trace's
// time range from the lookup tables when they know the trace, and relies
// on the TraceId bloom filter indexes otherwise.
func (s *Store) TraceRecords(ctx context.Context, id schema.TraceID, limit int) iter.Seq2[schema.Record, error] {
	if limit <= 0 {
		limit = s.opts.TraceLimit
	}
	what := fmt.Sprintf("trace %q", truncate(string(id), 40))
	if id == "" {
		return func(func(schema.Record, error) bool) {}
	}
	return func(yield func(schema.Record, error) bool) {
		from, to, ok, err := s.traceRange(ctx, id)
		if err != nil {
			yield(schema.Record{}, fmt.Errorf("cannot read %s: %w", what, err))
			return
		}
		var parts []part
		for _, src := range s.recordSources() {
			p := s.selectFrom(src, "TraceId = ?", string(id))
			if ok {
				t := timeCond(src, from.Add(-traceSlack), to.Add(traceSlack), true)
				p = and(p, t.sql, t.args...)
			}
			parts = append(parts, p)
		}
		s.query(ctx, what, parts, limit)(yield)
	}
}

// recordSources are the tables that hold records.
func (s *Store) recordSources() []source {
	var out []source
	if s.layout.has(schema.TableLogs) {
		out = append(out, s.logSource())
	}
	if s.layout.has(schema.TableTraces) {
		out = append(out, s.spanSource())
	}
	return out
}

// traceRange asks the trace id → time range tables for id; ok is false
// when none knows it.
func (s *Store) traceRange(ctx context.Context, id schema.TraceID) (from, to time.Time, ok bool, err error) {
	var subs []string
	var args []any
	for _, t := range []string{schema.TableTraceIDTs, schema.TableLogTraceIDTs} {
		if s.layout.has(t) {
			subs = append(subs, "SELECT Start, End FROM "+s.table(t)+" WHERE TraceId = ?")
			args = append(args, string(id))
		}
	}
	if len(subs) == 0 {
		return from, to, false, nil
	}
	q := "SELECT count(), toInt64(toUnixTimestamp(min(Start))), toInt64(toUnixTimestamp(max(End))) FROM (" + strings.Join(subs, " UNION ALL ") + ")"
	var n uint64
	var lo, hi int64
	if err := s.conn.QueryRow(ctx, q, args...).Scan(&n, &lo, &hi); err != nil {
		return from, to, false, err
	}
	if n == 0 {
		return from, to, false, nil
	}
	return time.Unix(lo, 0), time.Unix(hi+1, 0), true, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
