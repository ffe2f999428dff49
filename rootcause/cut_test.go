package rootcause_test

import (
	"context"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
)

// TestWindowCutIsTold: a window holding more than the record limit keeps
// its newest records (the incident is at its end): the records read are
// the last ones of the window, and the report says so, naming the limit,
// from when the records were read and what part of the window is left
// out; it says nothing when the window fits.
func TestWindowCutIsTold(t *testing.T) {
	ctx := context.Background()
	db, q := simStore(t, sim.Config{Seed: 91, Fault: sim.FaultKinds()[0], Baseline: 3 * time.Minute,
		Window: 3 * time.Minute, TracesPerSecond: 2})
	whole, err := rootcause.Analyze(ctx, db, q, rootcause.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range whole.Warnings {
		if strings.Contains(w, "is not in this analysis") {
			t.Fatalf("a window that fits is reported cut: %q", w)
		}
	}
	var all []time.Time
	for r, err := range db.WindowRecords(ctx, schema.WindowQuery{From: q.From, To: q.To}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r.Time)
	}
	if len(all) <= 200 {
		t.Fatalf("the simulated window holds %d records; the test needs more than 200", len(all))
	}
	rec := &windowReads{Store: db, from: q.From}
	cut, err := rootcause.Analyze(ctx, rec, q, rootcause.Options{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.times) != 200 || !rec.times[0].Equal(all[len(all)-200]) || !rec.times[199].Equal(all[len(all)-1]) {
		t.Fatalf("the cut window read %d records from %s to %s; want the newest 200, from %s to %s",
			len(rec.times), rec.times[0], rec.times[len(rec.times)-1], all[len(all)-200], all[len(all)-1])
	}
	first := all[len(all)-200].UTC().Format(time.RFC3339)
	found := ""
	for _, w := range cut.Warnings {
		if strings.Contains(w, "more than 200 records") && strings.Contains(w, "only the newest 200, from "+first) &&
			strings.Contains(w, q.From.UTC().Format(time.RFC3339)+" to "+first+" is not in this analysis") {
			found = w
		}
	}
	if found == "" {
		t.Fatalf("a window cut at 200 records is not told with its numbers (newest 200 from %s): warnings %q", first, cut.Warnings)
	}
}

// windowReads records the times of the records the analysis reads of the
// window starting at from (not of its baseline).
type windowReads struct {
	rootcause.Store
	from  time.Time
	times []time.Time
}

func (w *windowReads) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		for r, err := range w.Store.WindowRecords(ctx, q) {
			if err == nil && q.From.Equal(w.from) && !q.ErrorsOnly {
				w.times = append(w.times, r.Time)
			}
			if !yield(r, err) {
				return
			}
		}
	}
}
