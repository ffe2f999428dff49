package evaluate

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// at is t0 plus s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func errLog(trace, svc string, s float64, msg string) schema.Record {
	return schema.Record{Type: schema.TypeLog, Time: at(s), TraceID: schema.TraceID(trace), Service: svc,
		Severity: schema.SeverityError, Body: msg}
}

func infoLog(trace, svc string, s float64, msg string) schema.Record {
	return schema.Record{Type: schema.TypeLog, Time: at(s), TraceID: schema.TraceID(trace), Service: svc,
		Severity: schema.SeverityInfo, Body: msg}
}

func TestBaselineEarliestError(t *testing.T) {
	window := []schema.Record{
		// Trace a: b's error comes before a's, whatever the order of the records.
		errLog("a", "front", 3, "upstream failed"),
		errLog("a", "b", 1, "boom"),
		// Trace b: b again; trace c: c first, then b.
		errLog("b", "b", 2, "boom"),
		errLog("c", "c", 1, "disk full"),
		errLog("c", "b", 4, "boom"),
		// Trace d did not fail; a record without a trace is in none.
		infoLog("d", "d", 0, "ok"),
		errLog("", "e", 0, "no trace"),
		// A span with an error status is an error record too.
		{Type: schema.TypeSpan, Time: at(0.5), TraceID: "f", SpanID: "f1", Service: "f", Status: schema.StatusError},
		{Type: schema.TypeSpan, Time: at(0.1), TraceID: "f", SpanID: "f0", Service: "front", Status: schema.StatusOK},
	}
	got := RankBaseline(EarliestError, window, nil)
	if want := []string{"b", "c", "f"}; !slices.Equal(got, want) {
		t.Errorf("earliest_error = %q, want %q", got, want)
	}
	if got := RankBaseline(EarliestError, window[5:6], nil); len(got) != 0 {
		t.Errorf("earliest_error without a failing trace = %q, want nothing", got)
	}
}

// call is a caller's client span and, unless callee is "", the callee's
// server span as its only child; or, with peer set, a client span to a
// peer that leaves no spans.
type call struct {
	caller, callee, peer string
	wait, work           time.Duration
}

var spanSeq int

func (c call) records(s float64) []schema.Record {
	spanSeq++
	trace := schema.TraceID(fmt.Sprintf("%032x", spanSeq))
	parent := schema.SpanID(fmt.Sprintf("%016x", 2*spanSeq))
	client := schema.Record{Type: schema.TypeSpan, Time: at(s), TraceID: trace, SpanID: parent, Service: c.caller,
		Name: "call", Duration: c.wait + c.work, Attrs: map[string]string{"span.kind": "Client"}}
	if c.peer != "" {
		client.Attrs[schema.AttrPeerService] = c.peer
		return []schema.Record{client}
	}
	server := schema.Record{Type: schema.TypeSpan, Time: at(s).Add(c.wait / 2), TraceID: trace, SpanID: schema.SpanID(fmt.Sprintf("%016x", 2*spanSeq+1)),
		ParentSpanID: parent, Service: c.callee, Name: "serve", Duration: c.work, Attrs: map[string]string{"span.kind": "Server"}}
	return []schema.Record{client, server}
}

// calls makes n calls like c, one a second from s.
func calls(n int, s float64, c call) []schema.Record {
	var out []schema.Record
	for i := range n {
		out = append(out, c.records(s+float64(i))...)
	}
	return out
}

func TestBaselineCallWait(t *testing.T) {
	ms := time.Millisecond
	var base, window []schema.Record
	// The baseline: front's calls to api wait 10 ms, its queries to the
	// database (no spans of its own) take 5 ms, cart's calls to api 10 ms.
	base = append(base, calls(20, -600, call{caller: "front", callee: "api", wait: 10 * ms, work: 30 * ms})...)
	base = append(base, calls(20, -600, call{caller: "front", peer: "db", wait: 5 * ms})...)
	base = append(base, calls(20, -600, call{caller: "cart", callee: "api", wait: 10 * ms, work: 30 * ms})...)
	base = append(base, calls(20, -600, call{caller: "front", callee: "cart", wait: 10 * ms, work: 30 * ms})...)
	// The window: every query to the database waits 30 ms; half of the
	// calls into api wait 50 ms (slower work takes no more wait); calls
	// into cart wait 15 ms (less than twice the median: not slow).
	window = append(window, calls(6, 0, call{caller: "front", peer: "db", wait: 30 * ms})...)
	window = append(window, calls(5, 0, call{caller: "front", callee: "api", wait: 50 * ms, work: 30 * ms})...)
	window = append(window, calls(5, 0, call{caller: "cart", callee: "api", wait: 10 * ms, work: 300 * ms})...)
	window = append(window, calls(10, 0, call{caller: "front", callee: "cart", wait: 15 * ms, work: 30 * ms})...)
	// An edge the baseline never saw, however slow, is not judged.
	window = append(window, calls(10, 0, call{caller: "front", callee: "new", wait: time.Second})...)
	// A server span without children names its peer too: its caller, not
	// a callee.
	served := func(n int, s float64, d time.Duration) []schema.Record {
		recs := calls(n, s, call{caller: "api", peer: "front", wait: d})
		for i := range recs {
			recs[i].Attrs["span.kind"] = "Server"
		}
		return recs
	}
	base = append(base, served(20, -600, 5*ms)...)
	window = append(window, served(10, 0, time.Second)...)

	got := RankBaseline(CallWait, window, base)
	if want := []string{"db", "api"}; !slices.Equal(got, want) {
		t.Errorf("call_wait = %q, want %q", got, want)
	}
	// Too few calls into a callee say nothing.
	if got := RankBaseline(CallWait, calls(waitMinCalls-1, 0, call{caller: "front", peer: "db", wait: 30 * ms}), base); len(got) != 0 {
		t.Errorf("call_wait with %d calls = %q, want nothing", waitMinCalls-1, got)
	}
	// Equal shares: more slow calls first.
	window = append(calls(8, 0, call{caller: "front", peer: "db", wait: 30 * ms}),
		calls(4, 0, call{caller: "cart", callee: "api", wait: 50 * ms, work: 30 * ms})...)
	window = append(window, calls(4, 0, call{caller: "cart", callee: "api", wait: 10 * ms, work: 30 * ms})...)
	window = append(window, calls(8, 0, call{caller: "front", peer: "db", wait: 5 * ms})...)
	window = append(window, calls(6, 0, call{caller: "front", callee: "cart", wait: 60 * ms, work: 30 * ms})...)
	window = append(window, calls(6, 0, call{caller: "front", callee: "cart", wait: 10 * ms, work: 30 * ms})...)
	if got, want := RankBaseline(CallWait, window, base), []string{"db", "cart", "api"}; !slices.Equal(got, want) {
		t.Errorf("call_wait with equal shares = %q, want %q", got, want)
	}
}

func versioned(r schema.Record, v string) schema.Record {
	r.Attrs = map[string]string{schema.AttrServiceVersion: v}
	return r
}

func TestBaselineDeployOrNewError(t *testing.T) {
	base := []schema.Record{
		versioned(infoLog("b1", "orders", -600, "order placed"), "1.4.0"),
		versioned(infoLog("b2", "cart", -600, "cart read"), "2.0.0"),
		versioned(infoLog("b3", "search", -600, "query served"), "3.1.0"),
		errLog("b4", "search", -500, "index corrupted: checksum 1234 mismatch"),
	}
	window := []schema.Record{
		// cart's new version shows 20 minutes before the first error:
		// too early to be its cause; orders' 2 minutes before: a deploy.
		versioned(infoLog("w0", "cart", -1200, "cart read"), "2.1.0"),
		versioned(infoLog("w1", "orders", -120, "order placed"), "1.5.0"),
		versioned(infoLog("w1b", "orders", -100, "order placed"), "1.5.0"),
		// pricing has no version in the baseline: not a deploy seen.
		versioned(infoLog("w2", "pricing", -60, "price read"), "9.9.9"),
		// The first error's template the baseline knows (its numbers
		// differ); then new ones: payment's, ledger's, payment's again.
		errLog("w3", "search", 0, "index corrupted: checksum 4411 mismatch"),
		errLog("w4", "payment", 5, "card declined: NullPointerException at Charge.java:88"),
		errLog("w5", "ledger", 9, "constraint violation on table entries"),
		errLog("w6", "payment", 12, "invalid currency XZY"),
	}
	got := RankBaseline(DeployOrNewError, window, base)
	if want := []string{"orders", "payment", "ledger"}; !slices.Equal(got, want) {
		t.Errorf("deploy_or_new_error = %q, want %q", got, want)
	}
	// No baseline: no version is known to be new, and every error is.
	if got, want := RankBaseline(DeployOrNewError, window, nil), []string{"search", "payment", "ledger"}; !slices.Equal(got, want) {
		t.Errorf("deploy_or_new_error without a baseline = %q, want %q", got, want)
	}
}

// TestBaselineDeployOrNewErrorNamesTheDependency: a new error is put on
// the service its trace's analysis names, the callee a refused call
// points at, not the caller that logged it.
func TestBaselineDeployOrNewErrorNamesTheDependency(t *testing.T) {
	window := []schema.Record{
		{Type: schema.TypeSpan, Time: at(0), TraceID: "t1", SpanID: "a1", Service: "checkout", Name: "POST /checkout",
			Duration: 20 * time.Millisecond, Status: schema.StatusError},
		{Type: schema.TypeSpan, Time: at(0.001), TraceID: "t1", SpanID: "a2", ParentSpanID: "a1", Service: "checkout",
			Name: "POST payment", Duration: 5 * time.Millisecond, Status: schema.StatusError,
			Attrs: map[string]string{"span.kind": "Client", schema.AttrPeerService: "payment"}},
		{Type: schema.TypeLog, Time: at(0.007), TraceID: "t1", SpanID: "a2", Service: "checkout", Severity: schema.SeverityError,
			Body: "calling payment: dial tcp 10.0.0.7:8080: connect: connection refused"},
	}
	got := RankBaseline(DeployOrNewError, window, nil)
	if len(got) == 0 || got[0] != "payment" {
		t.Errorf("deploy_or_new_error = %q, want payment first", got)
	}
}

// TestBaselinesOnSimulatedIncidents runs the baselines through RunCase on
// small simulated incidents, each of a fault a method can see: every
// method ranks services of the system, the truth among them.
func TestBaselinesOnSimulatedIncidents(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates and analyses 2 incidents; skipped with -short")
	}
	cases := []struct {
		fault   string
		methods []string
	}{
		{"regression-after-deploy", []string{EarliestError, DeployOrNewError}},
		{"network-delay", []string{CallWait}},
	}
	for i, c := range cases {
		f, ok := sim.FaultNamed(c.fault)
		if !ok {
			t.Fatalf("the simulator knows no fault %q", c.fault)
		}
		dir := filepath.Join(t.TempDir(), c.fault)
		inc := writeSimCase(t, dir, sim.Config{Seed: int64(4200 + i), Fault: f.Kind, FaultType: f.Type})
		known := map[string]bool{}
		for _, r := range inc.Records {
			known[r.Service] = true
			if p := peerOf(&r, nil); p != "" {
				known[p] = true
			}
		}
		r := runCase(t, dir)
		if len(r.Baselines) != len(BaselineMethods()) {
			t.Fatalf("%s: baselines %v, want one result per method %q", c.fault, r.Baselines, BaselineMethods())
		}
		for _, m := range c.methods {
			b := r.Baselines[m]
			t.Logf("%s: %s ranks the truth %s %d, top %q", c.fault, m, b.Truth, b.Rank, b.Top)
			for _, svc := range b.Top {
				if !known[svc] {
					t.Errorf("%s: %s ranks %q, which is no service of the incident", c.fault, m, svc)
				}
			}
			if b.Rank < 1 || b.Rank > 3 || b.Top[b.Rank-1] != b.Truth {
				t.Errorf("%s: %s ranks the truth %s %d (top %q), want it in the first 3", c.fault, m, b.Truth, b.Rank, b.Top)
			}
		}
	}
}
