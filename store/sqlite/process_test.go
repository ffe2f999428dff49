package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/sqlite"
)

// The writer process of TestSeparateProcesses: the test binary re-executed
// with these variables set.
const (
	envWriterPath    = "FAULTLINE_SQLITE_TEST_WRITER"
	envWriterBatches = "FAULTLINE_SQLITE_TEST_BATCHES"
	procBatchSize    = 500
	procBatches      = 120
	procService      = "proc-writer"
)

var procTrace = schema.TraceID("0af7651916cd43dd8448eb211c80319c")

func TestMain(m *testing.M) {
	if path := os.Getenv(envReaderPath); path != "" {
		os.Exit(runReader(path))
	}
	if path := os.Getenv(envWriterPath); path != "" {
		n, _ := strconv.Atoi(os.Getenv(envWriterBatches))
		if err := runWriter(path, n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runWriter writes n batches of procBatchSize records to the store at
// path, one trace, every record an error, times increasing.
func runWriter(path string, n int) error {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return err
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for b := range n {
		recs := make([]schema.Record, procBatchSize)
		for i := range recs {
			k := b*procBatchSize + i
			recs[i] = schema.Record{
				Time: base.Add(time.Duration(k) * time.Millisecond), TraceID: procTrace, Service: procService,
				Severity: schema.SeverityError, Body: "record " + strconv.Itoa(k) + strings.Repeat(" padding", 20),
				Attrs: map[string]string{"batch": strconv.Itoa(b)},
			}
		}
		if err := db.WriteBatch(ctx, recs); err != nil {
			return errors.Join(err, db.Close())
		}
	}
	return db.Close()
}

// TestSeparateProcesses runs a writer in another OS process while this
// process reads the same file with read-only handles and writes documents
// through a read-write handle of its own. No reader or writer may fail
// (in particular with SQLITE_BUSY), and readers see only whole batches.
func TestSeparateProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	rw := openAt(t, path, sqlite.Options{})
	ro := openAt(t, path, sqlite.Options{ReadOnly: true})

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envWriterPath+"="+path, envWriterBatches+"="+strconv.Itoa(procBatches))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	var seen [3]readStats
	for r := range seen {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- readWholeBatches(t.Context(), ro, r%2 == 0, stop, &seen[r]) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); errs <- writeDocs(t.Context(), rw, stop) }()

	werr := <-done
	close(stop)
	wg.Wait()
	close(errs)
	if werr != nil {
		t.Fatalf("the writer process failed: %v: %s", werr, stderr.String())
	}
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	midway := 0
	for r, st := range seen {
		t.Logf("reader %d: %d reads, %d while the writer was midway", r, st.reads, st.midway)
		midway += st.midway
	}
	if midway == 0 {
		t.Error("no reader ever read while the writer was midway: the test did not test concurrency")
	}
	n, err := countTrace(t.Context(), ro)
	if err != nil || n != procBatches*procBatchSize {
		t.Errorf("after the writer exited: %d records (%v), want %d", n, err, procBatches*procBatchSize)
	}
}

func openAt(t *testing.T, path string, opts sqlite.Options) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// readStats counts a reader's reads, and those that saw some but not all
// of the writer's batches.
type readStats struct{ reads, midway int }

// readWholeBatches reads until stop, checking counts.
func readWholeBatches(ctx context.Context, db *sqlite.DB, byTrace bool, stop <-chan struct{}, st *readStats) error {
	last := 0
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		n, err := countTrace(ctx, db)
		if !byTrace {
			n, err = countWindow(ctx, db)
		}
		st.reads++
		switch {
		case err != nil:
			return fmt.Errorf("read %d: %w", st.reads, err)
		case n%procBatchSize != 0:
			return fmt.Errorf("read %d saw %d records: not whole batches of %d", st.reads, n, procBatchSize)
		case n < last:
			return fmt.Errorf("read %d saw %d records after %d", st.reads, n, last)
		}
		if n > 0 && n < procBatches*procBatchSize {
			st.midway++
		}
		last = n
	}
}

func countTrace(ctx context.Context, db *sqlite.DB) (int, error) {
	n := 0
	for _, err := range db.TraceRecords(ctx, procTrace, 0) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func countWindow(ctx context.Context, db *sqlite.DB) (int, error) {
	q := schema.WindowQuery{From: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
		Service: procService, ErrorsOnly: true}
	n := 0
	for _, err := range db.WindowRecords(ctx, q) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// writeDocs is a second writer (this process) competing for the write lock.
func writeDocs(ctx context.Context, db *sqlite.DB, stop <-chan struct{}) error {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return nil
		default:
		}
		id := strconv.Itoa(i % 10)
		if err := db.PutDoc(ctx, "slack", id, []byte("state "+strconv.Itoa(i))); err != nil {
			return err
		}
		if _, err := db.GetDoc(ctx, "slack", id); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}
