package sqlite

import (
	"context"
	"database/sql"

	"github.com/faultline/faultline/schema"
)

// Files of schema version 1 keep each record in a row of the records
// table. A writer's open moves them into blocks (moveRecords, in the
// migration's transaction, so the move is all or nothing and readers see
// either layout whole); a reader, which cannot migrate, reads such a file
// as it is (read.go's statements, scan.go).

// isLegacy reports whether db reads the layout of version 1. A reader
// opened on such a file checks the version before each read, and reads
// blocks once a writer (ingest, upgraded) has migrated the file under it.
func (db *DB) isLegacy(ctx context.Context) bool {
	if !db.legacy.Load() {
		return false
	}
	if r, err := db.reader(); err == nil {
		if v, err := userVersion(ctx, r); err == nil && v > legacyVersion {
			db.legacy.Store(false)
		}
	}
	return db.legacy.Load()
}

// moveChunk is how many rows moveRecords reads and writes at once.
const moveChunk = 20_000

// moveRecords moves the rows of the records table into blocks, in rowid
// order (each chunk one batch, so insertion order is kept), then drops
// the table and its indexes. The record counter is unchanged.
func moveRecords(ctx context.Context, tx *sql.Tx, c *codecs) error {
	st, next, err := beginBlocks(ctx, tx)
	if err != nil {
		return err
	}
	defer st.close()
	var last int64
	for {
		recs, lastID, err := readRecordRows(ctx, tx, last)
		if err != nil || len(recs) == 0 {
			if err != nil {
				return err
			}
			break
		}
		last = lastID
		blocks, err := c.buildBlocks(recs)
		if err != nil {
			return err
		}
		if err := insertBlocks(ctx, st, &next, blocks); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `DROP TABLE records`)
	return err
}

// readRecordRows reads up to moveChunk rows of the records table after
// rowid last.
func readRecordRows(ctx context.Context, tx *sql.Tx, last int64) ([]schema.Record, int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT rowid, rec FROM records WHERE rowid > ? ORDER BY rowid LIMIT ?`, last, moveChunk)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	recs := make([]schema.Record, 0, moveChunk)
	for rows.Next() {
		var rec sql.RawBytes
		if err := rows.Scan(&last, &rec); err != nil {
			return nil, 0, err
		}
		var r schema.Record
		if err := decodeRecord(string(rec), &r, nil); err != nil {
			return nil, 0, err
		}
		recs = append(recs, r)
	}
	return recs, last, rows.Err()
}
