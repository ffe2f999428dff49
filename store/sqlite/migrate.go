package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/faultline/faultline/store/backend"
)

// migrations are the schema steps in order: migrations()[i] brings a file
// from user_version i to i+1. Append, never edit: a released step has
// already run on users' files. A later column addition is one more entry
// (ALTER TABLE records ADD COLUMN ...).
func migrations() []string {
	return []string{
		// 1: records, their indexes, counters and documents.
		`CREATE TABLE records (
		ts      INTEGER NOT NULL,  -- Unix nanoseconds; minInt64 for a zero time
		trace   BLOB,              -- 16 bytes; TEXT when not canonical; NULL when none
		service TEXT    NOT NULL,
		alert   INTEGER NOT NULL,  -- 1 when IsError or severity >= WARN
		rec     BLOB    NOT NULL   -- the whole record, codec.go
	);
	CREATE INDEX records_trace ON records(trace) WHERE trace IS NOT NULL;
	CREATE INDEX records_ts ON records(ts);
	CREATE INDEX records_alert_ts ON records(ts) WHERE alert = 1;
	CREATE INDEX records_service_ts ON records(service, ts);
	CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
	INSERT INTO counters VALUES ('records', 0);
	CREATE TABLE docs (
		kind    TEXT NOT NULL,
		id      TEXT NOT NULL,
		doc     BLOB NOT NULL,
		updated INTEGER NOT NULL,   -- Unix nanoseconds
		PRIMARY KEY (kind, id)
	) WITHOUT ROWID;`,
	}
}

// pageSize is the page size of new files: see the measurements in
// bench_test.go.
const pageSize = 4096

// busyRetry is how long opening a new file retries its switch to WAL.
const busyRetry = 5 * time.Second

// SchemaVersion is the user_version this build writes and reads.
func SchemaVersion() int { return len(migrations()) }

// migrate turns on WAL and applies the missing migrations, each in its
// own IMMEDIATE transaction that rereads user_version, so two processes
// opening a new file at once apply every step exactly once.
func migrate(ctx context.Context, w *sql.DB, log *slog.Logger) error {
	// The page size of a new file; it cannot change once the file is in
	// WAL mode, and is a no-op on an existing file.
	if _, err := w.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d", pageSize)); err != nil {
		return err
	}
	// Switching a new file to WAL can fail with SQLITE_BUSY without
	// waiting on the busy timeout while another process does the same:
	// retry for as long as the timeout would have waited.
	var mode string
	for wait, deadline := time.Millisecond, time.Now().Add(busyRetry); ; wait = min(2*wait, 100*time.Millisecond) {
		err := w.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		if err == nil {
			break
		}
		var se *msqlite.Error
		if !errors.As(err, &se) || se.Code()&0xff != sqliteBusy || time.Now().After(deadline) {
			return fmt.Errorf("cannot switch to WAL: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	if mode != "wal" {
		return fmt.Errorf("cannot switch to WAL: journal mode stays %q", mode)
	}
	for {
		done, err := migrateStep(ctx, w, log)
		if err != nil || done {
			return err
		}
	}
}

func migrateStep(ctx context.Context, w *sql.DB, log *slog.Logger) (done bool, err error) {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	v, err := userVersion(ctx, tx)
	if err != nil {
		return false, err
	}
	if v > len(migrations()) {
		return false, newerSchema(v)
	}
	if v == len(migrations()) {
		return true, tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, migrations()[v]); err != nil {
		return false, fmt.Errorf("cannot migrate schema to version %d: %w", v+1, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return false, err
	}
	log.Info("store schema migrated", "version", v+1)
	return false, tx.Commit()
}

// checkVersion is the read-only open's check: a reader cannot migrate.
func checkVersion(ctx context.Context, r *sql.DB) error {
	v, err := userVersion(ctx, r)
	switch {
	case err != nil:
		return err
	case v > len(migrations()):
		return newerSchema(v)
	case v < len(migrations()):
		return fmt.Errorf("%w: the file has version %d, this faultline needs %d; open it once read-write (ingest) to upgrade it",
			backend.ErrSchemaVersion, v, len(migrations()))
	}
	return nil
}

func newerSchema(v int) error {
	return fmt.Errorf("%w: the file has version %d, newer than this faultline's %d; upgrade faultline",
		backend.ErrSchemaVersion, v, len(migrations()))
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func userVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, err
	}
	return v, nil
}
