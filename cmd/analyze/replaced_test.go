package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/store/sqlite"
)

// TestServeStoreReplaced: a valid store moved over the file of a running
// `analyze serve` (mv new.db faultline.db) is read without a restart,
// while requests keep coming: every one is answered, /healthz stays ok,
// and the data after the move is the new file's. The server used to keep
// reading the old, unlinked file (with /healthz ok), and then to fail
// /healthz asking for a restart.
func TestServeStoreReplaced(t *testing.T) {
	oldPath, _ := enrichStore(t)
	t1 := enrichT0.Add(48 * time.Hour)
	newPath, _ := enrichStoreAt(t, t1)
	dir := t.TempDir()
	storeFile := filepath.Join(dir, "faultline.db")
	copyFile(t, oldPath, storeFile)
	base, stop := startServe(t, "--store", storeFile)
	defer stop()
	win := fmt.Sprintf("%s/api/v1/incident?from=%s&to=%s", base, t1.Add(-time.Minute).Format(time.RFC3339), t1.Add(10*time.Minute).Format(time.RFC3339))
	if code, body := httpGet(t, win); code != 200 || !strings.Contains(body, `"candidates":[]`) {
		t.Fatalf("the new file's window before the move: %d %.300s, want no candidates", code, body)
	}

	var wg sync.WaitGroup
	done := make(chan struct{})
	var mu sync.Mutex
	var failures []string
	for i := range 6 {
		wg.Go(func() {
			url := win
			if i%2 == 1 {
				url = base + "/healthz"
			}
			for {
				select {
				case <-done:
					return
				default:
				}
				if code, body := httpGet(t, url); code != 200 {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%s: %d %.200s", url, code, body))
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	other := filepath.Join(dir, "new.db")
	copyFile(t, newPath, other)
	if err := os.Rename(other, storeFile); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	close(done)
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d requests failed during the move, first: %s", len(failures), failures[0])
	}
	// Another window than the one polled, which the web's report cache
	// may still hold for a few seconds.
	code, body := httpGet(t, strings.Replace(win, "12:10:00Z", "12:11:00Z", 1))
	if code != 200 || strings.Contains(body, `"candidates":[]`) || !strings.Contains(body, "inventory") {
		t.Errorf("the new file's window after the move: %d %.300s, want its candidates", code, body)
	}
	if code, body := httpGet(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz after the move: %d %s", code, body)
	}
	// Removed: unhealthy, saying so; put back: read again.
	if err := os.Rename(storeFile, other); err != nil {
		t.Fatal(err)
	}
	if code, body := httpGet(t, base+"/healthz"); code != 503 {
		t.Errorf("/healthz with the store file removed: %d %s, want 503", code, body)
	}
	if err := os.Rename(other, storeFile); err != nil {
		t.Fatal(err)
	}
	if code, body := httpGet(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz with the store file put back: %d %s", code, body)
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

// TestServeStoreReplacedWhileHeld: a store moved over the file while
// another process (here a second analyze serve) still has the old one
// open is not opened (the other process keeps the write-ahead log named
// after the path), and the server says so at once, every request; the
// first version of the swap spun on it holding its lock, and every
// request hung. Once the other process stops, the new file is read.
//
// The other process is asked for a trace, not /healthz: its /healthz
// starts an integrity check in the background, which, run after the move
// on a busy machine, made it follow the move itself and let go of the old
// file, and the server then rightly opened the new one (200, not 503).
func TestServeStoreReplacedWhileHeld(t *testing.T) {
	oldPath, ids := enrichStore(t)
	t1 := enrichT0.Add(48 * time.Hour)
	newPath, _ := enrichStoreAt(t, t1)
	dir := t.TempDir()
	storeFile := filepath.Join(dir, "faultline.db")
	copyFile(t, oldPath, storeFile)
	base, stop := startServe(t, "--store", storeFile)
	defer stop()
	child, childBase := startChild(t, nil, "--store", storeFile)
	if code, body := httpGet(t, childBase+"/api/v1/trace/"+ids[0]); code != 200 {
		t.Fatalf("the other process: %d %.300s", code, body)
	}
	if !sqlite.HeldElsewhere(storeFile) {
		t.Fatal("the other process does not hold the store file open; the test needs it to")
	}
	other := filepath.Join(dir, "new.db")
	copyFile(t, newPath, other)
	if err := os.Rename(other, storeFile); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		start := time.Now()
		code, body := httpGet(t, base+"/healthz")
		if code != 503 || time.Since(start) > 5*time.Second {
			t.Fatalf("/healthz while another process holds the old file: %d %q after %v, want 503 at once", code, body, time.Since(start))
		}
	}
	if err := child.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	win := fmt.Sprintf("%s/api/v1/incident?from=%s&to=%s", base, t1.Add(-time.Minute).Format(time.RFC3339), t1.Add(10*time.Minute).Format(time.RFC3339))
	if code, body := httpGet(t, win); code != 200 || !strings.Contains(body, "inventory") {
		t.Errorf("the new file's incident once the other process stopped: %d %.300s", code, body)
	}
}
