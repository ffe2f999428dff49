package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/faultline/faultline/store/backend"
)

// Bounds reports the times of the oldest and newest records the store
// holds (records with a zero Time are ignored). An empty store gives zero
// times and no error.
func (db *DB) Bounds(ctx context.Context) (first, last time.Time, err error) {
	first, last, err = db.bounds(ctx)
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("cannot read the store's time range: %w", explain(err))
	}
	return first, last, nil
}

func (db *DB) bounds(ctx context.Context) (first, last time.Time, err error) {
	r, err := db.reader()
	if err != nil {
		return first, last, err
	}
	if !db.isLegacy(ctx) {
		lo, hi, err := boundsBlocks(ctx, r)
		if err != nil || !lo.Valid || !hi.Valid {
			return first, last, err
		}
		return nanosToTime(lo.Int64), nanosToTime(hi.Int64), nil
	}
	var lo, hi int64
	err = r.QueryRowContext(ctx, `SELECT ts FROM records WHERE ts > ? ORDER BY ts LIMIT 1`, zeroTime).Scan(&lo)
	if errors.Is(err, sql.ErrNoRows) {
		return first, last, nil
	}
	if err != nil {
		return first, last, err
	}
	if err = r.QueryRowContext(ctx, `SELECT ts FROM records ORDER BY ts DESC LIMIT 1`).Scan(&hi); err != nil {
		return first, last, err
	}
	return nanosToTime(lo), nanosToTime(hi), nil
}

// Stats describes the store for /healthz: record count (kept in a counter
// table, so it is cheap), time range, size on disk and schema version.
func (db *DB) Stats(ctx context.Context) (backend.Stats, error) {
	s := backend.Stats{Backend: "sqlite", Location: db.path, ReadOnly: db.opts.ReadOnly}
	r, err := db.reader()
	if err == nil {
		err = r.QueryRowContext(ctx, `SELECT value FROM counters WHERE name = 'records'`).Scan(&s.Records)
	}
	if err == nil {
		s.SchemaVersion, err = userVersion(ctx, r)
	}
	if err == nil {
		s.First, s.Last, err = db.bounds(ctx)
	}
	if err != nil {
		return s, fmt.Errorf("cannot read store statistics: %w", explain(err))
	}
	s.Bytes = fileSize(db.path) + fileSize(db.path+"-wal")
	return s, nil
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
