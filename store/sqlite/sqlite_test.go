package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
	"github.com/faultline/faultline/store/sqlite"
)

func rec(body string, id schema.TraceID, at time.Time) schema.Record {
	return schema.Record{Time: at, TraceID: id, Service: "svc", Severity: schema.SeverityError, Body: body}
}

const traceA = schema.TraceID("4bf92f3577b34da6a3ce929d0e0e4736")

func count(t *testing.T, db *sqlite.DB, id schema.TraceID) int {
	t.Helper()
	n := 0
	for _, err := range db.TraceRecords(t.Context(), id, 0) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ro.db")
	if _, err := sqlite.Open(t.Context(), path, sqlite.Options{ReadOnly: true}); !errors.Is(err, backend.ErrNoStore) {
		t.Fatalf("read-only open of a missing file: err = %v, want ErrNoStore", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a read-only open created the file")
	}
	rw := openAt(t, path, sqlite.Options{})
	if err := rw.WriteBatch(t.Context(), []schema.Record{rec("x", traceA, time.Now())}); err != nil {
		t.Fatal(err)
	}
	ro := openAt(t, path, sqlite.Options{ReadOnly: true})
	if n := count(t, ro, traceA); n != 1 {
		t.Errorf("the read-only handle sees %d records, want 1", n)
	}
	ctx := t.Context()
	for name, err := range map[string]error{
		"WriteBatch":   ro.WriteBatch(ctx, []schema.Record{rec("y", traceA, time.Now())}),
		"PutDoc":       ro.PutDoc(ctx, "k", "i", []byte("d")),
		"DeleteBefore": second(ro.DeleteBefore(ctx, time.Now())),
	} {
		if !errors.Is(err, backend.ErrReadOnly) {
			t.Errorf("%s on a read-only store: err = %v, want ErrReadOnly", name, err)
		}
	}
	st, err := ro.Stats(ctx)
	if err != nil || !st.ReadOnly || st.Records != 1 {
		t.Errorf("Stats = %+v, %v; want read-only with 1 record", st, err)
	}
}

func second[T any](_ T, err error) error { return err }

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("this is not a database\n", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		path string
		opts sqlite.Options
		want string
	}{
		"garbage":          {garbage, sqlite.Options{}, "not a faultline store"},
		"garbage readonly": {garbage, sqlite.Options{ReadOnly: true}, "not a faultline store"},
		"directory":        {dir, sqlite.Options{}, "directory"},
		"empty path":       {"", sqlite.Options{}, "empty"},
		"missing parent":   {filepath.Join(dir, "no", "such", "dir.db"), sqlite.Options{}, "cannot open store"},
	} {
		t.Run(name, func(t *testing.T) {
			db, err := sqlite.Open(t.Context(), c.path, c.opts)
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "cannot open store ") || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line starting with \"cannot open store\" that mentions %q", msg, c.want)
			}
		})
	}
}

func TestSchemaVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.db")
	db := openAt(t, path, sqlite.Options{})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if v := userVersion(t, path); v != sqlite.SchemaVersion() {
		t.Fatalf("user_version = %d, want %d", v, sqlite.SchemaVersion())
	}
	// Reopening migrates nothing and keeps the data usable.
	db = openAt(t, path, sqlite.Options{})
	if err := db.WriteBatch(t.Context(), []schema.Record{rec("x", traceA, time.Now())}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// A file of version 2 (blocks of one frame) is read as it is, and a
	// writer's open brings it to the current version.
	setUserVersion(t, path, 2)
	ro, err := sqlite.Open(t.Context(), path, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("a read-only open of version 2: %v", err)
	}
	var n int
	for _, err := range ro.TraceRecords(t.Context(), traceA, 0) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	ro.Close()
	if n != 1 {
		t.Errorf("a read-only open of version 2 reads %d records of the trace, want 1", n)
	}
	openAt(t, path, sqlite.Options{}).Close()
	if v := userVersion(t, path); v != sqlite.SchemaVersion() {
		t.Errorf("a writer's open of version 2 leaves user_version %d, want %d", v, sqlite.SchemaVersion())
	}

	setUserVersion(t, path, sqlite.SchemaVersion()+1)
	for _, ro := range []bool{false, true} {
		if _, err := sqlite.Open(t.Context(), path, sqlite.Options{ReadOnly: ro}); !errors.Is(err, backend.ErrSchemaVersion) || !strings.Contains(err.Error(), "newer") {
			t.Errorf("a newer schema (read-only %v): err = %v, want ErrSchemaVersion saying newer", ro, err)
		}
	}
	setUserVersion(t, path, 0)
	if _, err := sqlite.Open(t.Context(), path, sqlite.Options{ReadOnly: true}); !errors.Is(err, backend.ErrSchemaVersion) {
		t.Errorf("a read-only open of an older schema: err = %v, want ErrSchemaVersion", err)
	}
}

// TestConcurrentCreate opens a new file from several handles at once:
// every migration step must run exactly once and every open succeed.
func TestConcurrentCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := sqlite.Open(t.Context(), path, sqlite.Options{})
			if err == nil {
				err = db.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if v := userVersion(t, path); v != sqlite.SchemaVersion() {
		t.Errorf("user_version = %d, want %d", v, sqlite.SchemaVersion())
	}
}

// rawDB opens the file with the plain driver, as another program would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}

func userVersion(t *testing.T, path string) int {
	t.Helper()
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func setUserVersion(t *testing.T, path string, v int) {
	t.Helper()
	if _, err := rawDB(t, path).Exec("PRAGMA user_version = " + strconv.Itoa(v)); err != nil {
		t.Fatal(err)
	}
}

func TestClose(t *testing.T) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Writers racing Close either succeed or fail with ErrClosed; none hangs.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := db.WriteBatch(context.Background(), []schema.Record{rec(strconv.Itoa(i), traceA, time.Now())})
			if err != nil && !errors.Is(err, backend.ErrClosed) {
				t.Errorf("a write racing Close: %v", err)
			}
		}()
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := db.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if err := db.WriteBatch(t.Context(), []schema.Record{rec("late", traceA, time.Now())}); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("WriteBatch after Close: err = %v, want ErrClosed", err)
	}
	for _, err := range db.TraceRecords(t.Context(), traceA, 0) {
		if !errors.Is(err, backend.ErrClosed) {
			t.Errorf("TraceRecords after Close: err = %v, want ErrClosed", err)
		}
	}
}

// TestZeroTimeAndClamping: a record without a time is kept and found, is
// left out of Bounds, and query bounds beyond what can be stored clamp.
func TestZeroTimeAndClamping(t *testing.T) {
	db := openAt(t, filepath.Join(t.TempDir(), "z.db"), sqlite.Options{})
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	odd := schema.TraceID("ABC-not-normalised")
	recs := []schema.Record{rec("timeless", odd, time.Time{}), rec("now", traceA, now)}
	if err := db.WriteBatch(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	for r, err := range db.TraceRecords(t.Context(), odd, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if !r.Time.IsZero() || r.Body != "timeless" || r.TraceID != odd {
			t.Errorf("the timeless record came back as %+v", r)
		}
	}
	if n := count(t, db, odd); n != 1 {
		t.Errorf("the trace with a non-canonical id has %d records, want 1", n)
	}
	first, last, err := db.Bounds(t.Context())
	if err != nil || !first.Equal(now) || !last.Equal(now) {
		t.Errorf("Bounds = %s, %s, %v; want both %s", first, last, err, now)
	}
	far := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	for _, err := range db.WindowRecords(t.Context(), schema.WindowQuery{To: far}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("the window [zero, year 3000) holds %d records, want 2", n)
	}
	if n, err := db.DeleteBefore(t.Context(), far); err != nil || n != 2 {
		t.Errorf("DeleteBefore(year 3000) = %d, %v; want 2", n, err)
	}
	if first, _, _ := db.Bounds(t.Context()); !first.IsZero() {
		t.Errorf("an empty store has Bounds starting %s", first)
	}
}
