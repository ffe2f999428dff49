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
		// 2: records in compressed blocks (block.go); the rows of the
		// records table are moved into blocks by moveRecords in the same
		// transaction, and the table dropped.
		`CREATE TABLE blocks (
		id       INTEGER PRIMARY KEY,
		bseq     INTEGER NOT NULL,  -- id of the first block of its batch: orders batches
		min_ts   INTEGER NOT NULL,  -- Unix nanoseconds, as records.ts was
		max_ts   INTEGER NOT NULL,
		first_ts INTEGER,           -- least time that is not a zero Time; NULL when none
		alert    INTEGER NOT NULL,  -- 1: the block holds the batch's alert records; 0: the others
		n        INTEGER NOT NULL,  -- records
		services TEXT    NOT NULL   -- the services of its records, each between two NUL characters
	);
	CREATE INDEX blocks_min_ts ON blocks(min_ts, max_ts);
	CREATE INDEX blocks_max_ts ON blocks(max_ts);
	CREATE INDEX blocks_first_ts ON blocks(first_ts) WHERE first_ts IS NOT NULL;
	CREATE TABLE block_data (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
	CREATE TABLE block_traces (
		trace INTEGER NOT NULL,  -- traceKey8 of a trace id in the block
		block INTEGER NOT NULL,
		PRIMARY KEY (trace, block)
	) WITHOUT ROWID;`,
		// 3: blocks may be sharded by trace (block.go); no table changes.
		// The version keeps a faultline of before it, which would take a
		// sharded block for a damaged one, from opening the file; this one
		// reads a file of version 2 as it is (checkVersion).
		`SELECT 1`,
	}
}

// unshardedVersion is the schema of blocks of one frame each, which a
// reader reads as it is.
const unshardedVersion = 2

// migrationMoves are the Go steps that complete a migration in its
// transaction, by the version it brings the file to: moving data the SQL
// alone cannot (compression). Append, never edit, as migrations.
func migrationMoves() map[int]func(context.Context, *sql.Tx, *codecs) error {
	return map[int]func(context.Context, *sql.Tx, *codecs) error{
		2: moveRecords,
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
func migrate(ctx context.Context, w *sql.DB, c *codecs, log *slog.Logger) error {
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
	// A new file takes every migration at once with nothing to move: it
	// is said once, as created, not step by step.
	from, err := userVersion(ctx, w)
	if err != nil {
		return err
	}
	steps := log
	if from == 0 {
		steps = slog.New(slog.DiscardHandler)
	}
	moved := false
	for {
		done, m, err := migrateStep(ctx, w, c, steps)
		moved = moved || m
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	if from == 0 {
		log.Info("new store created", "version", SchemaVersion())
		return nil
	}
	if moved {
		compact(ctx, w, log)
	}
	return nil
}

// compact gives back to the file system the pages a move of data freed
// (the records table of version 1 was about ten times its blocks), with
// VACUUM. It needs the file to itself for a moment: when another process
// is reading it fails, which is harmless (the pages are reused by later
// writes), and is logged.
func compact(ctx context.Context, w *sql.DB, log *slog.Logger) {
	start := time.Now()
	if _, err := w.ExecContext(ctx, "VACUUM"); err != nil {
		log.Warn("store not compacted after the migration; its free pages will be reused", "err", err)
		return
	}
	log.Info("store compacted after the migration", "took", time.Since(start))
}

func migrateStep(ctx context.Context, w *sql.DB, c *codecs, log *slog.Logger) (done, moved bool, err error) {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return false, false, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	v, err := userVersion(ctx, tx)
	if err != nil {
		return false, false, err
	}
	if v > len(migrations()) {
		return false, false, newerSchema(v)
	}
	if v == len(migrations()) {
		return true, false, tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, migrations()[v]); err != nil {
		return false, false, fmt.Errorf("cannot migrate schema to version %d: %w", v+1, err)
	}
	if move := migrationMoves()[v+1]; move != nil {
		start := time.Now()
		if err := move(ctx, tx, c); err != nil {
			return false, false, fmt.Errorf("cannot migrate schema to version %d: %w", v+1, err)
		}
		log.Info("store data moved to the new layout", "version", v+1, "took", time.Since(start))
		moved = true
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return false, false, err
	}
	log.Info("store schema migrated", "version", v+1)
	return false, moved, tx.Commit()
}

// legacyVersion is the schema of records in rows (one per record): a
// reader reads such a file as it is; a writer's open moves it to blocks.
const legacyVersion = 1

// checkVersion is the read-only open's check: a reader cannot migrate. It
// returns the file's version: the current one, or legacyVersion.
func checkVersion(ctx context.Context, r *sql.DB) (int, error) {
	v, err := userVersion(ctx, r)
	switch {
	case err != nil:
		return 0, err
	case v > len(migrations()):
		return 0, newerSchema(v)
	case v == legacyVersion:
		return v, nil // read in the old layout: see DB.legacy
	case v == unshardedVersion:
		return v, nil // its blocks are read as sharded ones' small blocks are
	case v < len(migrations()):
		return 0, fmt.Errorf("%w: the file has version %d, this faultline needs %d; open it once read-write (ingest) to upgrade it",
			backend.ErrSchemaVersion, v, len(migrations()))
	}
	return v, nil
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
