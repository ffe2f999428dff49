package clickhouse

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/faultline/faultline/schema"
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
// When the failing traces are sampled as the others are (failK >= k),
// the window is read as the embedded store reads it: oldest first,
// whether or not q asks for the newest records, a read whose sample holds
// more than its limit ending, after the limit's records, with an error
// that wraps schema.ErrSampleOverLimit; and in sampleSlices stretches of
// time (slicedRead), so that the server sorts and sends one while the
// analysis reads the one before. Otherwise it is one query, whose limit
// keeps the newest records.
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
	what := fmt.Sprintf("window %s..%s, 1 in %d traces", q.From.UTC().Format("2006-01-02T15:04:05Z"), q.To.UTC().Format("2006-01-02T15:04:05Z"), k)
	in := fmt.Sprintf("xxHash64(TraceId) %% %d = 0", k)
	if failK >= k {
		return s.slicedRead(ctx, what, q.From, q.To, limit, func(from, to time.Time) []part {
			sq := q
			sq.From, sq.To = from, to
			return s.sampleParts(sq, in)
		})
	}
	// A failing trace out of the healthy traces' sample but in the
	// failing ones' (failK divides k: what k takes, failK does).
	var args []any
	failing, fargs := s.failingSQL(q.From, q.To, limit)
	if failing != "" {
		in = fmt.Sprintf("(%s OR xxHash64(TraceId) %% %d = 0 AND TraceId IN (%s))", in, max(failK, 1), failing)
		args = fargs
	}
	return s.queryOrdered(ctx, what, s.sampleParts(q, in, args...), limit, q.Newest)
}

// sampleParts are q's window parts keeping the alert records, the records
// without a trace and those of the traces in (an SQL condition with args).
func (s *Store) sampleParts(q schema.WindowQuery, in string, args ...any) []part {
	parts := s.windowParts(q)
	srcs := s.recordSources()
	for i := range parts {
		alert := logAlertCond
		if srcs[i].table != schema.TableLogs {
			alert = spanAlertCond
		}
		parts[i] = and(parts[i], "(TraceId = '' OR "+alert+" OR "+in+")", args...)
	}
	return parts
}

// sampleSlices is how many stretches of time slicedRead reads a window in.
// On the 10M-record window of docs/analysis-bench-clickhouse.md the server
// took about as long to sort and send the sample as the analysis took to
// read it; read whole, the one waited for the other.
const sampleSlices = 8

// slicedRead yields the records of parts(from, to) in time order, at most
// limit of them and then, if there are more, an error that wraps
// schema.ErrSampleOverLimit. It reads them in sampleSlices stretches of
// [from, to) of equal length, one query each, asking for the next while
// it yields the records of the one before.
func (s *Store) slicedRead(ctx context.Context, what string, from, to time.Time, limit int, parts func(from, to time.Time) []part) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		if err := s.check(); err != nil {
			yield(schema.Record{}, fmt.Errorf("cannot read %s: %w", what, err))
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		slices, step := sampleSlices, to.Sub(from)/sampleSlices
		if step <= 0 {
			slices = 1
		}
		bound := func(i int) time.Time {
			if i >= slices {
				return to
			}
			return from.Add(time.Duration(i) * step)
		}
		// ask starts slice i's query, for at most max rows.
		ask := func(i, max int) <-chan openRows {
			ch := make(chan openRows, 1)
			go func() {
				sqls, args := splitParts(parts(bound(i), bound(i+1)))
				q := unionSQL(sqls, max, false)
				t0 := time.Now()
				rows, err := s.conn.Query(ctx, q, args...)
				s.log.Debug("query", "took", time.Since(t0), "slice", i, "sql", q)
				ch <- openRows{rows, err}
			}()
			return ch
		}
		next, pending := ask(0, limit+1), true
		defer func() {
			cancel()
			if pending { // a query asked for and not read
				if o := <-next; o.err == nil {
					o.rows.Close()
				}
			}
		}()
		var sets attrSets
		sent := 0
		for i := range slices {
			o := <-next
			pending = false
			if o.err != nil {
				yield(schema.Record{}, fmt.Errorf("cannot read %s: %w", what, o.err))
				return
			}
			if i+1 < slices {
				next, pending = ask(i+1, limit+1-sent), true
			}
			if !s.yieldRows(o.rows, what, &sets, limit, &sent, yield) {
				return
			}
		}
	}
}

// yieldRows yields the records of rows, closing them, while *sent stays
// under limit; a row past it ends the read with an error that wraps
// schema.ErrSampleOverLimit. It reports whether the read goes on.
func (s *Store) yieldRows(rows driver.Rows, what string, sets *attrSets, limit int, sent *int, yield func(schema.Record, error) bool) bool {
	defer rows.Close()
	var w row
	for rows.Next() {
		if *sent == limit {
			yield(schema.Record{}, fmt.Errorf("%s: %w", what, schema.ErrSampleOverLimit))
			return false
		}
		if err := rows.Scan(w.dest()...); err != nil {
			yield(schema.Record{}, fmt.Errorf("cannot read %s: %w", what, err))
			return false
		}
		r, err := w.record(sets)
		if err != nil {
			yield(schema.Record{}, fmt.Errorf("cannot read %s: %w", what, err))
			return false
		}
		*sent++
		if !yield(r, nil) {
			return false
		}
		w = row{}
	}
	if err := rows.Err(); err != nil {
		yield(schema.Record{}, fmt.Errorf("cannot read %s: %w", what, err))
		return false
	}
	return true
}

// openRows is a query's answer as slicedRead waits for it.
type openRows struct {
	rows driver.Rows
	err  error
}
