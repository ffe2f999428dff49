package rootcause

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// countedStore is a memStore that counts a window's records before it is
// read (as the embedded store and ClickHouse do), off by skew, and notes
// the reads of each stretch before the window (the baseline's).
type countedStore struct {
	memStore
	from   time.Time // the window's start
	skew   int
	server bool // ReadsOnServer

	mu        sync.Mutex
	baseReads int
}

func (c *countedStore) WindowSize(_ context.Context, from, to time.Time) (int, int, error) {
	n := 0
	for _, r := range c.recs {
		if !r.Time.Before(from) && r.Time.Before(to) {
			n++
		}
	}
	return n + c.skew, 0, nil
}

func (c *countedStore) SampledRecords(ctx context.Context, q schema.WindowQuery, _, _ uint64, _ func(schema.TraceID) bool) iter.Seq2[schema.Record, error] {
	return c.WindowRecords(ctx, q)
}

func (c *countedStore) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	if q.To.Equal(c.from) && !q.ErrorsOnly {
		c.mu.Lock()
		c.baseReads++
		c.mu.Unlock()
	}
	return c.memStore.WindowRecords(ctx, q)
}

func (c *countedStore) ReadsOnServer() bool { return c.server }

// TestEarlyBaseline: a window the store counts has its baseline read while
// the window is, and the report is the one a baseline read after the
// window gives. When the window's read finds other than the store counted
// (records taken in between), the early read is let go and the baseline read
// again for the size found; a store whose reads run on its server is
// not read early (earlyBase).
func TestEarlyBaseline(t *testing.T) {
	in := newIncident()
	recs := slices.Concat(in.base, in.win)
	slices.SortStableFunc(recs, func(a, b schema.Record) int { return a.Time.Compare(b.Time) })
	q := Query{From: in.from, To: in.to}
	want, err := Analyze(context.Background(), &memStore{recs: recs}, q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		skew   int
		server bool
		early  bool
	}{
		{name: "counted", early: true},
		{name: "counted other than read", skew: 1, early: true},
		{name: "on its server", server: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &countedStore{memStore: memStore{recs: recs}, from: in.from, skew: tc.skew, server: tc.server}
			none := func(context.Context, baseSize) (*loaded, error) { return nil, context.Canceled }
			e := earlyBase(context.Background(), st, len(in.win)+tc.skew, false, q, Options{}.withDefaults(), none)
			if (e != nil) != tc.early {
				t.Fatalf("earlyBase began a read: %v, want %v", e != nil, tc.early)
			}
			if e != nil {
				e.stop()
				e.bp.get()
			}
			st.baseReads = 0
			got, err := Analyze(context.Background(), st, q, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if a, b := mustJSON(t, got), mustJSON(t, want); a != b {
				t.Fatalf("report differs from the one of a baseline read after the window:\n%s\nwant\n%s", a, b)
			}
			reads := 1
			if tc.skew != 0 {
				reads = 2 // the early read, let go, and the one for the size found
			}
			if st.baseReads != reads {
				t.Fatalf("the baseline's stretch was read %d times, want %d", st.baseReads, reads)
			}
		})
	}
}

func mustJSON(t *testing.T, rep *Report) string {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
