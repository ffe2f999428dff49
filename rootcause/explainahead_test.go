package rootcause

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// TestEachExplained: the held traces come in each's order, each with its
// own analysis when it holds an error (nil when not), and the buffers the
// loop gave back are not the records of a trace it is yet to be given; a
// panic of the analysis, made on another goroutine, is the loop's.
func TestEachExplained(t *testing.T) {
	in := newIncident()
	l := profile(in.win, in.from, in.to, 0, true)
	var want [][]schema.Record
	l.each(func(recs []schema.Record) { want = append(want, slices.Clone(recs)) })
	if len(want) <= aheadTraces {
		t.Fatalf("%d traces: too few to fill the traces made ahead", len(want))
	}
	var got [][]schema.Record
	explained := 0
	l.eachExplained(correlate.Options{}, func(recs []schema.Record, res *correlate.Result) {
		if anyError(recs) != (res != nil) {
			t.Fatalf("trace %s: an error %v, an analysis %v", recs[0].TraceID, anyError(recs), res != nil)
		}
		if res != nil {
			explained++
			if want := correlate.AnalyzeRecords(slices.Clone(recs), correlate.Options{}); res.Failed != want.Failed ||
				res.Failed && res.Origin.Service != want.Origin.Service {
				t.Fatalf("trace %s: the analysis made ahead differs from one made here", recs[0].TraceID)
			}
		}
		got = append(got, slices.Clone(recs))
	})
	if explained == 0 {
		t.Fatal("no trace with an error explained")
	}
	if len(got) != len(want) {
		t.Fatalf("%d traces, want %d", len(got), len(want))
	}
	for i := range want {
		if !slices.EqualFunc(got[i], want[i], func(a, b schema.Record) bool { return correlate.SameRecord(&a, &b) && a.TraceID == b.TraceID }) {
			t.Fatalf("trace %d differs from each's", i)
		}
	}

	boom := correlate.Options{Steps: []correlate.Step{correlate.Func(func(*correlate.Trace) { panic("boom") })}}
	defer func() {
		v := recover()
		if err, ok := v.(error); !ok || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("recovered %v, want the analysis's panic", v)
		}
	}()
	l.eachExplained(boom, func([]schema.Record, *correlate.Result) {})
	t.Fatal("the analysis's panic was not the loop's")
}
