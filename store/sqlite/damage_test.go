package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/testenv"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// sqliteCode is an SQLite result code as the driver's messages end with it.
var sqliteCode = regexp.MustCompile(`\(\d+\)`)

// damagedStore writes 80,000 records to a new store and overwrites 200 KiB
// of its file in the middle with noise, as a failing disk would.
func damagedStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "damaged.db")
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]schema.Record, 80000) // compressed, enough for a file of 3 times the damage
	base := time.Date(2024, 3, 5, 10, 0, 0, 0, time.UTC)
	for i := range recs {
		recs[i] = schema.Record{Time: base.Add(time.Duration(i) * time.Millisecond), Service: "svc",
			TraceID: schema.TraceID(fmt.Sprintf("%032x", i+1)), Body: fmt.Sprintf("request %d failed with a long enough message", i)}
	}
	if err := db.WriteBatch(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	testenv.Damage(t, path, 200<<10)
	return path
}

// TestOpenDamagedStore: a damaged file is found on a writer's open
// (Options.Check: SQLite's quick_check) and reported as backend.ErrCorrupt,
// in a sentence that says how to recover and carries no SQLite result
// code. It used to open, take writes and fail later with "database disk
// image is malformed (11)".
func TestOpenDamagedStore(t *testing.T) {
	path := damagedStore(t)
	db, err := Open(t.Context(), path, Options{Check: true})
	if err == nil {
		db.Close()
		t.Fatal("a damaged store opened read-write without an error")
	}
	if !errors.Is(err, backend.ErrCorrupt) {
		t.Errorf("err = %v, want ErrCorrupt", err)
	}
	if msg := err.Error(); sqliteCode.MatchString(msg) || !regexp.MustCompile(`damaged.*backup`).MatchString(msg) {
		t.Errorf("message %q: want a sentence about damage and recovery, without SQLite codes", msg)
	}
}

// TestDiskFullIsExplained: a write that fails because the disk is full
// (SQLITE_FULL, simulated with max_page_count) is backend.ErrDiskFull in
// a plain sentence, and WriteHealth reports it until a write succeeds.
func TestDiskFullIsExplained(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "full.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if db.WriteHealth() != nil {
		t.Fatal("a new store reports a write failure")
	}
	var pages int64
	db.w.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages)
	if _, err := db.w.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages+2)); err != nil {
		t.Fatal(err)
	}
	big := make([]schema.Record, 2000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		// random ids: records compress, and this batch must not fit in two pages
		big[i] = schema.Record{Time: time.Unix(1700000000, int64(i)), Service: "svc",
			Body: fmt.Sprintf("message number %d of a batch too big to fit, request %016x", i, rng.Uint64())}
	}
	err = db.WriteBatch(ctx, big)
	if !errors.Is(err, backend.ErrDiskFull) || sqliteCode.MatchString(err.Error()) {
		t.Fatalf("write on a full disk: %v, want ErrDiskFull in words", err)
	}
	if h := db.WriteHealth(); !errors.Is(h, backend.ErrDiskFull) {
		t.Errorf("WriteHealth = %v after a disk-full write", h)
	}
	if _, err := db.w.ExecContext(ctx, "PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	if err := db.WriteBatch(ctx, big[:1]); err != nil {
		t.Fatal(err)
	}
	if h := db.WriteHealth(); h != nil {
		t.Errorf("WriteHealth = %v after a write succeeded", h)
	}
}

func TestExplainCodes(t *testing.T) {
	for in, want := range map[string]string{"database disk image is malformed (11)": "database disk image is malformed", "x (y)": "x (y)", "plain": "plain"} {
		if got := stripCode(in); got != want {
			t.Errorf("stripCode(%q) = %q", in, got)
		}
	}
}

// TestNotAStoreIsExplained: a file that is not a database is refused in
// words (ErrCorrupt), without SQLite's "(26)".
func TestNotAStoreIsExplained(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(path, []byte(strings.Repeat("just some text, not a database\n", 200)), 0o644)
	for _, ro := range []bool{false, true} {
		_, err := Open(t.Context(), path, Options{ReadOnly: ro})
		if !errors.Is(err, backend.ErrCorrupt) || sqliteCode.MatchString(err.Error()) || !strings.Contains(err.Error(), "not a faultline store") {
			t.Errorf("read-only %v: %v", ro, err)
		}
	}
}
