// Package backend holds the vocabulary every store backend shares: the
// Stats document and the sentinel errors. It is a leaf so that the store
// package can open every backend while the backends return these types;
// package store re-exports them.
package backend

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Sentinel errors a backend wraps; callers test them with errors.Is.
var (
	// ErrNoStore: a read-only open found no store at the location.
	ErrNoStore = errors.New("there is no store there yet (ingest something first, or check --store and $FAULTLINE_STORE)")
	// ErrReadOnly: a write was attempted on a store opened read-only.
	ErrReadOnly = errors.New("store is opened read-only")
	// ErrSchemaVersion: the store was written by another version of
	// faultline and this one cannot use or upgrade it.
	ErrSchemaVersion = errors.New("unsupported store schema version")
	// ErrBadRecord: a record cannot be stored as it is (the whole batch is refused).
	ErrBadRecord = errors.New("record cannot be stored")
	// ErrBadDoc: a document kind or id is empty or too long.
	ErrBadDoc = errors.New("bad document key")
	// ErrClosed: the store was used after Close.
	ErrClosed = errors.New("store is closed")
	// ErrCorrupt: the store's data is damaged (or the file is not a store);
	// retrying does not help. Recover from a backup, or move the file (and
	// its -wal and -shm files) aside and ingest again.
	ErrCorrupt = errors.New("the store is damaged")
	// ErrDiskFull: the disk holding the store is full; writes fail until
	// space is freed.
	ErrDiskFull = errors.New("the disk holding the store is full")
)

// Stats describes a store for /healthz and the UI. Zero First and Last
// mean the store holds no records.
type Stats struct {
	Backend  string    `json:"backend"`  // "sqlite", "clickhouse"
	Location string    `json:"location"` // a path or a URL without credentials
	ReadOnly bool      `json:"read_only"`
	Records  int64     `json:"records"`
	First    time.Time `json:"first,omitzero"`
	Last     time.Time `json:"last,omitzero"`
	// Bytes is the size on disk (database plus write-ahead log), when known.
	Bytes int64 `json:"bytes,omitempty"`
	// SchemaVersion is the backend's schema version of the stored data.
	SchemaVersion int `json:"schema_version"`
}

// Skipped counts what reads skipped because it could not be decoded (a
// block of records damaged on disk), so that an analysis answers from
// the rest and says what it lacks. A reader asks for skipping by putting
// one in the context (WithSkipped); without one, a read fails at the
// first damage instead. Safe for concurrent use.
type Skipped struct {
	mu              sync.Mutex
	blocks, records int64
	reason          error
	// seen are the blocks counted (AddBlock): an analysis reads a
	// window more than once (its errors, then every record).
	seen map[int64]bool
}

type skippedKey struct{}

// WithSkipped returns ctx carrying s: reads under it skip what cannot be
// decoded and count it in s. A ctx already carrying one keeps it.
func WithSkipped(ctx context.Context) (context.Context, *Skipped) {
	if s := SkippedFrom(ctx); s != nil {
		return ctx, s
	}
	s := &Skipped{}
	return context.WithValue(ctx, skippedKey{}, s), s
}

// SkippedFrom is the Skipped ctx carries, or nil.
func SkippedFrom(ctx context.Context) *Skipped {
	s, _ := ctx.Value(skippedKey{}).(*Skipped)
	return s
}

// Add counts blocks whole blocks (of records records) or single records
// skipped because of reason (the first reason is kept).
func (s *Skipped) Add(blocks, records int64, reason error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocks += blocks
	s.records += records
	if s.reason == nil {
		s.reason = reason
	}
}

// AddBlock counts the block id of records records skipped because of
// reason, once however many reads skip it.
func (s *Skipped) AddBlock(id, records int64, reason error) {
	s.mu.Lock()
	if s.seen[id] {
		s.mu.Unlock()
		return
	}
	if s.seen == nil {
		s.seen = map[int64]bool{}
	}
	s.seen[id] = true
	s.mu.Unlock()
	s.Add(1, records, reason)
}

// Counts reports the blocks and records skipped so far and the first reason.
func (s *Skipped) Counts() (blocks, records int64, reason error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.blocks, s.records, s.reason
}
