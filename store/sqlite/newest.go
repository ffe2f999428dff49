package sqlite

import (
	"context"
	"errors"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// A window read with WindowQuery.Newest keeps the newest records of a
// window that holds more than its limit: the records of an incident are
// at the window's end. The blocks' index tells, without reading them, at
// most how many records the window holds (every record of every block
// that overlaps it); under the limit the read streams as any other. Over
// it, the window's records are merged in order as usual, but only the
// last limit of them are kept (encoded, as slices of their blocks) and
// decoded once the merge is done.

// mayExceed reports whether the window may hold more than limit records;
// true when the index cannot tell.
func (db *DB) mayExceed(ctx context.Context, q schema.WindowQuery, from, to int64, limit int) bool {
	r, err := db.reader()
	if err != nil {
		return true
	}
	args := []any{to, from}
	if q.Service != "" {
		args = append(args, servicesKey(q.Service))
	}
	var n int64
	if err := r.QueryRowContext(ctx, `SELECT coalesce(sum(b.n), 0) FROM blocks b WHERE `+windowBlocksWhere(q), args...).Scan(&n); err != nil {
		return true
	}
	return n > int64(limit)
}

// mergeNewest is mergeBlocks yielding the last limit records of the
// merged stream, in order, rather than the first.
func mergeNewest(ch <-chan windowChunk, service string, keep *attrFilter, limit int, skip *backend.Skipped, yield func(schema.Record, error) bool) error {
	var ring []string // the last limit records; ring[head] is the oldest once full
	head := 0
	err := mergeEntries(ch, service, func(rec string) bool {
		if len(ring) < limit {
			ring = append(ring, rec)
			return true
		}
		ring[head] = rec
		if head++; head == limit {
			head = 0
		}
		return true
	})
	if err != nil {
		return err
	}
	for i := range ring {
		j := (head + i) % len(ring)
		rec := ring[j]
		ring[j] = "" // its block may go once its records are decoded
		var r schema.Record
		if err := decodeRecord(rec, &r, keep); err != nil {
			if skip != nil && errors.Is(err, backend.ErrCorrupt) {
				skip.Add(0, 1, errCorrupt)
				continue
			}
			return err
		}
		if !yield(r, nil) {
			return nil
		}
	}
	return nil
}
