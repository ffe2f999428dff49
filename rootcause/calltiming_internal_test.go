package rootcause

import (
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// TestTraceDurationIsLongestSpan: a trace's duration, against which a slow
// sample's extra time is weighed (shift.slowed), is its longest span, not
// the spread of its spans' clocks. A job handed over a queue to a worker
// whose host clock runs 800 ms ahead spreads over a second, though no
// request of it took longer than the worker's 120 ms: weighed by the
// spread, the worker taking three times as long looked a few per cent
// slower.
func TestTraceDurationIsLongestSpan(t *testing.T) {
	t0 := time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	id := schema.TraceID("0af7651916cd43dd8448eb211c80319c")
	span := func(svc, name, sid, parent string, at, dur time.Duration) schema.Record {
		return schema.Record{Type: schema.TypeSpan, Time: t0.Add(at), Duration: dur, TraceID: id,
			SpanID: schema.SpanID(sid), ParentSpanID: schema.SpanID(parent), Service: svc, Name: name}
	}
	recs := []schema.Record{
		span("submitter", "POST /jobs", "a1", "", 0, 40*time.Millisecond),
		span("submitter", "jobs publish", "a2", "a1", 30*time.Millisecond, 5*time.Millisecond),
		// The worker's clock runs 800 ms ahead.
		span("worker", "consume jobs", "b1", "a2", 900*time.Millisecond, 120*time.Millisecond),
		span("worker", "render", "b2", "b1", 905*time.Millisecond, 100*time.Millisecond),
	}
	p := newPeriod(t0, t0.Add(10*time.Minute))
	p.timing.keep = true
	p.indexSpans(recs)
	p.addCallTimes(recs, 1)
	if got, want := p.timing.durs[id], float64(120*time.Millisecond); got != want {
		t.Fatalf("trace duration %v, want the worker's span %v (not the 1020 ms its clocks spread over)",
			time.Duration(got), time.Duration(want))
	}
}
