package ingest

import (
	"context"
	"os"
	"path/filepath"
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

// datasetsDir finds shared/datasets beside the repository by walking up
// from the package directory; it skips the test when there is none.
func datasetsDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "datasets")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("shared/datasets not found beside the repository; dataset-driven test skipped")
		}
		dir = parent
	}
}

func newTestDecoder(t testing.TB) *Decoder {
	t.Helper()
	return NewDecoder(DecoderConfig{})
}
