package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/store"
)

// TestServeStoreCopiedInPlace: a valid store copied over the file of a
// running `analyze serve` (cp: same inode, new content) is read anew, and
// the server's own writes made before the copy (the runbooks of an
// analysis, in SQLite's write-ahead log) do not end up in the new file:
// the server used to keep reading through its old log and page cache,
// and wrote the old file's pages into the new one when it closed.
func TestServeStoreCopiedInPlace(t *testing.T) {
	ctx := context.Background()
	oldPath, _ := enrichStore(t)
	t1 := enrichT0.Add(48 * time.Hour)
	newPath, _ := enrichStoreAt(t, t1)
	st, err := store.Open(ctx, newPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutDoc(ctx, "test-marker", "new", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	st.Close()

	storeFile := filepath.Join(t.TempDir(), "faultline.db")
	copyFile(t, oldPath, storeFile)
	base, stop := startServe(t, "--store", storeFile)
	win := func(t0 time.Time) string {
		return fmt.Sprintf("%s/api/v1/incident?from=%s&to=%s", base, t0.Add(-time.Minute).Format(time.RFC3339), t0.Add(10*time.Minute).Format(time.RFC3339))
	}
	if code, body := httpGet(t, win(enrichT0)); code != 200 || !strings.Contains(body, "inventory") {
		t.Fatalf("the old file's incident: %d %.300s", code, body)
	}
	before, _ := os.Stat(storeFile)
	copyFile(t, newPath, storeFile)
	if after, _ := os.Stat(storeFile); !os.SameFile(before, after) {
		t.Fatal("the copy made a new file; the test needs the same inode")
	}
	if code, body := httpGet(t, win(t1)); code != 200 || !strings.Contains(body, "inventory") {
		t.Errorf("the new file's incident after the copy: %d %.300s, want its candidates", code, body)
	}
	if code, body := httpGet(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz after the copy: %d %s", code, body)
	}
	if code := stop(); code != 0 {
		t.Errorf("serve exited %d", code)
	}
	st, err = store.Open(ctx, storeFile, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("the copied file after the server stopped: %v", err)
	}
	defer st.Close()
	if doc, err := st.GetDoc(ctx, "test-marker", "new"); err != nil || string(doc) != "kept" {
		t.Errorf("the new file's own document after the server stopped: %q %v; the server wrote the old file's pages into it", doc, err)
	}
	if _, _, err := st.Bounds(ctx); err != nil {
		t.Errorf("the copied file after the server stopped: %v", err)
	}
}
