// Package store opens a faultline store by URL: the embedded SQLite file by
// default, or a ClickHouse server. The backends live in sub-packages and
// share one conformance suite, store/storetest.
package store

import (
	"context"
	"iter"
	"time"

	"github.com/faultline/faultline/schema"
)

// Store is everything a backend offers. It satisfies the consumer-owned
// interfaces ingest.Sink, correlate.Store and rootcause.Store (asserted in
// the backends' tests); see those for the exact semantics of each method.
type Store interface {
	WriteBatch(ctx context.Context, recs []schema.Record) error
	TraceRecords(ctx context.Context, id schema.TraceID, limit int) iter.Seq2[schema.Record, error]
	WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error]
	// DeleteBefore removes records older than t (retention) and reports how many.
	DeleteBefore(ctx context.Context, t time.Time) (int64, error)
	// Close releases the store. Writes that returned nil are durable.
	Close() error
}
