package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// callTrace is one request through checkout to payments and to an
// uninstrumented fraud-api: frontend -> checkout (a span of its own
// under it) -> payments, and a client span of checkout's naming
// fraud-api, which leaves no spans.
func callTrace(id schema.TraceID, checkout, payments, fraud time.Duration) []schema.Record {
	t0 := time.Date(2026, 5, 1, 4, 0, 0, 0, time.UTC)
	span := func(svc, sid, parent string, d time.Duration, attrs map[string]string) schema.Record {
		return schema.Record{Type: schema.TypeSpan, TraceID: id, SpanID: schema.SpanID(sid), ParentSpanID: schema.SpanID(parent),
			Service: svc, Time: t0, Duration: d, Attrs: attrs}
	}
	return []schema.Record{
		span("frontend", "01", "", checkout+time.Millisecond, nil),
		span("checkout", "02", "01", checkout, nil),
		span("checkout", "03", "02", checkout/2, nil), // its own work: no edge
		span("payments", "04", "03", payments, nil),
		span("checkout", "05", "02", fraud, map[string]string{schema.AttrPeerService: "fraud-api"}),
		{Type: schema.TypeLog, TraceID: id, SpanID: "02", Service: "checkout", Time: t0, Body: "charged"},
	}
}

func TestTimeEdges(t *testing.T) {
	var window, base []schema.Record
	for i := range 20 {
		id := schema.TraceID(strings.Repeat("a", 30) + string(rune('a'+i%26)) + "1")
		window = append(window, callTrace(id, time.Duration(100+i)*time.Millisecond, 3*time.Second, 30*time.Millisecond)...)
		base = append(base, callTrace(id, 100*time.Millisecond, 80*time.Millisecond, 30*time.Millisecond)...)
	}
	// Another trace reuses the span ids under other services: a span's
	// parent is looked up in its own trace.
	other := callTrace("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", time.Second, time.Second, time.Second)
	for i := range other {
		other[i].Service = "batch-" + other[i].Service
		other[i].Attrs = nil
	}
	window = append(window, other...)

	got := map[string]EdgeTime{}
	for _, e := range TimeEdges(window, base) {
		got[e.From+" → "+e.To] = e
	}
	want := map[string]struct {
		calls, baseCalls int
		p95, baseP95     float64
		slowed           bool
	}{
		"frontend → checkout":             {20, 20, 118, 100, false},
		"checkout → payments":             {20, 20, 3000, 80, true},
		"checkout → fraud-api":            {20, 20, 30, 30, false},
		"batch-frontend → batch-checkout": {1, 0, 1000, 0, false},
		"batch-checkout → batch-payments": {1, 0, 1000, 0, false},
	}
	if len(got) != len(want) {
		t.Errorf("edges %v, want %d", got, len(want))
	}
	for k, w := range want {
		e, ok := got[k]
		if !ok {
			t.Errorf("no edge %s", k)
			continue
		}
		if e.Calls != w.calls || e.BaseCalls != w.baseCalls || e.P95Ms != w.p95 || e.BaseP95Ms != w.baseP95 || e.Slowed() != w.slowed {
			t.Errorf("%s = %+v slowed %v, want %+v", k, e, e.Slowed(), w)
		}
	}
}

func TestEdgeSlowed(t *testing.T) {
	for _, c := range []struct {
		e    EdgeTime
		want bool
	}{
		{EdgeTime{Calls: 40, P95Ms: 5000, BaseCalls: 100, BaseP95Ms: 300}, true},
		{EdgeTime{Calls: 4, P95Ms: 5000, BaseCalls: 100, BaseP95Ms: 300}, false}, // a p95 of four calls
		{EdgeTime{Calls: 40, P95Ms: 5000, BaseCalls: 4, BaseP95Ms: 300}, false},
		{EdgeTime{Calls: 40, P95Ms: 6, BaseCalls: 100, BaseP95Ms: 2}, false},     // 4 ms longer
		{EdgeTime{Calls: 40, P95Ms: 400, BaseCalls: 100, BaseP95Ms: 300}, false}, // 1.33 times
		{EdgeTime{Calls: 40, P95Ms: 450, BaseCalls: 100, BaseP95Ms: 300}, true},
		{EdgeTime{Calls: 40, P95Ms: 5000}, false}, // no baseline
	} {
		if got := c.e.Slowed(); got != c.want {
			t.Errorf("%+v: slowed %v, want %v", c.e, got, c.want)
		}
	}
}

// TestGraphEdgeTimes puts the fixture's call times on its map: every
// edge's title has its p95 and the baseline's; the three calls up the
// failure path slowed, checkout -> payments first (payments' own calls
// did not: that is where the slowness enters) and labelled alone, clear
// of the service boxes.
func TestGraphEdgeTimes(t *testing.T) {
	rep := fixtureReport()
	g := newGraphView(rep, serviceRoles(rep), 40)
	g.addTimes(fixtureEdgeTimes())
	if len(g.Rows) != len(rep.Edges) {
		t.Fatalf("%d timed rows, want %d", len(g.Rows), len(rep.Edges))
	}
	var order []string
	for _, r := range g.Slowed {
		order = append(order, r.From+" → "+r.To)
	}
	if got := strings.Join(order, ", "); got != "checkout → payments, api-gateway → checkout, frontend → api-gateway" {
		t.Errorf("slowed edges in order: %s", got)
	}
	slow := map[string]bool{"frontend → api-gateway": true, "api-gateway → checkout": true, "checkout → payments": true}
	labels := 0
	for _, e := range g.Edges {
		if !strings.Contains(e.Title, "; p95 ") {
			t.Errorf("edge title without its p95: %q", e.Title)
		}
		if e.Slow != slow[e.From+" → "+e.To] {
			t.Errorf("%s → %s: slow %v at p95 %s", e.From, e.To, e.Slow, e.P95)
		}
		if e.Label == "" {
			continue
		}
		labels++
		if e.From != "checkout" || e.To != "payments" || e.Label != "p95 120 ms → 3.0 s" {
			t.Errorf("label %q on %s → %s, want only checkout → payments' p95 120 ms → 3.0 s", e.Label, e.From, e.To)
		}
		w := len([]rune(e.Label)) * gLabelCharW
		lb := box{e.LabelX - w/2, e.LabelY - gLabelH/2, w, gLabelH}
		for _, n := range g.Nodes {
			if lb.overlaps(box{n.X, n.Y, gNodeW, gNodeH}) {
				t.Errorf("the label at %v covers %s", lb, n.Name)
			}
		}
	}
	if labels != 1 {
		t.Errorf("%d labels on the map, want 1", labels)
	}
	for _, r := range g.Rows {
		if (r.BaseP95 == "") != (r.From == "inventory") {
			t.Errorf("%s → %s: baseline p95 %q; only inventory → payments-db has no baseline calls", r.From, r.To, r.BaseP95)
		}
	}
}

// TestIncidentPageEdgeTimes renders the map with the backend's call
// times for the report's own window and baseline; a backend that cannot
// time edges, or fails to, leaves the map as it was.
func TestIncidentPageEdgeTimes(t *testing.T) {
	be := newFixtureBackend()
	h := newTestHandler(t, Config{CacheTTL: -1}, be)
	page := getOK(t, h, "/incident?since=1h")
	for _, want := range []string{`class="edge-label"`, `class="edge-slow" data-edge="checkout → payments"`,
		`id="slowed-edges">Calls slower than the baseline (p95), deepest first: <strong>checkout → payments</strong> 120 ms → 3.0 s`,
		`<tr class="slow"><th scope="row">checkout → payments</th><td>8,800</td><td>1,874</td><td>3.0 s <span class="slow-mark">▲ slower</span></td><td>120 ms</td></tr>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the incident page lacks %s", want)
		}
	}
	if n := strings.Count(page, `class="edge-label"`); n != 1 {
		t.Errorf("%d edge labels, want 1 (where the slowness enters)", n)
	}
	rep := fixtureReport()
	if len(be.edgeWindows) != 1 || be.edgeWindows[0][0] != rep.Window || be.edgeWindows[0][1] != *rep.Baseline {
		t.Errorf("edge times asked for %v, want the report's window and baseline", be.edgeWindows)
	}
	be.edges = nil
	if page := getOK(t, h, "/incident?since=1h"); strings.Contains(page, "edge-label") || strings.Contains(page, "slowed-edges") {
		t.Errorf("without call times the map still shows them")
	}
}

// getOK is the body of a GET that must answer 200.
func getOK(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	rec := get(h, path)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", path, rec.Code)
	}
	return rec.Body.String()
}
