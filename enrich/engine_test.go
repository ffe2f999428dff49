package enrich

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// seedIncident writes eight failing traces around testNow: checkout times
// out on inventory, whose database pool is exhausted.
func seedIncident(t *testing.T, st store.Store) {
	t.Helper()
	var recs []schema.Record
	for i := range 8 {
		id := schema.TraceID(fmt.Sprintf("%032x", 0xf0000+i))
		t0 := testNow.Add(-10*time.Minute + time.Duration(i)*20*time.Second)
		ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
		recs = append(recs,
			schema.Record{Type: schema.TypeSpan, TraceID: id, SpanID: "00000000000000a1", Service: "checkout", Name: "POST /checkout",
				Time: ms(0), Duration: 3005 * time.Millisecond, Status: schema.StatusError},
			schema.Record{Type: schema.TypeSpan, TraceID: id, SpanID: "00000000000000b1", ParentSpanID: "00000000000000a1",
				Service: "inventory", Name: "GET /reserve", Time: ms(4), Duration: 2100 * time.Millisecond, Status: schema.StatusError},
			schema.Record{Type: schema.TypeLog, TraceID: id, SpanID: "00000000000000b1", Service: "inventory", Time: ms(2100),
				Severity: schema.SeverityError, Body: "HikariPool-1 - Connection is not available, request timed out after 2000ms"},
			schema.Record{Type: schema.TypeLog, TraceID: id, SpanID: "00000000000000a1", Service: "checkout", Time: ms(3003),
				Severity: schema.SeverityError, Body: "call to inventory exceeded 3000ms"},
		)
	}
	if err := st.WriteBatch(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
}

// TestRealAnalysisEndToEnd runs the real engine on an embedded store and
// delivers to the fake Slack: the origin is named, its runbook is saved and
// links the alert's own runbook.
func TestRealAnalysisEndToEnd(t *testing.T) {
	st := openStore(t)
	seedIncident(t, st)
	eng, err := analysis.New(st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, eng, st, nil)
	g := mustParse(t, "alertmanager_firing.json") // service checkout, started 10:04:30
	h.svc.process(context.Background(), g)
	posts := h.slack.okCalls("chat.postMessage")
	if len(posts) != 1 {
		t.Fatalf("%d posts", len(posts))
	}
	if !strings.Contains(posts[0].blocks, "*Likely origin:* *inventory*") || !strings.Contains(posts[0].blocks, publicURL+"/trace/00000000000000000000000000") {
		t.Errorf("message: %s", cut(posts[0].blocks, 1500))
	}
	i := strings.Index(posts[0].blocks, publicURL+"/runbooks/")
	if i < 0 {
		t.Fatal("no runbook link")
	}
	id, _, _ := strings.Cut(posts[0].blocks[i+len(publicURL+"/runbooks/"):], "|")
	rb, err := runbookgen.Load(context.Background(), st, id)
	if err != nil {
		t.Fatalf("the linked runbook %q is not saved: %v", id, err)
	}
	if rb.AlertRunbookURL != g.RunbookURL || !strings.Contains(rb.Markdown, g.RunbookURL) {
		t.Errorf("the saved runbook does not link the alert's runbook: %q", rb.AlertRunbookURL)
	}
}

// TestReplayedAlertAnalysesItsOwnWindow: an Alertmanager v4 payload whose
// startsAt is two days old (replayed, or repeated by the notifier) is
// analysed on the stretch it fired in, which the store holds, not on the
// last hours before now.
func TestReplayedAlertAnalysesItsOwnWindow(t *testing.T) {
	st := openStore(t)
	seedIncident(t, st) // around testNow; the alert started at 10:04:30
	eng, err := analysis.New(st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mustParse(t, "alertmanager_firing.json")
	now := testNow.Add(48 * time.Hour)
	a := Analyze(context.Background(), eng, g, now, AnalyzeOptions{LookBack: 15 * time.Minute, MaxWindow: 6 * time.Hour})
	if a.Err != nil {
		t.Fatalf("analysis of the replayed alert: %v (window %v..%v)", a.Err, a.From, a.To)
	}
	if !a.From.Equal(g.StartsAt.Add(-15*time.Minute)) || !a.To.Equal(g.StartsAt.Add(6*time.Hour)) {
		t.Errorf("window %v..%v, want anchored on startsAt %v", a.From, a.To, g.StartsAt)
	}
	if a.Report == nil || len(a.Report.Candidates) == 0 || a.Report.Candidates[0].Service != "inventory" {
		t.Fatalf("report: %+v", a.Report)
	}

	// The hook path: the service's clock says two days later.
	h := newHarness(t, eng, st, nil)
	h.clock.mu.Lock()
	h.clock.now = now
	h.clock.mu.Unlock()
	h.svc.process(context.Background(), g)
	posts := h.slack.okCalls("chat.postMessage")
	if len(posts) != 1 {
		t.Fatalf("%d posts", len(posts))
	}
	if !strings.Contains(posts[0].blocks, "*Likely origin:* *inventory*") || strings.Contains(posts[0].blocks, "no records") {
		t.Errorf("message: %s", cut(posts[0].blocks, 1500))
	}
}
