package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/sqlite"
)

// holdWriteLock takes the file's write lock from another connection, as
// another process would, until the returned func is called.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	raw := rawDB(t, path)
	conn, err := raw.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
	}
}

// TestWithdrawOnCancel: a batch whose context ends while it waits behind
// a locked writer is withdrawn (an error, and never written), while the
// batch already in the blocked transaction is written once the lock goes.
func TestWithdrawOnCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	db := openAt(t, path, sqlite.Options{})
	release := holdWriteLock(t, path)

	first := make(chan error, 1)
	go func() {
		first <- db.WriteBatch(context.Background(), []schema.Record{rec("first", traceA, time.Now())})
	}()
	time.Sleep(200 * time.Millisecond) // the group writer now waits on the lock with "first"
	traceB := schema.TraceID("5bf92f3577b34da6a3ce929d0e0e4736")
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	err := db.WriteBatch(ctx, []schema.Record{rec("second", traceB, time.Now())})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the queued batch: err = %v, want DeadlineExceeded", err)
	}
	release()
	if err := <-first; err != nil {
		t.Fatalf("the batch in the blocked transaction: %v", err)
	}
	if n := count(t, db, traceA); n != 1 {
		t.Errorf("the first batch has %d records visible, want 1", n)
	}
	if n := count(t, db, traceB); n != 0 {
		t.Errorf("the withdrawn batch has %d records visible, want 0", n)
	}
}

// TestBusyTimeout: when another process holds the lock longer than the
// busy timeout, the write fails with an error and writes nothing; it
// succeeds once the lock is free.
func TestBusyTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.db")
	db := openAt(t, path, sqlite.Options{BusyTimeout: 100 * time.Millisecond})
	release := holdWriteLock(t, path)
	recs := []schema.Record{rec("a", traceA, time.Now()), rec("b", traceA, time.Now())}
	if err := db.WriteBatch(t.Context(), recs); err == nil {
		t.Fatal("a write against a held lock succeeded")
	}
	release()
	if n := count(t, db, traceA); n != 0 {
		t.Errorf("%d records of the failed batch are visible", n)
	}
	if err := db.WriteBatch(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, traceA); n != 2 {
		t.Errorf("%d records visible after the retry, want 2", n)
	}
}

// TestGroupCommit writes from many goroutines at once; every batch lands
// whole and the record counter matches.
func TestGroupCommit(t *testing.T) {
	db := openAt(t, filepath.Join(t.TempDir(), "g.db"), sqlite.Options{})
	const writers, batches, size = 8, 20, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := schema.TraceID("00000000000000000000000000000a0" + strconv.Itoa(w))
			for b := range batches {
				recs := make([]schema.Record, size)
				for i := range recs {
					recs[i] = rec(strconv.Itoa(b), id, time.Now())
				}
				if err := db.WriteBatch(t.Context(), recs); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for w := range writers {
		id := schema.TraceID("00000000000000000000000000000a0" + strconv.Itoa(w))
		if n := count(t, db, id); n != batches*size {
			t.Errorf("writer %d: %d records, want %d", w, n, batches*size)
		}
	}
	st, err := db.Stats(t.Context())
	if err != nil || st.Records != writers*batches*size {
		t.Errorf("Stats.Records = %d (%v), want %d", st.Records, err, writers*batches*size)
	}
}
