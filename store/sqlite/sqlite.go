// Package sqlite is faultline's embedded store: one SQLite database file
// (modernc.org/sqlite, pure Go) in WAL mode, shared by one writing process
// (ingest serve) and any number of reading processes (analyze) at once.
//
// # Layout
//
// Records live in one table: each whole record is one compact binary
// column (codec.go), so that reading a row costs one column; the values
// queries filter on are repeated as columns for the indexes: time in Unix
// nanoseconds, the trace id as a 16-byte BLOB, the service and an "alert"
// flag for errors and WARN-or-above. Indexes serve "all records of one
// trace" and "records, or alert records, in a time window, optionally of one
// service". Reads stream through a two-stage pipeline (scan.go). Documents
// (runbooks, Slack message state) live in a second table keyed by (kind, id).
// A counter table keeps the record count, so Stats is cheap.
//
// # Concurrency and durability
//
// Each DB has a write pool of one connection whose transactions begin
// IMMEDIATE (so a writer waits on busy_timeout instead of failing on a lock
// upgrade) and a read pool whose connections are query_only. Readers in WAL
// mode never block the writer and see only committed transactions. Write
// transactions are short: the batches queued at one moment (group commit,
// group.go, at most 50,000 records), or one chunk of a retention delete.
// Another process holding the write lock is waited for up to BusyTimeout.
//
// Durability: synchronous=FULL by default, so a WriteBatch that returned
// nil survives power loss as well as a crash of the process (the contract
// says a 2xx means durable). It costs one fsync of the WAL per commit, which
// group commit shares between concurrent batches; measured, FULL took about
// 10% more CPU per 1000-record batch than NORMAL. DurabilityProcess
// (synchronous=NORMAL) survives a crash of the process, not of the machine:
// for bulk loads that can be repeated.
//
// # Schema versions
//
// PRAGMA user_version holds the schema version; Open applies the missing
// migrations in order, each in its own transaction (see migrate.go).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	msqlite "modernc.org/sqlite" // also registers the "sqlite" database/sql driver

	"github.com/faultline/faultline/store/backend"
)

// Durability chooses what a successful write survives.
type Durability int

const (
	// DurabilityFull (the default) survives power loss: synchronous=FULL.
	DurabilityFull Durability = iota
	// DurabilityProcess survives a crash of the process but may lose the
	// last transactions on power loss: synchronous=NORMAL.
	DurabilityProcess
)

// Defaults for Options' zero values.
const (
	DefaultBusyTimeout = 10 * time.Second
	DefaultTraceLimit  = 100_000
	DefaultWindowLimit = 2_000_000
	DefaultReaders     = 16
	idleReaders        = 4
	defaultCacheKiB    = 32 << 10 // page cache per connection
)

// Options configure Open. The zero value is a read-write store with the
// defaults above.
type Options struct {
	// ReadOnly opens an existing store for reading only; writes fail with
	// backend.ErrReadOnly and a missing file is backend.ErrNoStore.
	ReadOnly bool
	// Logger receives debug and warning messages; nil discards them.
	Logger *slog.Logger
	// Durability of writes; see the constants.
	Durability Durability
	// BusyTimeout is how long a statement waits for a lock held by another
	// connection or process before failing.
	BusyTimeout time.Duration
	// TraceLimit and WindowLimit are the caps applied when a query's limit
	// is zero or negative.
	TraceLimit, WindowLimit int
	// Readers caps the open read connections of this process. Each running
	// iteration holds one until it ends, so an iteration that runs queries
	// inside its loop (a trace per record of a window) holds two.
	Readers int
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = DefaultBusyTimeout
	}
	if o.TraceLimit <= 0 {
		o.TraceLimit = DefaultTraceLimit
	}
	if o.WindowLimit <= 0 {
		o.WindowLimit = DefaultWindowLimit
	}
	if o.Readers <= 0 {
		o.Readers = DefaultReaders
	}
	return o
}

// DB is an open embedded store. It is safe for concurrent use; Close it
// when done. It satisfies store.Store.
type DB struct {
	path   string
	opts   Options
	log    *slog.Logger
	r      *sql.DB // read pool, query_only
	w      *sql.DB // write pool of one connection; nil when read-only
	group  *groupWriter
	closed atomic.Bool
}

// Open opens (read-write: creating when missing) the store file at path
// and brings its schema up to date.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	db, err := open(ctx, path, opts.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("cannot open store %q: %w", truncate(path), err)
	}
	return db, nil
}

func open(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := checkFile(abs, opts.ReadOnly); err != nil {
		return nil, err
	}
	db := &DB{path: abs, opts: opts, log: opts.Logger}
	if err := db.openPools(ctx); err != nil {
		return nil, errors.Join(explain(err), db.closePools())
	}
	db.log.Debug("store opened", "path", abs, "read_only", opts.ReadOnly)
	return db, nil
}

// sqliteNotADB is SQLite's result code for a file that is not a database.
const sqliteNotADB = 26

// sqliteBusy is SQLite's result code for a lock another connection holds.
const sqliteBusy = 5

// explain turns SQLite's wording into the user's.
func explain(err error) error {
	var se *msqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqliteNotADB {
		return fmt.Errorf("it is not a faultline store (%w)", err)
	}
	return err
}

// checkFile refuses a directory, and a missing file when read-only.
func checkFile(path string, readOnly bool) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return errors.New("it is a directory, not a store file")
	case errors.Is(err, os.ErrNotExist) && readOnly:
		return backend.ErrNoStore
	case errors.Is(err, os.ErrNotExist):
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			return fmt.Errorf("its directory is missing or unreadable: %w", err)
		}
		return nil
	case err != nil:
		return err
	}
	return nil
}

func (db *DB) openPools(ctx context.Context) error {
	if !db.opts.ReadOnly {
		w, err := sql.Open("sqlite", dsn(db.path, db.opts, false))
		if err != nil {
			return err
		}
		w.SetMaxOpenConns(1)
		w.SetConnMaxIdleTime(0)
		db.w = w
		if err := migrate(ctx, w, db.log); err != nil {
			return err
		}
		db.group = newGroupWriter(w)
	}
	r, err := sql.Open("sqlite", dsn(db.path, db.opts, true))
	if err != nil {
		return err
	}
	r.SetMaxOpenConns(db.opts.Readers)
	r.SetMaxIdleConns(min(idleReaders, db.opts.Readers))
	db.r = r
	if db.opts.ReadOnly {
		return checkVersion(ctx, r)
	}
	return nil
}

// Close releases the store. Writes that returned nil are durable. Close
// is idempotent; iterators still running fail.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	if db.group != nil {
		db.group.close() // commits what is queued
	}
	if db.w != nil {
		// Fold the WAL back into the database so the file is self-contained;
		// a busy reader may prevent it, which is harmless.
		_, _ = db.w.Exec("PRAGMA wal_checkpoint(PASSIVE)")
	}
	return db.closePools()
}

func (db *DB) closePools() error {
	if db.group != nil {
		db.group.close()
	}
	var errs []error
	if db.r != nil {
		errs = append(errs, db.r.Close())
	}
	if db.w != nil {
		errs = append(errs, db.w.Close())
	}
	return errors.Join(errs...)
}

// Path is the absolute path of the database file.
func (db *DB) Path() string { return db.path }

func (db *DB) writer() (*sql.DB, error) {
	if db.closed.Load() {
		return nil, backend.ErrClosed
	}
	if db.w == nil {
		return nil, backend.ErrReadOnly
	}
	return db.w, nil
}

func (db *DB) reader() (*sql.DB, error) {
	if db.closed.Load() {
		return nil, backend.ErrClosed
	}
	return db.r, nil
}

// truncate shortens quoted input in error messages.
func truncate(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
