package clickhouse

import (
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/faultline/faultline/schema"
)

// # Rows decoded ahead
//
// A read's rows are scanned and made records (row.record: the driver's
// columns, the attribute maps, the templates) on a goroutine of their own,
// a few batches ahead of the caller that learns from them: a window's
// sample of a million and a half rows took the process about as long to
// decode as to learn from, one after the other on one core while the
// server, its answer sent, waited (docs/analysis-bench-clickhouse.md).
// The records reach the caller in the order the server sent them.

const (
	// aheadBatch is how many records a batch carries; aheadBatches is how
	// many batches the decoding goroutine may be ahead of the caller.
	aheadBatch   = 512
	aheadBatches = 4
)

// decodedBatch is a run of records, or the read's end: an error, or a
// panic of the decoding goroutine to raise again on the caller's.
type decodedBatch struct {
	recs  []schema.Record
	err   error
	panic any
}

// decodeAhead yields the records of rows, decoded on another goroutine,
// until rows end, a row fails, or yield returns false. It closes rows, and
// returns only when that goroutine has ended.
func decodeAhead(rows driver.Rows, what string, yield func(schema.Record, error) bool) {
	out := make(chan decodedBatch, aheadBatches)
	free := make(chan []schema.Record, aheadBatches+2)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		defer rows.Close()
		send := func(b decodedBatch) bool {
			select {
			case out <- b:
				return true
			case <-stop:
				return false
			}
		}
		defer func() {
			if p := recover(); p != nil {
				send(decodedBatch{panic: p})
			}
		}()
		var w row
		var sets attrSets
		counted := len(rows.Columns()) > len(w.dest(false)) // wireColsN
		batch := make([]schema.Record, 0, aheadBatch)
		for rows.Next() {
			if err := rows.Scan(w.dest(counted)...); err != nil {
				send(decodedBatch{recs: batch, err: fmt.Errorf("cannot read %s: %w", what, err)})
				return
			}
			r, err := w.record(&sets)
			if err != nil {
				send(decodedBatch{recs: batch, err: fmt.Errorf("cannot read %s: %w", what, err)})
				return
			}
			w = row{}
			if batch = append(batch, r); len(batch) < aheadBatch {
				continue
			}
			if !send(decodedBatch{recs: batch}) {
				return
			}
			select {
			case batch = <-free:
			default:
				batch = make([]schema.Record, 0, aheadBatch)
			}
		}
		if err := rows.Err(); err != nil {
			send(decodedBatch{recs: batch, err: fmt.Errorf("cannot read %s: %w", what, err)})
			return
		}
		if len(batch) > 0 {
			send(decodedBatch{recs: batch})
		}
	}()
	defer func() {
		close(stop)
		for range out { // let the goroutine's last send go and end it
		}
		<-done
	}()
	for b := range out {
		if b.panic != nil {
			panic(b.panic)
		}
		for i := range b.recs {
			if !yield(b.recs[i], nil) {
				return
			}
		}
		if b.err != nil {
			yield(schema.Record{}, b.err)
			return
		}
		clear(b.recs)
		select {
		case free <- b.recs[:0]:
		default:
		}
	}
}
