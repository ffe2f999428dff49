package rootcause_test

import (
	"context"
	"encoding/json"
	"iter"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store/sqlite"
)

// allAttrs is a store that ignores WindowQuery.Attrs and returns every
// attribute.
type allAttrs struct{ *sqlite.DB }

func (s allAttrs) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	q.Attrs = nil
	return s.DB.WindowRecords(ctx, q)
}

// TestAttrProjection checks that asking the store for just AttrKeys changes
// nothing: an attribute the analysis reads but AttrKeys leaves out would
// read as empty and change the report. Every fault kind of the simulator
// runs, since each exercises other attributes (peer names, status codes,
// messaging, versions).
func TestAttrProjection(t *testing.T) {
	ctx := context.Background()
	for i, k := range sim.FaultKinds() {
		db, q := simStore(t, sim.Config{Seed: int64(700 + i), Fault: k, Baseline: 5 * time.Minute,
			Window: 3 * time.Minute, TracesPerSecond: 2})
		projected, err := rootcause.Analyze(ctx, db, q, rootcause.Options{})
		if err != nil {
			t.Fatal(err)
		}
		whole, err := rootcause.Analyze(ctx, allAttrs{db}, q, rootcause.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(projected)
		b, _ := json.Marshal(whole)
		if string(a) != string(b) {
			t.Errorf("%s: the report with AttrKeys differs from the one with every attribute:\n%s\n%s", k, a, b)
		}
		if len(whole.Candidates) == 0 {
			t.Errorf("%s: no candidates", k)
		}
		db.Close()
	}
}

// simStore writes a simulated incident into an embedded store in a test
// folder and returns the store and the incident's window.
func simStore(t *testing.T, cfg sim.Config) (*sqlite.DB, rootcause.Query) {
	t.Helper()
	ctx := context.Background()
	inc, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.WriteBatch(ctx, inc.Records); err != nil {
		t.Fatal(err)
	}
	return db, rootcause.Query{From: inc.Truth.Window.From, To: inc.Truth.Window.To}
}
