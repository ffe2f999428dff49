// Package sqlite is faultline's embedded store: one SQLite database file
// (modernc.org/sqlite, pure Go) in WAL mode, shared by one writing process
// (ingest serve) and any number of reading processes (analyze) at once.
//
// # Layout
//
// Records live in compressed blocks (block.go, schema version 2): each
// batch is split by an "alert" flag (errors and WARN-or-above), sorted by
// time, cut into blocks of up to 2048 records, each record in a compact
// binary encoding (codec.go) and each block one zstd frame. A small table
// keeps every block's time range, alert flag and services (what window
// queries filter on), another one row per trace id in a block (what a
// trace lookup needs). A trace lookup decompresses the few blocks its
// trace is in; a window read decompresses the blocks that overlap it
// (only alert blocks for errors only) and merges them in time order
// (blockread.go). Measured on realistic application logs, a record takes
// about 55 bytes, a seventh of a row per record with four indexes (schema
// version 1, which a writer's open migrates and a reader still reads:
// legacy.go). Documents (runbooks, Slack message state) live in a second
// table keyed by (kind, id). A counter table keeps the record count, so
// Stats is cheap.
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
// Batches are encoded and compressed before their transaction, on every
// core, by the goroutine of their WriteBatch.
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
//
// # Damage and errors
//
// A read-write Open with Options.Check runs SQLite's quick_check for at most integrityBudget
// and refuses a damaged file with backend.ErrCorrupt; damage found later by
// a read or write is ErrCorrupt too, and a full disk backend.ErrDiskFull.
// Errors leave the package as sentences without SQLite's result codes
// (errors.go), saying what to do. WriteHealth remembers the last write's
// lasting failure, for /healthz.
//
// # Read-only files
//
// A read-only Open uses mode=ro, so a file without write permission opens.
// In a directory it cannot write, where SQLite cannot create the WAL index
// (-shm) file, the file is read as immutable: nothing can change it there.
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
	// Check runs SQLite's quick_check on a read-write open, for at most
	// integrityBudget: what writers do (ingest), so that they do not
	// accept data into a damaged file. A reader finds damage when a read
	// reaches it, and does not pay for the check on every command.
	Check bool
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
	path  string
	opts  Options
	log   *slog.Logger
	r     *sql.DB // read pool, query_only
	w     *sql.DB // write pool of one connection; nil when read-only
	group *groupWriter
	zstd  *codecs
	// legacy: the file is a read-only one in the layout of schema version
	// 1 (a row per record), read as it is (legacy.go), until a writer
	// migrates it (see isLegacy).
	legacy atomic.Bool
	closed atomic.Bool
	// writeErr is the last write's failure when it is of a class retrying
	// does not cure (damaged file, full disk); nil after a write succeeds.
	writeErr atomic.Pointer[error]
	// damaged is the damage CheckIntegrity found: from then on every write
	// fails with it and WriteHealth reports it (nil: none found).
	damaged atomic.Pointer[error]
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
	c, err := newCodecs(!db.opts.ReadOnly)
	if err != nil {
		return err
	}
	db.zstd = c
	if !db.opts.ReadOnly {
		w, err := sql.Open("sqlite", dsn(db.path, db.opts, false, accessShared))
		if err != nil {
			return err
		}
		w.SetMaxOpenConns(1)
		w.SetConnMaxIdleTime(0)
		db.w = w
		if err := migrate(ctx, w, c, db.log); err != nil {
			return err
		}
		if db.opts.Check {
			if err := quickCheck(ctx, w, db.log); err != nil {
				return err
			}
		}
		db.group = newGroupWriter(w)
	}
	if !db.opts.ReadOnly {
		r, err := db.openReadPool(accessShared)
		db.r = r
		return err
	}
	r, err := db.openReadPool(accessRO)
	var v int
	if err == nil {
		v, err = checkVersion(ctx, r)
	}
	if err != nil && cannotShare(err) && !dirWritable(filepath.Dir(db.path)) {
		// WAL mode needs the -shm file beside the database, which a
		// read-only directory cannot take: no writer can change the file
		// there either, so it is read as immutable (without locks).
		db.log.Debug("store directory is read-only; reading the file as immutable", "path", db.path)
		if r != nil {
			r.Close()
		}
		if r, err = db.openReadPool(accessImmutable); err == nil {
			v, err = checkVersion(ctx, r)
		}
	}
	db.r = r
	db.legacy.Store(v == legacyVersion)
	return err
}

func (db *DB) openReadPool(access readAccess) (*sql.DB, error) {
	r, err := sql.Open("sqlite", dsn(db.path, db.opts, true, access))
	if err != nil {
		return nil, err
	}
	r.SetMaxOpenConns(db.opts.Readers)
	r.SetMaxIdleConns(min(idleReaders, db.opts.Readers))
	return r, nil
}

// cannotShare reports an open that failed for want of write access to the
// file's directory (SQLITE_CANTOPEN, SQLITE_READONLY).
func cannotShare(err error) bool {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqliteCantOpen || c == sqliteReadOnly
}

// dirWritable reports whether this process may create files in dir.
func dirWritable(dir string) bool {
	f, err := os.CreateTemp(dir, ".faultline-probe-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
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
	db.zstd.close()
	return errors.Join(errs...)
}

// integrityBudget bounds the integrity check of Open: a larger file is
// checked as far as this allows (the damage it misses is found, and
// reported as backend.ErrCorrupt, when a read or write reaches it).
const integrityBudget = 2 * time.Second

// quickCheck runs SQLite's quick_check (page structure, no index
// cross-checks) on the file, for at most integrityBudget; a damaged file
// is backend.ErrCorrupt.
func quickCheck(ctx context.Context, w *sql.DB, log *slog.Logger) error {
	cctx, cancel := context.WithTimeout(ctx, integrityBudget)
	defer cancel()
	start := time.Now()
	var res string
	err := w.QueryRowContext(cctx, "PRAGMA quick_check(1)").Scan(&res)
	switch {
	case err != nil && cctx.Err() != nil && ctx.Err() == nil:
		log.Warn("store integrity check not finished in time; skipped", "budget", integrityBudget)
		return nil
	case err != nil:
		return err
	case res != "ok":
		log.Debug("store integrity check failed", "problem", res)
		return errCheckFailed
	}
	log.Debug("store integrity checked", "took", time.Since(start))
	return nil
}

// errCheckFailed is a quick_check that found damage.
var errCheckFailed = &storeError{class: backend.ErrCorrupt, msg: "the store file is damaged (SQLite's integrity check failed); " + recovery}

// CheckIntegrity runs SQLite's quick_check on the file while it is in use,
// for at most integrityBudget, on a connection of its own: the writer's
// page cache would hide damage done to the file under it (a failing disk,
// another program), which SQLite does not notice on pages it has cached.
// Damage found (backend.ErrCorrupt) is kept: from then on every
// WriteBatch fails with it and WriteHealth reports it, until the store is
// reopened (which refuses the damaged file). A check cut off by the budget
// covers the pages it reached and returns nil; a store opened read-only is
// not checked. Meant to be called periodically by a long-running writer.
func (db *DB) CheckIntegrity(ctx context.Context) error {
	if _, err := db.writer(); err != nil {
		return nil
	}
	c, err := sql.Open("sqlite", dsn(db.path, db.opts, true, accessShared))
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetMaxOpenConns(1)
	err = explain(quickCheck(ctx, c, db.log))
	if errors.Is(err, backend.ErrCorrupt) {
		db.damaged.CompareAndSwap(nil, &err)
		db.log.Error("store file damaged; writes are refused", "path", db.path, "err", err)
	}
	if err != nil {
		return fmt.Errorf("cannot check store %q: %w", truncate(db.path), err)
	}
	return nil
}

// noteWrite keeps err when its class makes later writes fail too (see
// WriteHealth) and forgets it after a write that succeeded.
func (db *DB) noteWrite(err error) {
	switch {
	case err == nil:
		db.writeErr.Store(nil)
	case errors.Is(err, backend.ErrCorrupt), errors.Is(err, backend.ErrDiskFull):
		db.writeErr.Store(&err)
	}
}

// WriteHealth is the damage CheckIntegrity found, else the last write's
// failure when it is of a class that retrying does not cure by itself:
// wrapping backend.ErrCorrupt (the file is damaged) or backend.ErrDiskFull
// (the disk is full); nil when the last write succeeded or failed
// otherwise, and before any write. For /healthz.
func (db *DB) WriteHealth() error {
	if p := db.damaged.Load(); p != nil {
		return *p
	}
	if p := db.writeErr.Load(); p != nil {
		return *p
	}
	return nil
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

// Checkpoint copies what the write-ahead log holds into the database file
// as far as readers allow, without waiting for them (a passive
// checkpoint): a server that writes little (analyze serve's runbooks)
// calls it after its writes, so that its log holds nothing the file lacks
// when the file is replaced under it. A read-only store has nothing to do.
//
// A reader still on an older snapshot holds back the frames written after
// it; a log left with them is what a file copied in place then reads as
// its own. So it tries again, briefly (checkpointTries, checkpointPause),
// until every frame is in the file, rather than wait on the reader.
func (db *DB) Checkpoint(ctx context.Context) error {
	w, err := db.writer()
	if err != nil {
		return nil
	}
	for try := 0; ; try++ {
		var busy, frames, done int
		if err := w.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &done); err != nil {
			return explain(err)
		}
		if done >= frames || try == checkpointTries {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(checkpointPause):
		}
	}
}

// A checkpoint that readers held back is tried again checkpointTries times,
// checkpointPause apart: a reader of a request lasts milliseconds, and the
// writer does not wait longer than a tenth of a second.
const (
	checkpointTries = 20
	checkpointPause = 5 * time.Millisecond
)
