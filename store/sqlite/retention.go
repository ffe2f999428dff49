package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
)

// deleteChunk bounds one retention transaction, in blocks, so the writer
// holds the lock briefly and readers' WAL stays small.
const deleteChunk = 16

// DeleteBefore removes the records whose Time is before t (retention) and
// reports how many. It deletes in short transactions of deleteChunk
// blocks, so a concurrent writer waits at most one chunk; on error the
// chunks already deleted stay deleted and their count is returned. A block
// wholly before t is dropped; one that straddles t is rewritten with the
// records it keeps. Freed pages are reused by later writes; the file does
// not shrink. A zero t deletes nothing; records with a zero Time go with
// any other t.
func (db *DB) DeleteBefore(ctx context.Context, t time.Time) (int64, error) {
	n, err := db.deleteBefore(ctx, t)
	if err != nil {
		return n, fmt.Errorf("cannot delete records before %s: %w", t.Format(time.RFC3339), explain(err))
	}
	db.log.Debug("retention", "before", t, "deleted", n)
	return n, nil
}

func (db *DB) deleteBefore(ctx context.Context, t time.Time) (int64, error) {
	w, err := db.writer()
	if err != nil {
		return 0, err
	}
	if t.IsZero() {
		return 0, nil
	}
	cut := clampNanos(t)
	var total int64
	for {
		n, more, err := db.deleteOneChunk(ctx, w, cut)
		total += n
		if err != nil || !more {
			return total, err
		}
	}
}

// deleteOneChunk deletes the records before cut from up to deleteChunk
// blocks; more reports whether blocks with such records may remain.
func (db *DB) deleteOneChunk(ctx context.Context, w *sql.DB, cut int64) (n int64, more bool, err error) {
	err = inTx(ctx, w, func(tx *sql.Tx) error {
		ids, err := blocksBefore(ctx, tx, cut)
		if err != nil {
			return err
		}
		more = len(ids) == deleteChunk
		for _, id := range ids {
			k, err := db.trimBlock(ctx, tx, id, cut)
			if err != nil {
				return err
			}
			n += k
		}
		_, err = tx.ExecContext(ctx, `UPDATE counters SET value = value - ? WHERE name = 'records'`, n)
		return err
	})
	if err != nil {
		return 0, false, err
	}
	return n, more, nil
}

const blocksBeforeSQL = `SELECT id FROM blocks WHERE min_ts < ? ORDER BY min_ts LIMIT ?`

func blocksBefore(ctx context.Context, tx *sql.Tx, cut int64) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, blocksBeforeSQL, cut, deleteChunk)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// trimBlock deletes block id's records before cut, and the block when
// none is left; it returns how many it deleted.
func (db *DB) trimBlock(ctx context.Context, tx *sql.Tx, id, cut int64) (int64, error) {
	var data []byte
	if err := tx.QueryRowContext(ctx, `SELECT data FROM block_data WHERE id = ?`, id).Scan(&data); err != nil {
		return 0, err
	}
	entries, err := db.zstd.decodeBlock(data)
	if err != nil {
		return 0, err
	}
	keep, old := make([]encoded, 0, len(entries)), map[int64]bool{}
	for _, e := range entries { // only the fields the index needs are read
		trace := recTrace(e.rec)
		if trace != "" {
			old[traceKey8(schema.TraceID(trace))] = true
		}
		if e.ts >= cut {
			keep = append(keep, encoded{ts: e.ts, idx: int(e.idx), rec: []byte(e.rec), service: recService(e.rec), trace: trace})
		}
	}
	gone := int64(len(entries) - len(keep))
	if len(keep) == 0 {
		for _, q := range []string{`DELETE FROM blocks WHERE id = ?`, `DELETE FROM block_data WHERE id = ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return 0, err
			}
		}
		return gone, deleteTraces(ctx, tx, id, old, nil)
	}
	var alert int64
	if err := tx.QueryRowContext(ctx, `SELECT alert FROM blocks WHERE id = ?`, id).Scan(&alert); err != nil {
		return 0, err
	}
	for i := range keep {
		keep[i].alert = alert == 1
	}
	b := db.zstd.makeBlock(keep)
	if _, err := tx.ExecContext(ctx, `UPDATE blocks SET min_ts = ?, max_ts = ?, first_ts = ?, n = ?, services = ? WHERE id = ?`,
		b.minTS, b.maxTS, b.firstTS, b.n, b.services, id); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE block_data SET data = ? WHERE id = ?`, b.data, id); err != nil {
		return 0, err
	}
	kept := map[int64]bool{}
	for _, k := range b.traces {
		kept[k] = true
	}
	return gone, deleteTraces(ctx, tx, id, old, kept)
}

// deleteTraces removes block id's trace keys that are in old but not kept.
func deleteTraces(ctx context.Context, tx *sql.Tx, id int64, old, kept map[int64]bool) error {
	for k := range old {
		if kept[k] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM block_traces WHERE trace = ? AND block = ?`, k, id); err != nil {
			return err
		}
	}
	return nil
}
