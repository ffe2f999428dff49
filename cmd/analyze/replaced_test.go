package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeStoreReplaced: a store file replaced with mv under a running
// `analyze serve` (which keeps reading the old one) makes /healthz fail,
// and the log says to restart; it used to answer ok and serve the old data.
func TestServeStoreReplaced(t *testing.T) {
	path, _ := enrichStore(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "faultline.db")
	copyFile(t, path, store)
	base, stop := startServe(t, "--store", store)
	defer stop()
	if code, body := httpGet(t, base+"/healthz"); code != 200 {
		t.Fatalf("/healthz before: %d %s", code, body)
	}
	other := filepath.Join(dir, "new.db")
	copyFile(t, path, other)
	if err := os.Rename(other, store); err != nil {
		t.Fatal(err)
	}
	if code, body := httpGet(t, base+"/healthz"); code != 503 || !strings.Contains(body, "not ok") {
		t.Errorf("/healthz after the store was replaced: %d %s, want 503", code, body)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
