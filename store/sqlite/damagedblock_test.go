package sqlite

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// TestDamagedBlockSentence: a block whose bytes changed after they were
// written (SQLite's own check passes) fails a window read with one
// sentence that says so and what helps, once: it used to read "cannot
// read records from A to B: … a record cannot be read: the store file is
// damaged" and advise `sqlite3 .recover`, which cannot help, and the
// analysis prefixed the window again.
func TestDamagedBlockSentence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 3, 5, 10, 0, 0, 0, time.UTC)
	recs := make([]schema.Record, 2000)
	for i := range recs {
		recs[i] = schema.Record{Time: base.Add(time.Duration(i) * time.Millisecond), Service: "svc",
			TraceID: schema.TraceID(fmt.Sprintf("%032x", i+1)), Body: fmt.Sprintf("request %d failed", i)}
	}
	if err := db.WriteBatch(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	// Flip bytes inside the block's compressed data, as a stray write would.
	if _, err := db.w.ExecContext(t.Context(), `UPDATE block_data SET data = substr(data, 1, 40) || randomblob(64) || substr(data, 105)`); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIntegrity(t.Context()); err != nil {
		t.Fatalf("SQLite's check found the damage (%v); the test needs damage only faultline's decoder sees", err)
	}
	var got error
	for _, err := range db.WindowRecords(t.Context(), schema.WindowQuery{From: base, To: base.Add(time.Hour)}) {
		if err != nil {
			got = err
			break
		}
	}
	db.Close()
	if got == nil {
		t.Fatal("the damaged block was read without an error")
	}
	msg := got.Error()
	if !errors.Is(got, backend.ErrCorrupt) || strings.Contains(msg, "cannot read records from") || !strings.Contains(msg, "cannot help") || !strings.Contains(msg, "restore the file from a backup") {
		t.Errorf("window read of a damaged block: %q, want the store's sentence alone (ErrCorrupt), without the window or the .recover advice", msg)
	}
}
