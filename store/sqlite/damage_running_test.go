package sqlite

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/testenv"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

func synthRecords(n, from int) []schema.Record {
	recs := make([]schema.Record, n)
	base := time.Date(2024, 3, 5, 10, 0, 0, 0, time.UTC)
	for i := range recs {
		k := from + i
		recs[i] = schema.Record{Time: base.Add(time.Duration(k) * time.Millisecond), Service: "svc",
			TraceID: schema.TraceID(fmt.Sprintf("%032x", k+1)), Body: fmt.Sprintf("request %d failed with a long enough message", k)}
	}
	return recs
}

// TestDamageWhileOpen: 200 KiB of noise written into the middle of the
// file of a store that is open (a failing disk) is found by
// CheckIntegrity; from then on writes fail with backend.ErrCorrupt and
// WriteHealth reports it. Before, the store kept taking writes (its
// writer's page cache hid the damage) and /healthz said ok.
func TestDamageWhileOpen(t *testing.T) {
	path := t.TempDir() + "/open.db"
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.WriteBatch(t.Context(), synthRecords(80000, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.w.ExecContext(t.Context(), "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIntegrity(t.Context()); err != nil {
		t.Fatalf("intact store: %v", err)
	}
	testenv.Damage(t, path, 200<<10)
	if err := db.CheckIntegrity(t.Context()); !errors.Is(err, backend.ErrCorrupt) {
		t.Fatalf("CheckIntegrity of a damaged store = %v, want ErrCorrupt", err)
	}
	if err := db.WriteBatch(t.Context(), synthRecords(10, 90000)); !errors.Is(err, backend.ErrCorrupt) || sqliteCode.MatchString(err.Error()) {
		t.Errorf("write after damage was found = %v, want ErrCorrupt in words", err)
	}
	if err := db.WriteHealth(); !errors.Is(err, backend.ErrCorrupt) {
		t.Errorf("WriteHealth = %v, want ErrCorrupt", err)
	}
}
