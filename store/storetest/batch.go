package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

func testEmptyBatch(t *testing.T, s store.Store, e *env) {
	if err := s.WriteBatch(e.ctx, nil); err != nil {
		t.Errorf("a nil batch: %v", err)
	}
	if err := s.WriteBatch(e.ctx, []schema.Record{}); err != nil {
		t.Errorf("an empty batch: %v", err)
	}
}

// testAllOrNothingBad writes a batch whose last record has a time no
// backend can hold (year 3000): the batch fails and none of it is visible.
func testAllOrNothingBad(t *testing.T, s store.Store, e *env) {
	id, svc := e.traceID(t), e.service("atomic")
	recs := make([]schema.Record, 50)
	for i := range recs {
		recs[i] = schema.Record{Time: e.at(time.Duration(i) * time.Millisecond), TraceID: id, Service: svc, Body: "good"}
	}
	recs = append(recs, schema.Record{Time: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), TraceID: id, Service: svc, Body: "bad"})
	err := s.WriteBatch(e.ctx, recs)
	if err == nil {
		t.Fatal("a batch with a record in the year 3000 was accepted")
	}
	if !errors.Is(err, store.ErrBadRecord) {
		t.Errorf("the error %q does not wrap store.ErrBadRecord", err)
	}
	if got := collect(t, s.TraceRecords(e.ctx, id, 0)); len(got) != 0 {
		t.Errorf("%d records of the refused batch are visible", len(got))
	}
	write(t, s, e, recs[:50])
	if got := collect(t, s.TraceRecords(e.ctx, id, 0)); len(got) != 50 {
		t.Errorf("after writing the good part, %d records are visible, want 50", len(got))
	}
}

// testAllOrNothingCanceled writes with a canceled context: an error, and
// nothing visible.
func testAllOrNothingCanceled(t *testing.T, s store.Store, e *env) {
	id, svc := e.traceID(t), e.service("canceled")
	recs := make([]schema.Record, 1000)
	for i := range recs {
		recs[i] = schema.Record{Time: e.at(time.Duration(i)), TraceID: id, Service: svc, Body: "x"}
	}
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if err := s.WriteBatch(ctx, recs); err == nil {
		t.Fatal("WriteBatch with a canceled context returned nil")
	}
	if got := collect(t, s.TraceRecords(e.ctx, id, 0)); len(got) != 0 {
		t.Errorf("%d records of the canceled batch are visible", len(got))
	}
}

func testDeleteBefore(t *testing.T, s store.Store, e *env) {
	id, svc := e.traceID(t), e.service("retention")
	var recs []schema.Record
	for i := range 20 {
		recs = append(recs, schema.Record{Time: e.at(time.Duration(i) * time.Minute), TraceID: id, Service: svc, Body: "r"})
	}
	write(t, s, e, recs)
	cut := e.at(10 * time.Minute)
	n, err := s.DeleteBefore(e.ctx, cut)
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Errorf("DeleteBefore reported %d deletions, want at least our 10", n)
	}
	left := collect(t, s.TraceRecords(e.ctx, id, 0))
	if len(left) != 10 {
		t.Fatalf("%d records left, want 10", len(left))
	}
	for _, r := range left {
		if r.Time.Before(cut) {
			t.Errorf("a record at %s survived DeleteBefore(%s)", r.Time, cut)
		}
	}
	q := schema.WindowQuery{From: e.at(-time.Hour), To: e.at(time.Hour), Service: svc}
	if got := collect(t, s.WindowRecords(e.ctx, q)); len(got) != 10 {
		t.Errorf("the window holds %d records after retention, want 10", len(got))
	}
	if _, err := s.DeleteBefore(e.ctx, cut); err != nil {
		t.Errorf("a second DeleteBefore: %v", err)
	}
	if got := collect(t, s.TraceRecords(e.ctx, id, 0)); len(got) != 10 {
		t.Errorf("a second DeleteBefore left %d records, want 10", len(got))
	}
}

func testBoundsAndStats(t *testing.T, s store.Store, e *env) {
	svc := e.service("bounds")
	lo, hi := e.at(time.Second), e.at(time.Hour+123)
	write(t, s, e, []schema.Record{
		{Time: hi, Service: svc, Body: "hi"},
		{Time: lo, Service: svc, Body: "lo"},
	})
	first, last, err := s.Bounds(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.After(lo) || last.Before(hi) {
		t.Errorf("Bounds = [%s, %s] does not cover the written [%s, %s]", first, last, lo, hi)
	}
	st, err := s.Stats(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend == "" || st.Records < 2 || st.SchemaVersion < 1 {
		t.Errorf("Stats = %+v: want a backend name, at least 2 records and a schema version", st)
	}
	if !st.First.Equal(first) || !st.Last.Equal(last) {
		t.Errorf("Stats range [%s, %s] differs from Bounds [%s, %s]", st.First, st.Last, first, last)
	}
}
