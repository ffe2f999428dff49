package sqlite

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// # A window's traces sampled as the blocks are read
//
// A window of millions of records is mostly healthy traces, of which the
// analysis learns from a sample (rootcause's sample.go). As ClickHouse's
// server does (store/clickhouse's sample.go), the store draws it: of a
// block of other than alert records it decompresses only the frames that
// may hold traces of the sample (a sharded block's, see block.go) and
// decodes only the records of the traces in the sample (schema.TraceHash
// of the trace id, read from the encoding without decoding the rest, 0
// modulo k), passing over the others; the blocks of alert records are
// read whole. The analysis then
// decodes and learns from about a k-th of the window's healthy records
// rather than from every one, and stands each for k of them.

// traceSample is the sample of a window's traces a read keeps: those whose
// hash is 0 modulo k and, of the failing ones, modulo failK.
type traceSample struct {
	k, failK uint64
	failing  func(schema.TraceID) bool
}

// keeps reports whether an encoded record is of a trace in the sample, or
// of none (a record whose trace cannot be read is kept: its decoding then
// reports it).
func (s *traceSample) keeps(rec string) bool {
	id := schema.TraceID(recTrace(rec))
	if id == "" {
		return true
	}
	h := schema.TraceHash(id)
	if h%s.k == 0 {
		return true
	}
	return s.failK < s.k && h%s.failK == 0 && s.failing != nil && s.failing(id)
}

// wantsShard reports whether the frame shard of a block sharded n ways
// (shardOf) may hold records of the sample: the records without a trace,
// and those of the traces whose hash is 0 modulo the least of k and failK
// (powers of two, as n is: what is 0 modulo it is in the frames whose
// shard less one is 0 modulo the lesser of it and n).
func (s *traceSample) wantsShard(shard, n int) bool {
	if shard == 0 {
		return true
	}
	m := s.k
	if s.failK < s.k && s.failing != nil {
		m = s.failK
	}
	if m == 0 || m&(m-1) != 0 {
		return true // not a power of two: any frame may
	}
	return uint64(shard-1)%min(m, uint64(n)) == 0
}

// filter keeps the entries of the records in the sample, in place.
func (s *traceSample) filter(entries []entry) []entry {
	out := entries[:0]
	for _, e := range entries {
		if s.keeps(e.rec) {
			out = append(out, e)
		}
	}
	return out
}

// WindowSize counts the records of [from, to) (the blocks inside it by
// the index, those across its ends by decoding them). Their traces are
// not counted (0): the index's distinct trace keys of ten million records
// take seconds to count, and the analysis estimates them from the sample.
// A file of the first layout, read as it is, counts none: the analysis
// then samples as the records stream.
func (db *DB) WindowSize(ctx context.Context, from, to time.Time) (records, traces int, err error) {
	f, t := clampNanos(from), clampNanos(to)
	if f >= t || db.isLegacy(ctx) {
		return 0, 0, nil
	}
	// What a read of none of the window's records would pass over: all.
	c, err := db.windowCount(ctx, schema.WindowQuery{}, f, t, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("cannot count the window: %w", explain(err))
	}
	return int(c.drop), 0, nil
}

// SampledRecords is WindowRecords(q) less the records of the traces out
// of a sample: it yields every alert record (schema.Record.IsAlert) and
// every record without a trace id, and the others only of the traces
// whose schema.TraceHash is 0 modulo k, or, for the failing traces
// (failing), modulo failK; k and failK are powers of two. The sample is
// read oldest first whether or not q asks for the newest records: a read
// whose sample holds more than its limit ends, after the limit's records,
// with an error that wraps schema.ErrSampleOverLimit, and the analysis
// reads the window again unsampled (counting a window's sample first
// would decompress its blocks twice). q.ErrorsOnly is not sampled: it
// reads the alert records alone already; nor is a file of the first
// layout.
func (db *DB) SampledRecords(ctx context.Context, q schema.WindowQuery, k, failK uint64, failing func(schema.TraceID) bool) iter.Seq2[schema.Record, error] {
	if q.ErrorsOnly || k <= 1 || db.isLegacy(ctx) {
		return db.WindowRecords(ctx, q)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = db.opts.WindowLimit
	}
	what := fmt.Sprintf("cannot read records from %s to %s, 1 in %d traces",
		q.From.Format("2006-01-02T15:04:05.999Z07:00"), q.To.Format("2006-01-02T15:04:05.999Z07:00"), k)
	smp := &traceSample{k: k, failK: max(failK, 1), failing: failing}
	q.Newest = false
	return backend.SampleUpTo(db.windowBlocks(ctx, what, q, clampNanos(q.From), clampNanos(q.To), limit+1, smp), limit, what)
}
