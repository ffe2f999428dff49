package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// TestNewestIsTheTailOfTheRead: a read of the newest records of a window
// over its limit yields exactly the last limit records a whole read of
// the window yields, in its order, whether the window's edges cut through
// blocks or not, with and without a service, with ties of time (across
// batches and within one) at the cut.
func TestNewestIsTheTailOfTheRead(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "n.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Four batches whose times interleave, two records a millisecond in
	// each (a tie within a batch and across batches), two services.
	for b := range 4 {
		var recs []schema.Record
		for i := range 200 {
			at := blockBase.Add(time.Duration(i/2*4+b%3) * time.Millisecond)
			recs = append(recs, schema.Record{Time: at, TraceID: schema.TraceID(fmt.Sprintf("%032x", i)),
				Service: fmt.Sprintf("svc-%d", (i+b)%2), Severity: schema.SeverityInfo, Body: fmt.Sprintf("b%d-r%d", b, i)})
		}
		if err := db.WriteBatch(t.Context(), recs); err != nil {
			t.Fatal(err)
		}
	}
	ms := func(n int) time.Time { return blockBase.Add(time.Duration(n) * time.Millisecond) }
	for _, c := range []struct {
		from, to time.Time
		service  string
	}{
		{ms(0), ms(1000), ""}, // every block inside the window
		{ms(37), ms(301), ""}, // edges through every block
		{ms(0), ms(1000), "svc-1"},
		{ms(37), ms(301), "svc-0"},
	} {
		whole := collect(t, db.WindowRecords(t.Context(), schema.WindowQuery{From: c.from, To: c.to, Service: c.service, Limit: 1 << 20}))
		for _, limit := range []int{1, 7, len(whole) / 3, len(whole) - 1, len(whole), len(whole) + 5} {
			got := collect(t, db.WindowRecords(t.Context(), schema.WindowQuery{From: c.from, To: c.to, Service: c.service, Newest: true, Limit: limit}))
			want := whole[max(len(whole)-limit, 0):]
			if len(got) != len(want) {
				t.Fatalf("[%s, %s) %q newest %d of %d: %d records", c.from.Sub(blockBase), c.to.Sub(blockBase), c.service, limit, len(whole), len(got))
			}
			for i := range got {
				if got[i].Body != want[i].Body {
					t.Fatalf("[%s, %s) %q newest %d: record %d is %s, want %s", c.from.Sub(blockBase), c.to.Sub(blockBase), c.service, limit, i, got[i].Body, want[i].Body)
				}
			}
		}
	}
}

// TestNewestLeavesOlderBlocksUnread: of a window written over time (a
// batch after another, each its own block), a read of its newest records
// reads the blocks that hold them and those across the cut, not the
// blocks that hold none but older records: it decodes a few blocks where
// a whole read decodes every one, and yields the same records.
func TestNewestLeavesOlderBlocksUnread(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "n.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const batches, each = 40, 50
	for b := range batches {
		var recs []schema.Record
		for i := range each {
			at := blockBase.Add(time.Duration(b*each+i) * time.Millisecond)
			if b%10 == 9 && i == 0 {
				at = at.Add(-3 * time.Millisecond) // a batch that reaches into the one before
			}
			recs = append(recs, schema.Record{Time: at, TraceID: schema.TraceID(fmt.Sprintf("%032x", b*each+i)),
				Service: "svc", Severity: schema.SeverityInfo, Body: fmt.Sprintf("b%d-r%d", b, i)})
		}
		if err := db.WriteBatch(t.Context(), recs); err != nil {
			t.Fatal(err)
		}
	}
	from, to := blockBase, blockBase.Add(time.Hour)
	decoded := func() int64 { return db.zstd.decoded.Load() }
	start := decoded()
	whole := collect(t, db.WindowRecords(t.Context(), schema.WindowQuery{From: from, To: to, Limit: 1 << 20}))
	all := decoded() - start
	if len(whole) != batches*each || all < batches {
		t.Fatalf("a whole read: %d records from %d blocks; want %d from %d or more", len(whole), all, batches*each, batches)
	}
	for _, limit := range []int{1, each * 3, each*3 + 7, each*10 - 1} {
		start := decoded()
		got := collect(t, db.WindowRecords(t.Context(), schema.WindowQuery{From: from, To: to, Newest: true, Limit: limit}))
		n := decoded() - start
		want := whole[len(whole)-limit:]
		if len(got) != len(want) {
			t.Fatalf("newest %d: %d records", limit, len(got))
		}
		for i := range got {
			if got[i].Body != want[i].Body {
				t.Fatalf("newest %d: record %d is %s, want %s", limit, i, got[i].Body, want[i].Body)
			}
		}
		if most := int64(limit/each + 4); n > most {
			t.Errorf("newest %d of %d blocks of %d: %d blocks decoded, want at most %d", limit, batches, each, n, most)
		}
	}
}
