package sqlite_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store/sqlite"
	"github.com/faultline/faultline/store/storetest"
)

// demoDB is a store holding the demo incident.
func demoDB(t *testing.T) (*sqlite.DB, *sim.Incident) {
	t.Helper()
	inc := storetest.DemoIncident(t)
	db := openTemp(t, sqlite.Options{})
	if err := db.WriteBatch(t.Context(), inc.Records); err != nil {
		t.Fatal(err)
	}
	return db, inc
}

func readAll(t *testing.T, db *sqlite.DB, seq func(func(schema.Record, error) bool)) ([]schema.Record, error) {
	t.Helper()
	var out []schema.Record
	for r, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// TestSampledRecordsAreTheSample: the records a sampled read of the
// embedded store yields are those of the window that the process's hash
// (schema.TraceHash) picks, in the window's order: every alert record and
// record without a trace, the others of the traces in the 1 in k, and of
// the failing traces in the 1 in failK; a sample of more records than the
// read's limit ends with ErrSampleOverLimit after the limit's records.
// WindowSize counts the window's records.
func TestSampledRecordsAreTheSample(t *testing.T) {
	db, inc := demoDB(t)
	from, to := inc.Truth.Window.From, inc.Truth.Window.To
	all, err := readAll(t, db, db.WindowRecords(t.Context(), schema.WindowQuery{From: from, To: to}))
	if err != nil {
		t.Fatal(err)
	}
	failing := map[schema.TraceID]bool{}
	for _, r := range all {
		if r.TraceID != "" && r.IsError() {
			failing[r.TraceID] = true
		}
	}
	if n, _, err := db.WindowSize(t.Context(), from, to); err != nil || n != len(all) {
		t.Errorf("WindowSize = %d, %v; the window holds %d records", n, err, len(all))
	}
	isFailing := func(id schema.TraceID) bool { return failing[id] }
	for _, c := range []struct{ k, failK uint64 }{{4, 1}, {8, 2}, {2, 8}, {16, 16}} {
		want := storetest.SampleOf(all, c.k, c.failK, failing)
		if len(want) == len(all) || len(want) == 0 {
			t.Fatalf("k=%d failK=%d: the sample takes %d of %d records: the case tests nothing", c.k, c.failK, len(want), len(all))
		}
		for _, newest := range []bool{false, true} {
			q := schema.WindowQuery{From: from, To: to, Newest: newest}
			got, err := readAll(t, db, db.SampledRecords(t.Context(), q, c.k, c.failK, isFailing))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, want, storetest.SameRecord) {
				t.Errorf("k=%d failK=%d: the store yields %d records, the process's hash picks %d", c.k, c.failK, len(got), len(want))
			}
		}
		q := schema.WindowQuery{From: from, To: to, Limit: len(want)}
		if got, err := readAll(t, db, db.SampledRecords(t.Context(), q, c.k, c.failK, isFailing)); err != nil || len(got) != len(want) {
			t.Errorf("k=%d failK=%d: a sample of %d records read with that limit gives %d, %v", c.k, c.failK, len(want), len(got), err)
		}
		q.Limit = len(want) - 1
		got, err := readAll(t, db, db.SampledRecords(t.Context(), q, c.k, c.failK, isFailing))
		if !errors.Is(err, schema.ErrSampleOverLimit) || len(got) != q.Limit || !slices.EqualFunc(got, want[:q.Limit], storetest.SameRecord) {
			t.Errorf("k=%d failK=%d: a sample of %d records read with a limit of %d gives %d, %v; want the limit's first, then ErrSampleOverLimit",
				c.k, c.failK, len(want), q.Limit, len(got), err)
		}
	}
}

// TestStoreSampledAnalysis: a window over the sampling budget is sampled
// by the embedded store as it reads (storetest.SampledAnalysis). When the
// sample holds more records than the read's limit, the window is read
// again, sampled by the process, and its newest records kept and told.
func TestStoreSampledAnalysis(t *testing.T) {
	db, inc := demoDB(t)
	storetest.SampleOverLimit(t, db, inc, storetest.SampledAnalysis(t, db, db, inc))
}
