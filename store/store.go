// Package store opens a faultline store by URL: the embedded SQLite file by
// default, or a ClickHouse server. The backends live in sub-packages and
// share one conformance suite, store/storetest; their shared vocabulary
// (Stats, sentinel errors) is store/backend, re-exported here.
package store

import (
	"context"
	"iter"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// Store is everything a backend offers. It satisfies the consumer-owned
// interfaces ingest.Sink, correlate.Store and rootcause.Store (asserted in
// the backends' tests); see those for the exact semantics of each method.
type Store interface {
	// WriteBatch stores all of recs or none; nil means durable (ingest.Sink).
	WriteBatch(ctx context.Context, recs []schema.Record) error
	// TraceRecords yields one trace's records (correlate.Store).
	TraceRecords(ctx context.Context, id schema.TraceID, limit int) iter.Seq2[schema.Record, error]
	// WindowRecords yields a window's records ordered by time (rootcause.Store).
	WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error]
	// DeleteBefore removes records older than t (retention) and reports how many.
	DeleteBefore(ctx context.Context, t time.Time) (int64, error)
	// Bounds is the time of the oldest and newest record held; zero times
	// when the store is empty.
	Bounds(ctx context.Context) (first, last time.Time, err error)
	// Stats describes the store for /healthz.
	Stats(ctx context.Context) (Stats, error)
	// PutDoc stores a document (a generated runbook, a Slack message's
	// state) under (kind, id), replacing any previous one. Kind and id are
	// non-empty.
	PutDoc(ctx context.Context, kind, id string, doc []byte) error
	// GetDoc returns the document under (kind, id); when absent, an error
	// wrapping schema.ErrNotFound.
	GetDoc(ctx context.Context, kind, id string) ([]byte, error)
	// Close releases the store. Writes that returned nil are durable.
	Close() error
}

// Stats describes a store; see backend.Stats.
type Stats = backend.Stats

// Sentinel errors of every backend; see backend.
var (
	ErrNoStore       = backend.ErrNoStore
	ErrReadOnly      = backend.ErrReadOnly
	ErrSchemaVersion = backend.ErrSchemaVersion
	ErrBadRecord     = backend.ErrBadRecord
	ErrBadDoc        = backend.ErrBadDoc
	ErrClosed        = backend.ErrClosed
	ErrCorrupt       = backend.ErrCorrupt
	ErrDiskFull      = backend.ErrDiskFull
)

// Skipped counts what reads skipped as undecodable; see backend.Skipped.
type Skipped = backend.Skipped

// WithSkipped makes reads under ctx skip what cannot be decoded and count
// it; see backend.WithSkipped.
func WithSkipped(ctx context.Context) (context.Context, *Skipped) { return backend.WithSkipped(ctx) }
