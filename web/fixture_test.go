package web

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
)

// fixtureNow is the clock of every test: the incident is in the hour before it.
var fixtureNow = time.Date(2026, 11, 30, 4, 30, 0, 0, time.UTC)

const (
	fixtureTrace   = schema.TraceID("4bf92f3577b34da6a3ce929d0e0e4736")
	fixtureTrace2  = schema.TraceID("00f067aa0ba902b700f067aa0ba902b7")
	fixtureRunbook = "c-payments-db-pool"
)

// fakeBackend serves fixed documents; update changes the report under a running server.
type fakeBackend struct {
	mu       sync.Mutex
	report   *rootcause.Report
	traces   map[schema.TraceID]*correlate.Result
	runbooks map[string]*runbookgen.Runbook
	err      error // returned by every call when set
	panicMsg string
	lastQ    IncidentQuery
	calls    int // Incident calls
	// edges are the call times EdgeTimes answers; edgeWindows the
	// windows it was asked for.
	edges       []EdgeTime
	edgeWindows [][2]rootcause.Window
	// first and last are the store's first and last records (Bounds);
	// zero first: an empty store; zero last: fixtureNow.
	first, last time.Time
}

func (f *fakeBackend) Bounds(ctx context.Context) (first, last time.Time, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.first.IsZero() {
		return first, last, f.err
	}
	if f.last.IsZero() {
		return f.first, fixtureNow, f.err
	}
	return f.first, f.last, f.err
}

func (f *fakeBackend) EdgeTimes(ctx context.Context, window, baseline rootcause.Window) ([]EdgeTime, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.edgeWindows = append(f.edgeWindows, [2]rootcause.Window{window, baseline})
	return f.edges, f.err
}

func (f *fakeBackend) Incident(ctx context.Context, q IncidentQuery) (*rootcause.Report, error) {
	if f.panicMsg != "" {
		panic(f.panicMsg)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastQ = q
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	rep := *f.report
	if q.Top > 0 && len(rep.Candidates) > q.Top {
		rep.Candidates = rep.Candidates[:q.Top]
	}
	return &rep, nil
}

// update changes the report under the lock; fn gets a deep enough copy.
func (f *fakeBackend) update(fn func(*rootcause.Report)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rep := *f.report
	rep.Candidates = append([]rootcause.Candidate(nil), rep.Candidates...)
	for i := range rep.Candidates {
		rep.Candidates[i].Evidence = append([]string(nil), rep.Candidates[i].Evidence...)
	}
	fn(&rep)
	f.report = &rep
}

func (f *fakeBackend) Trace(ctx context.Context, id schema.TraceID) (*correlate.Result, error) {
	if f.err != nil {
		return nil, f.err
	}
	if r, ok := f.traces[id]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("trace %s: %w", id, schema.ErrNotFound)
}

func (f *fakeBackend) Runbook(ctx context.Context, id string) (*runbookgen.Runbook, error) {
	if f.err != nil {
		return nil, f.err
	}
	if r, ok := f.runbooks[id]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("runbook %q: %w", id, schema.ErrNotFound)
}

func newFixtureBackend() *fakeBackend {
	return &fakeBackend{
		report:   fixtureReport(),
		traces:   map[schema.TraceID]*correlate.Result{fixtureTrace: fixtureResult(), fixtureTrace2: fixtureResult2()},
		runbooks: map[string]*runbookgen.Runbook{fixtureRunbook: fixtureRunbookDoc(), "timeout": genericRunbook()},
		edges:    fixtureEdgeTimes(),
	}
}

// fixtureEdgeTimes are the fixture incident's call times: payments waits
// on its pool, so the calls to it slowed and so did every call up the
// failure path that waits on them; its database's calls did not.
func fixtureEdgeTimes() []EdgeTime {
	return []EdgeTime{
		{From: "frontend", To: "api-gateway", Calls: 18342, P95Ms: 3100, BaseCalls: 17000, BaseP95Ms: 180},
		{From: "api-gateway", To: "checkout", Calls: 9000, P95Ms: 3050, BaseCalls: 8000, BaseP95Ms: 150},
		{From: "api-gateway", To: "inventory", Calls: 9342, P95Ms: 40, BaseCalls: 9000, BaseP95Ms: 38},
		{From: "checkout", To: "payments", Calls: 8800, P95Ms: 3000, BaseCalls: 8100, BaseP95Ms: 120},
		{From: "checkout", To: "notifications", Calls: 6000, P95Ms: 22, BaseCalls: 5000, BaseP95Ms: 21},
		{From: "payments", To: "payments-db", Calls: 26000, P95Ms: 9, BaseCalls: 25000, BaseP95Ms: 8},
		{From: "inventory", To: "payments-db", Calls: 100, P95Ms: 12},
	}
}

// fixtureReport is a realistic incident: the payments service's database
// pool runs out; checkout times out calling it, the gateway answers 504,
// the breaker in front of payments opens. Seven services, three healthy.
func fixtureReport() *rootcause.Report {
	from := fixtureNow.Add(-time.Hour)
	onset := from.Add(38 * time.Minute)
	rb := &schema.RunbookRef{ID: fixtureRunbook, Severity: "P1", MTTRTarget: "15m", URL: "/runbooks/" + fixtureRunbook}
	return &rootcause.Report{
		Window: rootcause.Window{From: from, To: fixtureNow}, Traces: 18342, FailedTraces: 2113,
		Baseline: &rootcause.Window{From: from.Add(-time.Hour), To: from}, BaselineData: &rootcause.BaselineData{Records: 402113, Minutes: 60},
		Warnings: []string{"clock skew of up to 840 ms between hosts of checkout and payments was corrected"},
		Candidates: []rootcause.Candidate{
			{ID: fixtureRunbook, Rank: 1, Service: "payments", Operation: "POST /charge", Kind: schema.KindDBPoolExhaustion,
				Signature: "9f1c2e3d4b5a6978", Template: "pq: connection pool exhausted: <*> of <*> in use, waited <*>ms",
				Score: 0.91, Traces: 1874, FirstSeen: onset,
				Evidence: []string{
					"first error of 1,874 failing traces (89% of all failures) is in payments",
					"payments started failing at 04:08:00, 2.1 s before any other service",
					"deepest failing service: its only callee, payments-db, shows no errors",
					"new: this error never occurred in the baseline hour before",
				},
				Runbook:       rb,
				Signals:       []rootcause.Signal{{Name: "onset", Value: 1, Reason: "earliest onset in the window"}, {Name: "depth", Value: 0.9, Reason: "no failing downstream"}},
				ExampleTraces: []schema.TraceID{fixtureTrace, fixtureTrace2}, PointedFrom: []string{"checkout"}, EntryPoints: []string{"frontend"}},
			{ID: "c-checkout-timeout", Rank: 2, Service: "checkout", Kind: schema.KindTimeout, Signature: "1a2b3c4d5e6f7081",
				Template: "call to payments exceeded 3000ms", Score: 0.42, Traces: 1650, FirstSeen: onset.Add(2100 * time.Millisecond),
				Evidence:      []string{"timeouts calling payments: points at payments", "started 2.1 s after payments"},
				Runbook:       &schema.RunbookRef{ID: "timeout", Severity: "P2", MTTRTarget: "1h", URL: "/runbooks/timeout"},
				ExampleTraces: []schema.TraceID{fixtureTrace}},
			{ID: "c-gateway-breaker", Rank: 3, Service: "api-gateway", Kind: schema.KindCircuitOpen, Signature: "aa00bb11cc22dd33",
				Template: "circuit breaker is OPEN for checkout", Score: 0.18, Traces: 239, FirstSeen: onset.Add(31 * time.Second),
				Evidence: []string{"the breaker protecting checkout opened after 50% errors over 10 s"}},
		},
		Services: []rootcause.ServiceSummary{
			summary("payments", 52000, 1900, onset, "origin", 38, []int{0, 0, 5, 40, 60, 58}),
			summary("checkout", 61000, 1700, onset.Add(2*time.Second), "cascade", 38, []int{0, 0, 2, 35, 80, 70}),
			summary("api-gateway", 120000, 2300, onset.Add(3*time.Second), "cascade", 38, []int{0, 0, 1, 50, 120, 110}),
			summary("frontend", 98000, 900, onset.Add(5*time.Second), "cascade", 38, []int{0, 0, 0, 20, 40, 35}),
			summary("payments-db", 30000, 0, time.Time{}, "healthy", 0, nil),
			summary("inventory", 41000, 3, time.Time{}, "healthy", 0, []int{1, 0, 0, 1, 0, 1}),
			summary("notifications", 12000, 0, time.Time{}, "healthy", 0, nil),
		},
		Edges: []rootcause.Edge{
			{From: "frontend", To: "api-gateway", Calls: 18342, Errors: 900},
			{From: "api-gateway", To: "checkout", Calls: 9000, Errors: 2100},
			{From: "api-gateway", To: "inventory", Calls: 9342, Errors: 0},
			{From: "checkout", To: "payments", Calls: 8800, Errors: 1874},
			{From: "checkout", To: "notifications", Calls: 6000, Errors: 0},
			{From: "payments", To: "payments-db", Calls: 26000, Errors: 0},
			{From: "inventory", To: "payments-db", Calls: 100, Errors: 0},
		},
	}
}

// summary builds a service summary; the buckets are stretched to 60 one-minute buckets.
func summary(svc string, recs, errs int, onset time.Time, role string, quietFor int, shape []int) rootcause.ServiceSummary {
	s := rootcause.ServiceSummary{Service: svc, Records: recs, Errors: errs, Onset: onset, Role: role, BucketSec: 60}
	if shape == nil {
		return s
	}
	s.Buckets = make([]int, 60)
	for i := range s.Buckets {
		if i >= quietFor {
			s.Buckets[i] = shape[min((i-quietFor)/4+2, len(shape)-1)] + (i*7)%5
		} else {
			s.Buckets[i] = shape[0]
		}
	}
	return s
}

// fixtureResult is one failing trace: frontend -> api-gateway -> checkout ->
// payments -> payments-db, with the pool error logged by payments, a skewed
// clock on checkout and the callers' timeouts logged after.
func fixtureResult() *correlate.Result {
	t0 := fixtureNow.Add(-22 * time.Minute)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	origin := &correlate.Event{Service: "payments", SpanID: "00000000000000a4", Timestamp: at(2120),
		Message: "pq: connection pool exhausted: 50 of 50 in use, waited 2000ms", Class: schema.KindDBPoolExhaustion, Operation: "POST /charge"}
	return &correlate.Result{
		TraceID: fixtureTrace, Failed: true, Origin: origin, Events: 14,
		Cascade: []correlate.Event{
			{Service: "checkout", Timestamp: at(3010), Message: "call to payments exceeded 3000ms", Class: schema.KindTimeout, CausedBy: "payments"},
			{Service: "api-gateway", Timestamp: at(3050), Message: "upstream checkout returned 504 Gateway Timeout", Class: schema.KindTimeout, CausedBy: "checkout"},
			{Service: "frontend", Timestamp: at(3090), Message: "checkout failed: HTTP 504", Class: schema.KindTransient, CausedBy: "api-gateway"},
		},
		Suspect:  &correlate.Suspect{Service: "payments", Kind: schema.KindDBPoolExhaustion, Reason: "the origin is payments' own database pool running out; its callee payments-db shows no errors"},
		Services: []string{"frontend", "api-gateway", "checkout", "payments", "payments-db"},
		Start:    t0, Duration: 3100,
		Warnings: []string{"checkout's clock runs 840 ms ahead of payments; its records were moved back", "2 duplicate records were dropped"},
		Runbook:  &schema.RunbookRef{ID: fixtureRunbook, Severity: "P1", MTTRTarget: "15m", URL: "/runbooks/" + fixtureRunbook},
		Timeline: []correlate.TimelineEntry{
			span(0, at(0), 0, "frontend", "00000000000000a1", "", "GET /checkout", 3100, ""),
			span(1, at(5), 1, "api-gateway", "00000000000000a2", "00000000000000a1", "POST /api/checkout", 3060, ""),
			span(2, at(12), 2, "checkout", "00000000000000a3", "00000000000000a2", "PlaceOrder", 3010, ""),
			logE(3, at(14), 2, "checkout", "00000000000000a3", "INFO", "placing order 8812 for customer 4471", "", ""),
			span(4, at(20), 3, "payments", "00000000000000a4", "00000000000000a3", "POST /charge", 2990, ""),
			span(5, at(22), 4, "payments-db", "00000000000000a5", "00000000000000a4", "SELECT accounts", 3, ""),
			logE(6, at(120), 3, "payments", "00000000000000a4", "WARN", "db pool: 50 of 50 connections in use, waiting", "", ""),
			logE(7, at(2120), 3, "payments", "00000000000000a4", "ERROR", origin.Message, schema.KindDBPoolExhaustion, "origin"),
			withSkew(logE(8, at(3010), 2, "checkout", "00000000000000a3", "ERROR", "call to payments exceeded 3000ms", schema.KindTimeout, "cascade"), -840),
			logE(9, at(3050), 1, "api-gateway", "00000000000000a2", "ERROR", "upstream checkout returned 504 Gateway Timeout", schema.KindTimeout, "cascade"),
			logE(10, at(3090), 0, "frontend", "00000000000000a1", "ERROR", "checkout failed: HTTP 504", schema.KindTransient, "cascade"),
		},
	}
}

func fixtureResult2() *correlate.Result {
	r := fixtureResult()
	r.TraceID = fixtureTrace2
	r.Warnings = nil
	return r
}

func span(i int, t time.Time, depth int, svc, id, parent, name string, ms float64, role string) correlate.TimelineEntry {
	return correlate.TimelineEntry{Index: i, Type: "span", Timestamp: t, Depth: depth, Service: svc, SpanID: schema.SpanID(id),
		ParentID: schema.SpanID(parent), Severity: "INFO", Message: name, DurationMs: ms, Role: role,
		Attrs: map[string]string{"host.name": svc + "-7d9f", "service.version": "2.14.1"}}
}

func logE(i int, t time.Time, depth int, svc, id, sev, msg string, class schema.Kind, role string) correlate.TimelineEntry {
	return correlate.TimelineEntry{Index: i, Type: "log", Timestamp: t, Depth: depth, Service: svc, SpanID: schema.SpanID(id),
		Severity: sev, Message: msg, Class: class, Role: role,
		Attrs: map[string]string{"host.name": svc + "-7d9f", "k8s.pod.name": svc + "-7d9f-x2", "logger": "app"}}
}

func withSkew(e correlate.TimelineEntry, ms float64) correlate.TimelineEntry {
	e.AdjustedMs = ms
	return e
}

func fixtureRunbookDoc() *runbookgen.Runbook {
	md := strings.Join([]string{
		"# payments: database connection pool exhausted",
		"",
		"**Severity P1** — customers cannot pay. MTTR target: 15 minutes.",
		"",
		"## Symptoms",
		"",
		"- checkout logs `call to payments exceeded 3000ms`",
		"- payments logs `pq: connection pool exhausted`",
		"",
		"## Diagnosis (5 minutes)",
		"",
		"1. Look at the failing trace:",
		"",
		"```sh",
		"analyze trace " + string(fixtureTrace),
		"```",
		"",
		"2. Check who holds the connections:",
		"",
		"```sql",
		"SELECT state, count(*) FROM pg_stat_activity WHERE datname = 'payments' GROUP BY state;",
		"```",
		"",
		"## Mitigation",
		"",
		"| step | command |",
		"|---|---|",
		"| open the breaker | `kubectl -n shop set env deploy/checkout PAYMENTS_BREAKER=force-open` |",
		"",
		"See [the pool dashboard](https://grafana.example.com/d/pg) and [the trace](/trace/" + string(fixtureTrace) + ").",
		"",
		"> Keep evidence: never delete logs to clean up.",
	}, "\n")
	return &runbookgen.Runbook{ID: fixtureRunbook, Title: "payments: database connection pool exhausted", Kind: schema.KindDBPoolExhaustion,
		Service: "payments", Severity: "P1", SeverityReason: "checkout is customer-facing and revenue-bearing", MTTRTarget: "15m",
		URL: "/runbooks/" + fixtureRunbook, Markdown: md, AlertRunbookURL: "https://wiki.example.com/runbooks/payments"}
}

func genericRunbook() *runbookgen.Runbook {
	return &runbookgen.Runbook{ID: "timeout", Title: "Timeouts", Kind: schema.KindTimeout, Severity: "P2", MTTRTarget: "1h",
		Markdown: "# Timeouts\n\nA slow downstream. Find the callee:\n\n```\nanalyze incident --since 30m\n```\n"}
}

// largeReport has n candidates over svcs services, for benchmarks.
func largeReport(n, svcs int) *rootcause.Report {
	rep := fixtureReport()
	rep.Candidates = nil
	rep.Services = nil
	rep.Edges = nil
	onset := rep.Window.From.Add(30 * time.Minute)
	for i := range svcs {
		role := "healthy"
		if i == 0 {
			role = "origin"
		} else if i < svcs/3 {
			role = "cascade"
		}
		rep.Services = append(rep.Services, summary(fmt.Sprintf("service-%02d", i), 10000+i, 100*i, onset.Add(time.Duration(i)*time.Second), role, 30, []int{0, 1, 5, 20, 40, 60}))
		if i > 0 {
			rep.Edges = append(rep.Edges, rootcause.Edge{From: fmt.Sprintf("service-%02d", (i-1)/3), To: fmt.Sprintf("service-%02d", i), Calls: 1000, Errors: 10 * (i % 4)})
		}
	}
	for i := range n {
		c := fixtureReport().Candidates[i%3]
		c.ID, c.Rank, c.Service = fmt.Sprintf("cand-%03d", i), i+1, fmt.Sprintf("service-%02d", i%svcs)
		c.Score = 1 / float64(i+1)
		rep.Candidates = append(rep.Candidates, c)
	}
	return rep
}

// largeResult is a trace of n records.
func largeResult(n int) *correlate.Result {
	r := fixtureResult()
	base := r.Timeline
	r.Timeline = make([]correlate.TimelineEntry, 0, n)
	for i := range n {
		e := base[i%len(base)]
		e.Index = i
		e.Timestamp = e.Timestamp.Add(time.Duration(i) * time.Millisecond)
		e.Role = ""
		if i == n/2 {
			e.Role, e.Severity = "origin", "ERROR"
		}
		r.Timeline = append(r.Timeline, e)
	}
	r.Events = n
	return r
}
