package sqlite

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// Reading blocks. A trace lookup finds the blocks holding the trace in
// block_traces, decompresses them and keeps the trace's records, copied
// out of the block (so a caller that keeps a few records of many traces
// does not keep whole blocks alive), ordered by insertion. A window read
// runs one statement over the blocks overlapping the window in order of
// their first time; a goroutine steps it and decompresses each block while
// the consumer merges the blocks' records (each block is sorted by time)
// with a heap, decodes and yields them: the time of the slower stage, not
// the sum, on a multi-core machine.

// recTrace reads the trace id of an encoded record without decoding the
// rest; "" when unreadable (the full decode then reports it).
func recTrace(rec string) string {
	if len(rec) < 4 {
		return ""
	}
	d := decoder{s: rec[3:]}
	d.varint()
	return d.str()
}

const traceBlocksSQL = `SELECT b.id, b.bseq, b.n, d.data FROM block_traces t
	JOIN blocks b ON b.id = t.block JOIN block_data d ON d.id = t.block
	WHERE t.trace = ?`

type traceHit struct {
	bseq int64
	idx  uint64
	rec  string
}

func (db *DB) traceBlocks(ctx context.Context, what string, id schema.TraceID, limit int) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		hits, err := db.traceHits(ctx, id)
		if err != nil {
			yield(schema.Record{}, fmt.Errorf("%s: %w", what, explain(err)))
			return
		}
		skip := backend.SkippedFrom(ctx)
		sent := 0
		for _, h := range hits {
			if sent == limit {
				return
			}
			var r schema.Record
			if err := decodeRecord(h.rec, &r, nil); err != nil {
				if skip != nil && errors.Is(err, backend.ErrCorrupt) {
					skip.Add(0, 1, errCorrupt)
					continue
				}
				yield(schema.Record{}, fmt.Errorf("%s: %w", what, explain(err)))
				return
			}
			sent++
			if !yield(r, nil) {
				return
			}
		}
	}
}

// traceHits reads the records of trace id, in insertion order. A block
// that cannot be decoded is skipped and counted when ctx carries a
// backend.Skipped, else it fails the read.
func (db *DB) traceHits(ctx context.Context, id schema.TraceID) ([]traceHit, error) {
	skip := backend.SkippedFrom(ctx)
	r, err := db.reader()
	if err != nil {
		return nil, err
	}
	rows, err := r.QueryContext(ctx, traceBlocksSQL, traceKey8(id))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []traceHit
	for rows.Next() {
		var block, bseq, n int64
		var data sql.RawBytes
		if err := rows.Scan(&block, &bseq, &n, &data); err != nil {
			return nil, err
		}
		entries, err := db.zstd.decodeFrames(data, func(shard, n int) bool { return shard == shardOf(id, n) })
		if err != nil {
			if skip != nil && errors.Is(err, backend.ErrCorrupt) {
				db.skipBlock(skip, block, bseq, n, err)
				continue
			}
			return nil, err
		}
		for _, e := range entries {
			if recTrace(e.rec) == string(id) {
				hits = append(hits, traceHit{bseq: bseq, idx: e.idx, rec: strings.Clone(e.rec)})
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(hits, func(a, b traceHit) int {
		return cmp.Or(cmp.Compare(a.bseq, b.bseq), cmp.Compare(a.idx, b.idx))
	})
	return hits, nil
}

// smallRead is the most records a window read may ask for and still not
// decode blocks ahead of its consumer.
const smallRead = 1000

// windowChunk is one block's records in the window, in order.
type windowChunk struct {
	id      int64 // the block's
	bseq    int64
	minTS   int64
	entries []entry
	err     error
}

// windowBlocks yields the records of [from, to) in time order, ties in
// insertion order.
func (db *DB) windowBlocks(ctx context.Context, what string, q schema.WindowQuery, from, to int64, limit int, smp *traceSample) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		if from >= to {
			return
		}
		keep := newAttrFilter(q.Attrs)
		ctx, cancel := context.WithCancel(ctx)
		// A read of a few records (a version at a time, one line of a
		// service) stops after a block or two: decoding scanAhead more
		// ahead of it, which it cancels unread, was most of what the
		// analysis's thousands of such reads cost.
		ahead := scanAhead
		if limit <= smallRead {
			ahead = 0
		}
		// Newest: the oldest records over the limit are passed over, and
		// the blocks that hold none but those are not read (newest.go).
		var drop int64
		blocksFrom := from
		if q.Newest && db.mayExceed(ctx, q, from, to, limit) {
			c, err := db.windowCount(ctx, q, from, to, limit)
			if err != nil {
				cancel()
				yield(schema.Record{}, windowError(what, explain(err)))
				return
			}
			drop, blocksFrom = c.drop, c.from
		}
		ch := make(chan windowChunk, ahead)
		go db.produceBlocks(ctx, q, blocksFrom, from, to, smp, ch)
		defer func() {
			cancel()
			for range ch {
			}
		}()
		if err := mergeBlocks(ch, q.Service, keep, drop, limit, backend.SkippedFrom(ctx), yield); err != nil {
			yield(schema.Record{}, windowError(what, explain(err)))
		}
	}
}

// windowError is a window read's error: a store error's own sentence
// (what is wrong with the file and what to do), which the analysis that
// asked prefixes with the window itself ("cannot read records from A to B:
// cannot read records from A to B: …" otherwise); other errors with what.
func windowError(what string, err error) error {
	var se *storeError
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

func windowBlocksSQL(q schema.WindowQuery) (string, bool) {
	return `SELECT b.id, b.bseq, b.min_ts, b.n, b.alert, d.data FROM blocks b JOIN block_data d ON d.id = b.id WHERE ` + windowBlocksWhere(q) +
		` ORDER BY b.min_ts`, q.Service != ""
}

// windowBlocksWhere selects the blocks a window read reads; its arguments
// are to, from and, with a service, servicesKey(service).
func windowBlocksWhere(q schema.WindowQuery) string {
	where := `b.min_ts < ? AND b.max_ts >= ?`
	if q.ErrorsOnly {
		where += ` AND b.alert = 1`
	}
	if q.Service != "" {
		where += ` AND instr(b.services, ?) > 0`
	}
	return where
}

// produceBlocks sends the window's blocks, decompressed and cut to the
// window, in order of their first time, then any error, and closes ch. A
// block that cannot be decoded is skipped and counted when ctx carries a
// backend.Skipped (the rest of the window is still read), else it is the
// error.
// The blocks read are those that end at blocksFrom or later (from, but for
// a read of the newest records: newest.go).
// With smp, a block of other than alert records gives only the records of
// the traces in the sample (traceSample.keeps), the others passed over
// undecoded.
func (db *DB) produceBlocks(ctx context.Context, q schema.WindowQuery, blocksFrom, from, to int64, smp *traceSample, ch chan<- windowChunk) {
	defer close(ch)
	skip := backend.SkippedFrom(ctx)
	err := func() error {
		r, err := db.reader()
		if err != nil {
			return err
		}
		sqlText, bySvc := windowBlocksSQL(q)
		args := []any{to, blocksFrom}
		if bySvc {
			args = append(args, servicesKey(q.Service))
		}
		rows, err := r.QueryContext(ctx, sqlText, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c windowChunk
			var n int64
			var alert bool
			var data sql.RawBytes
			if err := rows.Scan(&c.id, &c.bseq, &c.minTS, &n, &alert, &data); err != nil {
				return err
			}
			var want func(int, int) bool
			if smp != nil && !alert {
				want = smp.wantsShard
			}
			entries, err := db.zstd.decodeFrames(data, want)
			if err != nil {
				if skip != nil && errors.Is(err, backend.ErrCorrupt) {
					db.skipBlock(skip, c.id, c.bseq, n, err)
					continue
				}
				return err
			}
			lo, _ := slices.BinarySearchFunc(entries, from, func(e entry, t int64) int { return cmp.Compare(e.ts, t) })
			hi, _ := slices.BinarySearchFunc(entries, to, func(e entry, t int64) int { return cmp.Compare(e.ts, t) })
			c.entries = entries[lo:hi]
			if smp != nil && !alert {
				c.entries = smp.filter(c.entries)
			}
			select {
			case ch <- c:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return rows.Err()
	}()
	if err != nil {
		ch <- windowChunk{err: err, minTS: math.MinInt64}
	}
}

// cursor is a block being merged: its records from pos on.
type cursor struct {
	c   windowChunk
	pos int
}

func (c *cursor) head() *entry { return &c.c.entries[c.pos] }

type cursorHeap []*cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	a, b := h[i].head(), h[j].head()
	if a.ts != b.ts {
		return a.ts < b.ts
	}
	if h[i].c.bseq != h[j].c.bseq {
		return h[i].c.bseq < h[j].c.bseq
	}
	return a.idx < b.idx
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeBlocks merges the chunks into one stream in (time, insertion)
// order (mergeEntries), passes over its first drop records without
// decoding them, decodes the others and yields at most limit of them. It returns the error to report. A record that cannot be decoded is
// skipped and counted in skip when not nil, else it is the error.
func mergeBlocks(ch <-chan windowChunk, service string, keep *attrFilter, drop int64, limit int, skip *backend.Skipped, yield func(schema.Record, error) bool) error {
	sent := 0
	var derr error
	err := mergeEntries(ch, service, func(rec string) bool {
		if drop > 0 {
			drop--
			return true
		}
		var r schema.Record
		if err := decodeRecord(rec, &r, keep); err != nil {
			if skip != nil && errors.Is(err, backend.ErrCorrupt) {
				skip.Add(0, 1, errCorrupt)
				return true
			}
			derr = err
			return false
		}
		if !yield(r, nil) {
			return false
		}
		sent++
		return sent < limit
	})
	return cmp.Or(err, derr)
}

// mergeEntries merges the chunks (which arrive in order of their blocks'
// first time) into one stream of encoded records in (time, insertion)
// order, of service when set, until emit returns false: a block joins the
// heap once the smallest record left is not before its first time, as no
// later block can hold an earlier record. It returns a chunk's error.
func mergeEntries(ch <-chan windowChunk, service string, emit func(rec string) bool) error {
	var h cursorHeap
	next, ok := <-ch
	for {
		for ok && (len(h) == 0 || next.minTS <= h[0].head().ts) {
			if next.err != nil {
				return next.err
			}
			if len(next.entries) > 0 {
				heap.Push(&h, &cursor{c: next})
			}
			next, ok = <-ch
		}
		if len(h) == 0 {
			return nil
		}
		c := h[0]
		e := c.head()
		if c.pos++; c.pos == len(c.c.entries) {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
		rec := e.rec
		if service != "" {
			if recService(rec) != service {
				continue
			}
			rec = strings.Clone(rec) // do not keep the block alive for the few records it has of the service
		}
		if !emit(rec) {
			return nil
		}
	}
}

// skipBlock counts block id, of batch bseq and n records, that cannot be
// decoded (once however many reads skip it), and logs it.
func (db *DB) skipBlock(skip *backend.Skipped, id, bseq, n int64, err error) {
	skip.AddBlock(id, n, errCorrupt)
	db.log.Warn("store block cannot be decoded; skipped", "path", db.path, "batch", bseq, "records", n, "error", causeOf(err))
}

// causeOf is what a store error was caused by (a decompressor's words), for logs.
func causeOf(err error) error {
	var se *storeError
	if errors.As(err, &se) && se.cause != nil {
		return se.cause
	}
	return err
}

// recService reads the service of an encoded record; "" when unreadable.
func recService(rec string) string {
	if len(rec) < 4 {
		return ""
	}
	d := decoder{s: rec[3:]}
	d.varint()
	d.str()
	d.str()
	d.str()
	return d.str()
}

// boundsBlocks is Bounds for the block layout.
func boundsBlocks(ctx context.Context, r *sql.DB) (lo, hi sql.NullInt64, err error) {
	if err = r.QueryRowContext(ctx, boundsFirstSQL).Scan(&lo); err != nil || !lo.Valid {
		return lo, hi, err
	}
	err = r.QueryRowContext(ctx, boundsLastSQL).Scan(&hi)
	return lo, hi, err
}

const (
	boundsFirstSQL = `SELECT min(first_ts) FROM blocks WHERE first_ts IS NOT NULL`
	boundsLastSQL  = `SELECT max(max_ts) FROM blocks`
)
