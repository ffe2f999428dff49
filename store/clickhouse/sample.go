package clickhouse

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// # A window's traces sampled on the server
//
// A window of millions of records is mostly healthy traces, of which the
// analysis learns from a sample (rootcause's sample.go). Read whole, every
// one of them would cross the wire, be decoded and be passed over; here
// the server draws the sample, by the same hash of the trace id as the
// process would (schema.TraceHash is XXH64 with seed 0, ClickHouse's
// xxHash64), and sends only the records of the traces in it, with every
// alert record and every record without a trace, which the analysis
// counts whole. WindowSize tells the analysis how large the window is
// before it asks, so that it can choose the sample.

// WindowSize counts the records of [from, to) and, approximately
// (ClickHouse's uniq), their traces.
func (s *Store) WindowSize(ctx context.Context, from, to time.Time) (records, traces int, err error) {
	if err := s.check(); err != nil {
		return 0, 0, fmt.Errorf("cannot count the window: %w", err)
	}
	if !from.Before(to) {
		return 0, 0, nil
	}
	union, args := s.columnOf("TraceId", from, to)
	if union == "" {
		return 0, 0, nil
	}
	q := "SELECT count(), uniqIf(TraceId, TraceId != '') FROM (" + union + ")"
	t0 := time.Now()
	var n, u uint64
	err = s.conn.QueryRow(ctx, q, args...).Scan(&n, &u)
	s.log.Debug("query", "took", time.Since(t0), "sql", q)
	if err != nil {
		return 0, 0, fmt.Errorf("cannot count the window: %w", err)
	}
	return int(n), int(u), nil
}

// SampledRecords is WindowRecords(q) less the records of the traces out
// of a sample: it yields every alert record (schema.Record.IsAlert) and
// every record without a trace id, and the others only of the traces
// whose schema.TraceHash is 0 modulo k, or, for the failing traces
// (those FailingTraces names with q's window and limit), modulo failK.
// k and failK are powers of two (1 takes every trace). q.ErrorsOnly is
// not sampled: it reads the alert records alone already. The failing
// traces are selected on the server, by the query FailingTraces runs:
// failing is not asked. With q.Group, the errors of the traces out of
// the sample come grouped, one row per group alike (groupAlike), each
// the group's first record with its size (schema.Record.Count).
//
// The sample is read oldest first whether or not q asks for the newest
// records, as the embedded store reads it: a sample of more records than
// the read's limit ends, after the limit's records, with an error that
// wraps schema.ErrSampleOverLimit, and the analysis reads the window again
// sampled by the process, newest first. The newest records under a limit
// took the server a second sort of the whole sample (descending, then
// back), 0.8 of the 9.2 s the 10M-record window's sample took it.
func (s *Store) SampledRecords(ctx context.Context, q schema.WindowQuery, k, failK uint64, _ func(schema.TraceID) bool) iter.Seq2[schema.Record, error] {
	if q.ErrorsOnly || k <= 1 {
		return s.WindowRecords(ctx, q)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = s.opts.WindowLimit
	}
	if !q.From.Before(q.To) {
		return func(func(schema.Record, error) bool) {}
	}
	in := fmt.Sprintf("xxHash64(TraceId) %% %d = 0", k)
	var args []any
	if failK < k {
		// A failing trace out of the healthy traces' sample but in the
		// failing ones' (failK divides k: what k takes, failK does).
		failing, fargs := s.failingSQL(q.From, q.To, limit)
		if failing != "" {
			in = fmt.Sprintf("(%s OR xxHash64(TraceId) %% %d = 0 AND TraceId IN (%s))", in, max(failK, 1), failing)
			args = fargs
		}
	}
	parts := s.windowParts(q)
	srcs := s.recordSources()
	what := fmt.Sprintf("window %s..%s, 1 in %d traces", q.From.UTC().Format("2006-01-02T15:04:05Z"), q.To.UTC().Format("2006-01-02T15:04:05Z"), k)
	if g := q.Group; g != nil && g.Slot > 0 {
		var grouped []part
		for i := range parts {
			alert, failed := logAlertCond, logErrorCond
			if srcs[i].table != schema.TableLogs {
				alert, failed = spanAlertCond, spanErrorCond
			}
			one := and(parts[i], "(TraceId = '' OR "+alert+" AND NOT "+failed+" OR "+in+")", args...)
			grouped = append(grouped,
				part{sql: "SELECT *, toUInt64(1) AS N FROM (" + one.sql + ")", args: one.args},
				groupAlike(and(parts[i], "TraceId != '' AND "+failed+" AND NOT ("+in+")", args...), *g, q.From, q.To))
		}
		return backend.SampleUpTo(s.queryCols(ctx, what, grouped, limit+1, false, wireColsN), limit, "cannot read the "+what)
	}
	for i := range parts {
		alert := logAlertCond
		if srcs[i].table != schema.TableLogs {
			alert = spanAlertCond
		}
		parts[i] = and(parts[i], "(TraceId = '' OR "+alert+" OR "+in+")", args...)
	}
	return backend.SampleUpTo(s.queryOrdered(ctx, what, parts, limit+1, false), limit, "cannot read the "+what)
}

// groupAlike groups the records of p (a part of the common layout) that
// are alike as schema.WindowQuery.Group says: one row per group, the
// fields of its first record in the read's order (rowOrder), the group's
// size as N. Alike are records of the same kind, service, severity,
// operation, status and attributes, with the same body when no template
// was stored (the template is then the body's) or the body is empty (the
// exception event's message is then the body), in the same slot of Unix
// time and the same of g.Parts equal parts of [from, to), as the analysis
// buckets them (rootcause's serviceProfile.bucket, the same arithmetic in
// float64). A group's time is its first record's: the slot and the part
// are the same for all of them.
func groupAlike(p part, g schema.RecordGroups, from, to time.Time) part {
	keys := []string{"Kind", "Service", "Severity", "SevText", "Name", "Status", "AttrsText", "HasTemplate", "Template", "Signature",
		"if(HasTemplate AND Body != '', '', Body)", "if(Body = '', EvNames, [])", "if(Body = '', EvAttrs, [])",
		"intDiv(toUnixTimestamp64Nano(Timestamp), ?)"}
	args := append(slices.Clip(p.args), g.Slot.Nanoseconds())
	if g.Parts > 0 {
		keys = append(keys, "toInt64(toFloat64(?) * toFloat64(toUnixTimestamp64Nano(Timestamp) - ?) / toFloat64(?))")
		args = append(args, g.Parts, from.UnixNano(), to.Sub(from).Nanoseconds())
	}
	// The aggregates have names of their own: ClickHouse puts an alias in
	// place of the column it names wherever the column is read. The
	// columns are those of a source (mergedAttrs), in its order, the map
	// left empty: only what is sent is read of it (wireCols).
	inner := "SELECT Kind, min(Timestamp) AS First, " +
		"argMin((TraceId, SpanId, ParentSpanId, Body, Dur), (Timestamp, TraceId, SpanId, Body)) AS Rep, " +
		"Service, Severity, SevText, Name, Status, AttrsText, HasTemplate, Template, Signature, " +
		"any(EvNames) AS EvN, any(EvAttrs) AS EvA, count() AS Alike " +
		"FROM (" + p.sql + ") GROUP BY " + strings.Join(keys, ", ")
	return part{sql: "SELECT Kind, First AS Timestamp, Rep.1 AS TraceId, Rep.2 AS SpanId, Rep.3 AS ParentSpanId, " +
		"Service, Severity, SevText, Rep.4 AS Body, Name, Rep.5 AS Dur, Status, CAST(map(), " + mapSS + ") AS Attrs, " +
		"AttrsText, HasTemplate, Template, Signature, EvN AS EvNames, EvA AS EvAttrs, toUInt64(Alike) AS N FROM (" + inner + ")", args: args}
}

// ReadsOnServer reports that the store's reads run on its server, the
// process waiting for their rows: the analysis does not read a window's
// baseline beside it early then (rootcause's earlyBase).
func (s *Store) ReadsOnServer() bool { return true }
