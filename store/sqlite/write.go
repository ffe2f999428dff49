package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
)

const insertSQL = `INSERT INTO records (ts, trace, service, alert, rec) VALUES (?, ?, ?, ?, ?)`

// deleteChunk bounds one retention transaction so the writer holds the
// lock briefly and readers' WAL stays small.
const deleteChunk = 5000

// WriteBatch stores every record of recs or none of them, in one
// transaction (shared with batches written concurrently, see group.go):
// when it returns nil the records are durable (per the Durability option)
// and visible to readers; on error nothing of the batch is. A record whose
// Time cannot be stored (before 1678 or after 2262) refuses the batch with
// backend.ErrBadRecord. Once CheckIntegrity found the file damaged every
// write fails with backend.ErrCorrupt. recs is not retained. An empty
// batch is a no-op.
func (db *DB) WriteBatch(ctx context.Context, recs []schema.Record) error {
	if len(recs) == 0 {
		return nil
	}
	err := explain(db.writeBatch(ctx, recs))
	db.noteWrite(err)
	if err != nil {
		return fmt.Errorf("cannot write a batch of %d records: %w", len(recs), err)
	}
	return nil
}

func (db *DB) writeBatch(ctx context.Context, recs []schema.Record) error {
	if p := db.damaged.Load(); p != nil {
		return *p
	}
	rows, err := encodeBatch(recs)
	if err != nil {
		return err
	}
	if _, err := db.writer(); err != nil {
		return err
	}
	return db.group.write(ctx, rows)
}

// row is one record as the records table's columns.
type row struct {
	ts      int64
	trace   any
	service string
	alert   int64
	rec     []byte
}

// encodeBatch converts all records before the transaction starts, so a
// bad record refuses the batch without touching the file.
func encodeBatch(recs []schema.Record) ([]row, error) {
	rows := make([]row, len(recs))
	buf := make([]byte, 0, 512*len(recs))
	for i := range recs {
		r := &recs[i]
		ts, err := timeToNanos(r.Time)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
		start := len(buf)
		buf = encodeRecord(buf, r, ts)
		rows[i] = row{ts: ts, trace: traceKey(r.TraceID), service: r.Service,
			alert: alertFlag(r), rec: buf[start:len(buf):len(buf)]}
	}
	return rows, nil
}

func insertRows(ctx context.Context, stmt *sql.Stmt, rows []row) error {
	for _, r := range rows {
		if _, err := stmt.ExecContext(ctx, r.ts, r.trace, r.service, r.alert, r.rec); err != nil {
			return err
		}
	}
	return nil
}

// inTx runs f in one IMMEDIATE transaction and commits, or rolls back
// when f or the commit fails.
func inTx(ctx context.Context, w *sql.DB, f func(*sql.Tx) error) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback()))
	}
	return tx.Commit()
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// DeleteBefore removes the records whose Time is before t (retention) and
// reports how many. It deletes in short transactions of deleteChunk
// records, so a concurrent writer waits at most one chunk; on error the
// chunks already deleted stay deleted and their count is returned.
// Freed pages are reused by later writes; the file does not shrink. A
// zero t deletes nothing; records with a zero Time go with any other t.
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
		n, err := deleteOneChunk(ctx, w, cut)
		total += n
		if err != nil || n < deleteChunk {
			return total, err
		}
	}
}

func deleteOneChunk(ctx context.Context, w *sql.DB, cut int64) (int64, error) {
	var n int64
	err := inTx(ctx, w, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE rowid IN
			(SELECT rowid FROM records WHERE ts < ? ORDER BY ts LIMIT ?)`, cut, deleteChunk)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE counters SET value = value - ? WHERE name = 'records'`, n)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
