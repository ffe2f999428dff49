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
// passes over without decoding them. The merge's order is the same in both
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

// windowCount counts the records a read of q's [from, to) merges: a
// block inside the window by its count in the index (unless the read is
// of one service), any other block by decoding it. A block that cannot be
// decoded counts none, as the read skips it.
func (db *DB) windowCount(ctx context.Context, q schema.WindowQuery, from, to int64) (int64, error) {
	r, err := db.reader()
	if err != nil {
		return 0, err
	}
	args := []any{to, from}
	if q.Service != "" {
		args = append(args, servicesKey(q.Service))
	}
	rows, err := r.QueryContext(ctx, `SELECT b.id, b.min_ts, b.max_ts, b.n FROM blocks b WHERE `+windowBlocksWhere(q), args...)
	if err != nil {
		return 0, err
	}
	var total int64
	var edges []int64 // blocks to decode
	for rows.Next() {
		var id, lo, hi, n int64
		if err := rows.Scan(&id, &lo, &hi, &n); err != nil {
			rows.Close()
			return 0, err
		}
		if q.Service == "" && lo >= from && hi < to {
			total += n
		} else {
			edges = append(edges, id)
		}
	}
	if err := cmp.Or(rows.Err(), rows.Close()); err != nil {
		return 0, err
	}
	for _, id := range edges {
		var data []byte
		if err := r.QueryRowContext(ctx, `SELECT data FROM block_data WHERE id = ?`, id).Scan(&data); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			return 0, err
		}
		entries, err := db.zstd.decodeBlock(data)
		if err != nil {
			if errors.Is(err, backend.ErrCorrupt) {
				continue
			}
			return 0, err
		}
		lo, _ := slices.BinarySearchFunc(entries, from, func(e entry, t int64) int { return cmp.Compare(e.ts, t) })
		hi, _ := slices.BinarySearchFunc(entries, to, func(e entry, t int64) int { return cmp.Compare(e.ts, t) })
		if q.Service == "" {
			total += int64(hi - lo)
			continue
		}
		for _, e := range entries[lo:hi] {
			if recService(e.rec) == q.Service {
				total++
			}
		}
	}
	return total, nil
}
