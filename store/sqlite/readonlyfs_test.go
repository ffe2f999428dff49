package sqlite_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/store/sqlite"
)

// envReaderPath makes the test binary the reader of TestReadOnlyFiles:
// it opens the store read-only, prints its record count and the records
// of one trace, and exits 0 (1 with the error on stderr).
const envReaderPath = "FAULTLINE_SQLITE_TEST_READER"

func runReader(path string) int {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	n := 0
	for _, err := range db.TraceRecords(ctx, procTrace, 0) {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		n++
	}
	fmt.Println(n)
	return 0
}

// TestReadOnlyFiles: a store whose file (0444) and directory (0555) are
// read-only, as on a read-only file system or a mounted backup, opens
// read-only and reads back what was written. SQLite in WAL mode needs to
// create the -shm file next to the database, which it cannot there.
// The reader runs as another process, as user nobody when this one is
// root (root ignores file modes).
func TestReadOnlyFiles(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ro")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "store.db")
	if err := runWriter(path, 2); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path + "-wal", path + "-shm"} {
		if _, err := os.Stat(p); err == nil {
			t.Logf("%s left behind", filepath.Base(p))
		}
	}
	bin := filepath.Join(base, "reader.test")
	copyFile(t, os.Args[0], bin)
	os.Chmod(path, 0o444)
	os.Chmod(dir, 0o555)
	os.Chmod(base, 0o755)
	os.Chmod(filepath.Dir(base), 0o755) // the test's temporary root, for user nobody
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), envReaderPath+"="+path)
	if os.Getuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	go func() { done <- cmd.Run() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("read-only open of a read-only file in a read-only directory: %v: %s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the reader hung")
	}
	if got := strings.TrimSpace(stdout.String()); got != fmt.Sprint(2*procBatchSize) {
		t.Errorf("the reader saw %q records, want %d", got, 2*procBatchSize)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
}
