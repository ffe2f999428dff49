package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/faultline/faultline/store"
)

// TestSwapStoreOwnWrites: the server's own writes (the runbooks each
// analysis saves) change the store file's size and time, and were taken
// for a file copied over it: analyze serve closed and opened the store
// again several times per request, logging "rewritten in place". A file
// copied over it in place, or moved over it, is still opened instead; and
// one moved over it after the server wrote is read as it is: SQLite keeps
// the write-ahead log of a moved file at the path when it closes, and the
// new file read the old one's pages from it.
func TestSwapStoreOwnWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "faultline.db")
	markedStore(t, path, "first")
	var mu sync.Mutex
	opens := 0
	open := func(ctx context.Context) (store.Store, error) {
		mu.Lock()
		opens++
		mu.Unlock()
		return store.Open(ctx, path, store.Options{})
	}
	opened := func() int { mu.Lock(); defer mu.Unlock(); return opens }
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	s := newSwapStore(path, st, open, slog.New(slog.NewTextHandler(&logs, nil)))
	defer s.Close()
	before, _ := os.Stat(path)

	// Writes one after the other, then at once with reads, as requests do.
	for i := range 10 {
		if err := s.PutDoc(ctx, "runbook", fmt.Sprint(i), bytes.Repeat([]byte{'x'}, 8192*(i+1))); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetDoc(ctx, "runbook", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			id := fmt.Sprint("at-once-", i)
			if err := s.PutDoc(ctx, "runbook", id, bytes.Repeat([]byte{'y'}, 8192*(i+1))); err != nil {
				t.Error(err)
			}
			if _, err := s.GetDoc(ctx, "runbook", id); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if _, err := s.GetDoc(ctx, "marker", "which"); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if after.Size() == before.Size() && after.ModTime().Equal(before.ModTime()) {
		t.Fatal("the writes left the file as it was; the test needs them to change it")
	}
	if n := opened(); n != 0 || strings.Contains(logs.String(), "replaced") {
		t.Fatalf("the store was opened again %d times after the server's own writes; log:\n%s", n, logs.String())
	}

	// Another process's copy over it in place (same inode).
	other := filepath.Join(dir, "other.db")
	markedStore(t, other, "copied")
	copyFile(t, other, path)
	if now, _ := os.Stat(path); !os.SameFile(after, now) {
		t.Fatal("the copy made a new file; the test needs the same inode")
	}
	if doc, err := s.GetDoc(ctx, "marker", "which"); err != nil || string(doc) != "copied" || opened() != 1 {
		t.Errorf("after a copy over the file in place: %q %v, opened %d times; want the copy's marker, opened once", doc, err, opened())
	}
	// A file moved over it after a write of the server's.
	if err := s.PutDoc(ctx, "runbook", "after-copy", []byte("z")); err != nil {
		t.Fatal(err)
	}
	markedStore(t, other, "moved")
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if doc, err := s.GetDoc(ctx, "marker", "which"); err != nil || string(doc) != "moved" || opened() != 2 {
		t.Errorf("after a file moved over it: %q %v, opened %d times; want the moved file's marker, opened twice; log:\n%s", doc, err, opened(), logs.String())
	}
}

// markedStore creates a store at path whose document marker/which is mark.
func markedStore(t *testing.T, path, mark string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutDoc(ctx, "marker", "which", []byte(mark)); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}
