package correlate

import (
	"context"
	"fmt"
	"iter"
	"testing"

	"github.com/faultline/faultline/schema"
)

// countingStore counts the windows read from a windowStore.
type countingStore struct {
	*windowStore
	windows int
}

func (c *countingStore) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	c.windows++
	return c.windowStore.WindowRecords(ctx, q)
}

// TestStoreRulesFollowABreakerOncePerQuantum: traces that gateway's
// breaker refused within one tripQuantum get, through one StoreRules, the
// suspect Analyze gives each of them (payment, what tripped the breaker),
// and the store is read for the first of them only; a refusal in the next
// quantum is followed again.
func TestStoreRulesFollowABreakerOncePerQuantum(t *testing.T) {
	ctx := context.Background()
	st := &countingStore{windowStore: storeAnalyzeFollowsOpenBreakerToTrippingTraces()}
	var ids []schema.TraceID
	for k, ms := range []int{41_000, 43_000, 47_500, 49_900, 52_000} {
		id := fmt.Sprintf("%032x", 0x100+k)
		r := logAt("", "gateway", ms, schema.SeverityError, "failed to call session: hystrix: circuit open")
		r.Attrs = map[string]string{schema.AttrPeerService: "session"}
		st.recs = append(st.recs, inTrace(id, r)...)
		ids = append(ids, schema.TraceID(id))
	}
	rules := NewStoreRules(st, Options{})
	var reads []int
	for _, id := range ids {
		var recs []schema.Record
		for r := range st.TraceRecords(ctx, id, 0) {
			recs = append(recs, r)
		}
		before := st.windows
		got := rules.Apply(ctx, recs, AnalyzeRecords(recs, Options{}))
		reads = append(reads, st.windows-before)
		want, err := Analyze(ctx, st.windowStore, id, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Suspect == nil || want.Suspect == nil || got.Suspect.Service != "payment" || *got.Suspect != *want.Suspect {
			t.Errorf("trace %s: StoreRules gives %+v, Analyze %+v; want payment from both", id, got.Suspect, want.Suspect)
		}
	}
	if reads[0] == 0 || reads[1] != 0 || reads[2] != 0 || reads[3] != 0 || reads[4] == 0 {
		t.Errorf("windows read per trace = %v, want some for the first trace of each quantum (40-50 s, 50-60 s) and none for the others", reads)
	}
}
