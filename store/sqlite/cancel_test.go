package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/sqlite"
	"github.com/faultline/faultline/store/storetest"
)

// TestCancelMidway: when the caller's context ends during an iteration,
// the iteration yields the context's error instead of ending silently with
// part of the window, and the store stays usable.
func TestCancelMidway(t *testing.T) {
	db := openAt(t, filepath.Join(t.TempDir(), "c.db"), sqlite.Options{Durability: sqlite.DurabilityProcess})
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	synth := storetest.NewSynth(3, base, time.Millisecond)
	for range 10 {
		if err := db.WriteBatch(t.Context(), synth.Batch(5000)); err != nil {
			t.Fatal(err)
		}
	}
	q := schema.WindowQuery{From: base, To: base.Add(24 * time.Hour)}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n, errs := 0, 0
	for _, err := range db.WindowRecords(ctx, q) {
		if err != nil {
			errs++
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the error %q does not wrap context.Canceled", err)
			}
			continue
		}
		n++
		if n == 10 {
			cancel()
		}
	}
	if errs != 1 || n >= 50_000 {
		t.Errorf("after canceling: %d records and %d errors, want fewer than 50000 and exactly one error", n, errs)
	}
	total := 0
	for _, err := range db.WindowRecords(t.Context(), q) {
		if err != nil {
			t.Fatal(err)
		}
		total++
	}
	if total != 50_000 {
		t.Errorf("a later full read got %d records, want 50000", total)
	}
}
