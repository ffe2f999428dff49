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
// limit (<= 0: Options.TraceLimit). One query: a scalar subquery asks the
// trace id → time range tables for the trace's range (all time when they
// do not know it), which prunes partitions and granules, and the TraceId
// bloom filter indexes do the rest.
func (s *Store) TraceRecords(ctx context.Context, id schema.TraceID, limit int) iter.Seq2[schema.Record, error] {
	if limit <= 0 {
		limit = s.opts.TraceLimit
	}
	if id == "" {
		return func(func(schema.Record, error) bool) {}
	}
	rng, rngArgs := s.traceRange(id)
	var parts []part
	for _, src := range s.recordSources() {
		p := s.selectFrom(src, "TraceId = ?", string(id))
		if rng != "" {
			cond := "Timestamp >= rng.1 AND Timestamp <= rng.2"
			if src.hasSec {
				cond += " AND TimestampTime >= toDateTime(rng.1) AND TimestampTime <= toDateTime(rng.2)"
			}
			p = part{sql: "WITH " + rng + " AS rng " + p.sql + " AND " + cond, args: append(append([]any{}, rngArgs...), p.args...)}
		}
		parts = append(parts, p)
	}
	return s.query(ctx, fmt.Sprintf("trace %q", truncate(string(id), 40)), parts, limit)
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

// traceRange is a scalar subquery giving the (from, to) range of trace id
// from the lookup tables, widened by traceSlack, or all representable time
// when none knows the trace; "" when there are no lookup tables.
func (s *Store) traceRange(id schema.TraceID) (string, []any) {
	var subs []string
	var args []any
	for _, t := range []string{schema.TableTraceIDTs, schema.TableLogTraceIDTs} {
		if s.layout.has(t) {
			subs = append(subs, "SELECT Start, End FROM "+s.table(t)+" WHERE TraceId = ?")
			args = append(args, string(id))
		}
	}
	if len(subs) == 0 {
		return "", nil
	}
	slack := int(traceSlack / time.Second)
	return fmt.Sprintf("(SELECT (if(count() = 0, toDateTime64(0, 9, 'UTC'), toDateTime64(min(Start), 9, 'UTC') - toIntervalSecond(%d)), "+
		"if(count() = 0, toDateTime64('2106-01-01 00:00:00', 9, 'UTC'), toDateTime64(max(End), 9, 'UTC') + toIntervalSecond(%d))) FROM (%s))",
		slack, slack+1, strings.Join(subs, " UNION ALL ")), args
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
