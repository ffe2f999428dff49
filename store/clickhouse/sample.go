package clickhouse

import (
	"context"
	"fmt"
	"iter"
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
// failing is not asked.
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
	for i := range parts {
		alert := logAlertCond
		if srcs[i].table != schema.TableLogs {
			alert = spanAlertCond
		}
		parts[i] = and(parts[i], "(TraceId = '' OR "+alert+" OR "+in+")", args...)
	}
	what := fmt.Sprintf("window %s..%s, 1 in %d traces", q.From.UTC().Format("2006-01-02T15:04:05Z"), q.To.UTC().Format("2006-01-02T15:04:05Z"), k)
	return backend.SampleUpTo(s.queryOrdered(ctx, what, parts, limit+1, false), limit, "cannot read the "+what)
}

// ReadsOnServer reports that the store's reads run on its server, the
// process waiting for their rows: the analysis does not read a window's
// baseline beside it early then (rootcause's earlyBase).
func (s *Store) ReadsOnServer() bool { return true }
