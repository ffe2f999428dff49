//go:build linux

package sqlite_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/internal/testenv"
	"github.com/faultline/faultline/store/sqlite"
)

// envHoldPath makes TestInUse, re-executed as a child, hold the store at
// that path open until its standard input closes. POSIX locks belong to a
// process, so only another process can show InUse what a running
// `analyze serve` looks like.
const envHoldPath = "FAULTLINE_SQLITE_TEST_HOLD"

func TestInUse(t *testing.T) {
	if path := os.Getenv(envHoldPath); path != "" {
		holdOpen(t, path)
		return
	}
	path := filepath.Join(t.TempDir(), "s.db")
	assertInUse(t, path, false, "before the store exists")
	db := openAt(t, path, sqlite.Options{})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	assertInUse(t, path, false, "after this process closed it")

	stop := testenv.StartChild(t, "TestInUse", envHoldPath+"="+path, "holding the store open")
	assertInUse(t, path, true, "while another process has it open")
	stop(false)
	assertInUse(t, path, false, "after that process closed it and exited")

	stop = testenv.StartChild(t, "TestInUse", envHoldPath+"="+path, "holding the store open")
	assertInUse(t, path, true, "while another process has it open again")
	stop(true)
	if _, err := os.Stat(path + "-shm"); err != nil {
		t.Logf("no -shm file left by the killed process (%v); the stale case is not covered", err)
	}
	assertInUse(t, path, false, "after that process was killed")
}

func assertInUse(t *testing.T, path string, want bool, when string) {
	t.Helper()
	got, err := sqlite.InUse(path)
	if err != nil || got != want {
		t.Fatalf("%s: InUse = %v, %v; want %v", when, got, err, want)
	}
}

// holdOpen is the child's side: open the store, say so on stdout, and
// keep it open until standard input closes.
func holdOpen(t *testing.T, path string) {
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("holding the store open\n")
	io.Copy(io.Discard, os.Stdin)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
