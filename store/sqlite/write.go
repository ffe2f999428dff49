package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/faultline/faultline/schema"
)

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
	if _, err := db.writer(); err != nil {
		return err
	}
	// Encoding and compression happen here, in the caller's goroutine and
	// before the transaction: concurrent batches compress in parallel, and
	// a bad record refuses the batch without touching the file.
	blocks, err := db.zstd.buildBlocks(recs)
	if err != nil {
		return err
	}
	return db.group.write(ctx, &writeReq{blocks: blocks, n: len(recs)})
}

// insertBlocks inserts the blocks of one batch, numbering them from
// *next (the first one's id is the batch's bseq).
func insertBlocks(ctx context.Context, st *blockStmts, next *int64, blocks []*block) error {
	bseq := *next
	for _, b := range blocks {
		id := *next
		*next++
		if _, err := st.meta.ExecContext(ctx, id, bseq, b.minTS, b.maxTS, b.firstTS, b.alert, b.n, b.services); err != nil {
			return err
		}
		if _, err := st.data.ExecContext(ctx, id, b.data); err != nil {
			return err
		}
		if err := st.insertTraces(ctx, id, b.traces); err != nil {
			return err
		}
	}
	return nil
}

// tracesPerInsert is how many block_traces rows one INSERT takes.
const tracesPerInsert = 128

// blockStmts are the statements that insert blocks, prepared once per
// transaction.
type blockStmts struct {
	tx               *sql.Tx
	meta, data, many *sql.Stmt
	args             []any
}

func prepareBlockStmts(ctx context.Context, tx *sql.Tx) (*blockStmts, error) {
	st := &blockStmts{tx: tx}
	var err error
	if st.meta, err = tx.PrepareContext(ctx, `INSERT INTO blocks (id, bseq, min_ts, max_ts, first_ts, alert, n, services) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`); err != nil {
		return nil, err
	}
	if st.data, err = tx.PrepareContext(ctx, `INSERT INTO block_data (id, data) VALUES (?, ?)`); err != nil {
		return nil, errors.Join(err, st.close())
	}
	if st.many, err = tx.PrepareContext(ctx, tracesInsertSQL(tracesPerInsert)); err != nil {
		return nil, errors.Join(err, st.close())
	}
	return st, nil
}

func tracesInsertSQL(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO block_traces (trace, block) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?)")
	}
	return b.String()
}

func (st *blockStmts) insertTraces(ctx context.Context, id int64, traces []int64) error {
	for len(traces) > 0 {
		k := min(len(traces), tracesPerInsert)
		st.args = st.args[:0]
		for _, t := range traces[:k] {
			st.args = append(st.args, t, id)
		}
		var err error
		if k == tracesPerInsert {
			_, err = st.many.ExecContext(ctx, st.args...)
		} else {
			_, err = st.tx.ExecContext(ctx, tracesInsertSQL(k), st.args...)
		}
		if err != nil {
			return err
		}
		traces = traces[k:]
	}
	return nil
}

func (st *blockStmts) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{st.meta, st.data, st.many} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// beginBlocks prepares a transaction's block statements and finds the id
// after the highest block's: ids, and so bseq, grow with insertion.
func beginBlocks(ctx context.Context, tx *sql.Tx) (*blockStmts, int64, error) {
	st, err := prepareBlockStmts(ctx, tx)
	if err != nil {
		return nil, 0, err
	}
	var id int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM blocks`).Scan(&id); err != nil {
		return nil, 0, errors.Join(err, st.close())
	}
	return st, id, nil
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
