package rootcause

import (
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// TestOriginCallerFailedCall: an origin that left no span is answered to
// the caller whose call to it failed, even when another caller's call to
// it was nearer in time (pods' clocks differ by more than the calls last).
func TestOriginCallerFailedCall(t *testing.T) {
	t0 := time.Date(2026, 1, 15, 9, 20, 0, 0, time.UTC)
	client := func(id, svc string, at time.Time, failed bool) schema.Record {
		r := schema.Record{Type: schema.TypeSpan, TraceID: "t1", SpanID: schema.SpanID(id), Service: svc,
			Name: "PUT", Time: at, Duration: 8 * time.Millisecond, Attrs: map[string]string{schema.AttrPeerService: "auth"}}
		if failed {
			r.Status = schema.StatusError
		}
		return r
	}
	errAt := t0.Add(60 * time.Millisecond) // auth's own line, on its own clock
	recs := []schema.Record{
		client("a1", "media", t0.Add(55*time.Millisecond), false), // nearest in time, went through
		client("b1", "user", t0.Add(1700*time.Millisecond), true), // the call auth refused
		{Type: schema.TypeLog, TraceID: "t1", Service: "auth", Severity: schema.SeverityError, Time: errAt,
			Body: "validation failed for field locale"},
	}
	p := newPeriod(t0, t0.Add(time.Minute))
	p.indexSpans(recs)
	if got := p.originCaller(recs, "", "auth", errAt); got != "user" {
		t.Errorf("originCaller = %q, want user (whose call failed)", got)
	}
	// Without a failed call, the nearest call in time is the caller.
	recs[1].Status = schema.StatusOK
	if got := p.originCaller(recs, "", "auth", errAt); got != "media" {
		t.Errorf("with no failed call, originCaller = %q, want media (the nearest)", got)
	}
}
