package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/clickhouse"
)

// sinkOf is the sink ingest serve writes to: the store itself, or for the
// ClickHouse backend an adapter that gives ingest its writer status (for
// /metrics and /healthz) and its overload errors as ingest's sentinels,
// so that package ingest need not import store/clickhouse.
func sinkOf(st store.Store) ingest.Sink {
	if ch, ok := st.(*clickhouse.Store); ok {
		return clickhouseSink{ch}
	}
	return storeSink{st}
}

// storeSink gives ingest the embedded store's lasting failures as ingest's
// sentinels: a damaged file is ingest.ErrStoreBroken (500), a full disk
// ingest.ErrStoreNoSpace (503 with Retry-After).
type storeSink struct{ st store.Store }

func (s storeSink) WriteBatch(ctx context.Context, recs []schema.Record) error {
	return failureOf(s.st.WriteBatch(ctx, recs))
}

// failureOf wraps a store's lasting failures in ingest's sentinels.
func failureOf(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrCorrupt):
		return classed{ingest.ErrStoreBroken, err}
	case errors.Is(err, store.ErrDiskFull):
		return classed{ingest.ErrStoreNoSpace, err}
	}
	return err
}

// classed is a store error in one of ingest's classes, told in the
// store's own sentence ("%w: %w" said "the disk holding the store is full:
// the disk holding the store is full; free space …").
type classed struct{ class, err error }

func (c classed) Error() string   { return c.err.Error() }
func (c classed) Unwrap() []error { return []error{c.class, c.err} }

// writeHealther is a store that remembers its last write's lasting
// failure (sqlite.DB.WriteHealth).
type writeHealther interface{ WriteHealth() error }

// integrityChecker is a store that can check its file while in use and
// refuse writes once it found damage (sqlite.DB.CheckIntegrity).
type integrityChecker interface {
	CheckIntegrity(ctx context.Context) error
}

// clickhouseSink adapts the ClickHouse store to ingest.
type clickhouseSink struct{ ch *clickhouse.Store }

// WriteBatch writes through the store; a full spool or an unreachable
// server wraps ingest.ErrStoreFull or ingest.ErrStoreUnavailable (503 with
// Retry-After), the store's error kept in the chain.
func (c clickhouseSink) WriteBatch(ctx context.Context, recs []schema.Record) error {
	return overloadOf(c.ch.WriteBatch(ctx, recs))
}

// overloadOf wraps the ClickHouse writer's "not now" errors in ingest's.
func overloadOf(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, clickhouse.ErrSpoolFull):
		return fmt.Errorf("%w: %w", ingest.ErrStoreFull, err)
	case errors.Is(err, clickhouse.ErrUnavailable):
		return fmt.Errorf("%w: %w", ingest.ErrStoreUnavailable, err)
	}
	return failureOf(err)
}

// IngestWriterStatus reads the writer's status (on every scrape and probe).
func (c clickhouseSink) IngestWriterStatus() ingest.WriterStatus {
	ws := c.ch.WriterStatus()
	return ingest.WriterStatus{
		Breaker: ws.Breaker, ConsecutiveFailures: ws.ConsecutiveFailures,
		SpoolBatches: ws.SpoolBatches, SpoolBytes: ws.SpoolBytes, SpoolMaxBytes: ws.SpoolMaxBytes,
		DeadBatches: ws.DeadBatches, Inserted: ws.Inserted, Spooled: ws.Spooled,
		Replayed: ws.Replayed, DeadLettered: ws.DeadLettered, Healthy: ws.Healthy(),
	}
}
