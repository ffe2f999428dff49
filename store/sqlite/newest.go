package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// A window read with WindowQuery.Newest keeps the newest records of a
// window that holds more than its limit: the records of an incident are
// at the window's end. The blocks' index tells, without reading them, at
// most how many records the window holds (every record of every block
// that overlaps it); under the limit the read streams as any other. Over
// it, the window's records are counted first (windowCount: by the index
// for a block inside the window, by decoding the blocks across its edges
// or, for a service's read, every block), and the read streams as any
// other but for the count's oldest records over the limit, which the merge
// passes over without decoding them; the blocks that hold none but those
// are not read at all (windowCount). The merge's order is the same in both
// passes, so what is left out is exactly the oldest, and nothing is held
// but the blocks being merged: keeping the last limit records instead, as
// views of their blocks, held every block of them (4 GB for a limit of 5M).

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

// newestCut is what a read of a window's newest records passes over:
// drop records, in the merge's order, of the blocks that end at from or
// later; the blocks that end before from hold none but records it would
// pass over, and are not read.
type newestCut struct {
	drop, from int64
}

// windowCount counts the records a read of q's [from, to) merges (a
// block inside the window by its count in the index, unless the read is
// of one service; any other block by decoding it; a block that cannot be
// decoded counts none, as the read skips it) and returns what a read of
// its newest limit passes over.
//
// The oldest records over the limit need not all be merged to be passed
// over: the records before a time t number at most the records of the
// blocks that begin before t, so while those are no more than the records
// to pass over, every record before t is passed over, and a block that
// ends before t holds none but such records. t is the latest such time,
// the first time of a block (in order of their first times) before which
// the blocks hold no more than the surplus.
func (db *DB) windowCount(ctx context.Context, q schema.WindowQuery, from, to int64, limit int) (newestCut, error) {
	r, err := db.reader()
	if err != nil {
		return newestCut{}, err
	}
	args := []any{to, from}
	if q.Service != "" {
		args = append(args, servicesKey(q.Service))
	}
	rows, err := r.QueryContext(ctx, `SELECT b.id, b.min_ts, b.max_ts, b.n FROM blocks b WHERE `+windowBlocksWhere(q)+` ORDER BY b.min_ts`, args...)
	if err != nil {
		return newestCut{}, err
	}
	type counted struct{ id, lo, hi, n int64 }
	var blocks []counted
	for rows.Next() {
		var b counted
		if err := rows.Scan(&b.id, &b.lo, &b.hi, &b.n); err != nil {
			rows.Close()
			return newestCut{}, err
		}
		if q.Service != "" || b.lo < from || b.hi >= to {
			b.n = -1 // to decode
		}
		blocks = append(blocks, b)
	}
	if err := cmp.Or(rows.Err(), rows.Close()); err != nil {
		return newestCut{}, err
	}
	var total int64
	for i := range blocks {
		b := &blocks[i]
		if b.n < 0 {
			if b.n, err = db.countBlock(ctx, r, b.id, q.Service, from, to); err != nil {
				return newestCut{}, err
			}
		}
		total += b.n
	}
	cut := newestCut{drop: max(total-int64(limit), 0), from: from}
	before := int64(0) // records of the blocks that begin before blocks[i]
	for i, b := range blocks {
		if before+b.n > cut.drop {
			cut.from = max(from, blocks[i].lo)
			break
		}
		before += b.n
	}
	for _, b := range blocks {
		if b.hi < cut.from {
			cut.drop -= b.n
		}
	}
	return cut, nil
}

// countBlock counts the records of block id in [from, to), of service
// when set; a block that cannot be decoded (or is gone) counts none.
func (db *DB) countBlock(ctx context.Context, r *sql.DB, id int64, service string, from, to int64) (int64, error) {
	var data []byte
	if err := r.QueryRowContext(ctx, `SELECT data FROM block_data WHERE id = ?`, id).Scan(&data); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		return 0, err
	}
	entries, err := db.zstd.decodeBlock(data)
	if err != nil {
		if errors.Is(err, backend.ErrCorrupt) {
			return 0, nil
		}
		return 0, err
	}
	lo, _ := slices.BinarySearchFunc(entries, from, func(e entry, t int64) int { return cmp.Compare(e.ts, t) })
	hi, _ := slices.BinarySearchFunc(entries, to, func(e entry, t int64) int { return cmp.Compare(e.ts, t) })
	if service == "" {
		return int64(hi - lo), nil
	}
	n := int64(0)
	for _, e := range entries[lo:hi] {
		if recService(e.rec) == service {
			n++
		}
	}
	return n, nil
}
