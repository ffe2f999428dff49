package ingest

import (
	"context"
	"github.com/faultline/faultline/internal/testenv"
	"sync"
	"testing"

	"github.com/faultline/faultline/schema"
)

// fakeSink is a Sink that keeps every batch it is given, or fails with err.
type fakeSink struct {
	mu      sync.Mutex
	recs    []schema.Record
	batches int
	err     error
}

func (f *fakeSink) WriteBatch(_ context.Context, recs []schema.Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.batches++
	f.recs = append(f.recs, recs...)
	return nil
}

func (f *fakeSink) records() []schema.Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]schema.Record(nil), f.recs...)
}

// datasetsDir is shared/datasets beside the repository.
func datasetsDir(t testing.TB) string { return testenv.Datasets(t, ".") }

func newTestDecoder(t testing.TB) *Decoder {
	t.Helper()
	return NewDecoder(DecoderConfig{})
}
