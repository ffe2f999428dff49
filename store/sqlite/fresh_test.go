package sqlite

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// TestFreshStoreSaysCreated: a new file is said to be created, once; it
// is not "moved to the new layout" nor "compacted", since nothing was in
// it. Opening it again says nothing.
func TestFreshStoreSaysCreated(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	path := filepath.Join(t.TempDir(), "fresh.db")
	for range 2 {
		db, err := Open(context.Background(), path, Options{Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	got := logs.String()
	if strings.Count(got, "new store created") != 1 {
		t.Errorf("want one 'new store created', got:\n%s", got)
	}
	for _, never := range []string{"moved to the new layout", "compacted", "schema migrated"} {
		if strings.Contains(got, never) {
			t.Errorf("a fresh store logs %q:\n%s", never, got)
		}
	}
}
