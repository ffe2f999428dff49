package enrich

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/store"
	"github.com/prometheus/client_golang/prometheus"
)

// fakeAnalyzer answers every window with the same report or error; when
// gate is set it waits for it (or ctx) first and signals started.
type fakeAnalyzer struct {
	rep     *rootcause.Report
	err     error
	gate    chan struct{}
	started chan struct{}

	mu      sync.Mutex
	queries []rootcause.Query
}

func (a *fakeAnalyzer) Incident(ctx context.Context, q rootcause.Query) (*rootcause.Report, error) {
	a.mu.Lock()
	a.queries = append(a.queries, q)
	a.mu.Unlock()
	if a.gate != nil {
		if a.started != nil {
			a.started <- struct{}{}
		}
		select {
		case <-a.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return a.rep, a.err
}

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type harness struct {
	svc   *Service
	slack *fakeSlack
	clock *fakeClock
	st    store.Store
	reg   *prometheus.Registry
	logs  *syncBuffer
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newHarness builds a Service on the Web API of a fake Slack, a real
// embedded store and a fake clock. edit adjusts the configuration.
func newHarness(t *testing.T, an Analyzer, st store.Store, edit func(*Config, *fakeSlack)) *harness {
	t.Helper()
	h := &harness{clock: newFakeClock(), reg: prometheus.NewRegistry(), logs: &syncBuffer{}, st: st}
	if h.st == nil {
		h.st = openStore(t)
	}
	h.slack = newFakeSlack(t, h.clock)
	cfg := Config{Token: testToken, Channel: testChannel, APIURL: h.slack.apiURL(), PublicURL: publicURL,
		HookToken: "hook-SECRET-token", Now: h.clock.Now, Sleep: h.clock.Sleep}
	if edit != nil {
		edit(&cfg, h.slack)
	}
	log := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc, err := New(cfg, an, h.st, h.reg, log)
	if err != nil {
		t.Fatal(err)
	}
	h.svc = svc
	t.Cleanup(func() { svc.Close(context.Background()) })
	return h
}

// metric sums the samples of a series whose labels include match.
func (h *harness) metric(t *testing.T, name string, match ...string) float64 {
	t.Helper()
	mfs, err := h.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			for i := 0; i+1 < len(match); i += 2 {
				found := false
				for _, lp := range m.GetLabel() {
					if lp.GetName() == match[i] && lp.GetValue() == match[i+1] {
						found = true
					}
				}
				if !found {
					continue next
				}
			}
			switch {
			case m.GetCounter() != nil:
				sum += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				sum += m.GetGauge().GetValue()
			}
		}
	}
	return sum
}

func (h *harness) deadLetters(t *testing.T) []DeadLetter {
	t.Helper()
	dls, err := h.svc.DeadLetters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dls
}

func TestUpdateInsteadOfRepost(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, nil)
	ctx := context.Background()
	firing, resolved := mustParse(t, "alertmanager_firing.json"), mustParse(t, "alertmanager_resolved.json")

	h.svc.process(ctx, firing)
	posts := h.slack.okCalls("chat.postMessage")
	if len(posts) != 1 || !strings.Contains(posts[0].text, "likely origin payments-db-proxy") {
		t.Fatalf("first firing: %d posts %+v", len(posts), posts)
	}
	if !strings.Contains(posts[0].blocks, "Likely origin") || !strings.Contains(posts[0].blocks, `"type":"header"`) {
		t.Errorf("the post lacks its blocks: %s", cut(posts[0].blocks, 300))
	}
	h.svc.process(ctx, firing) // Alertmanager retrying: dropped
	if n := len(h.slack.snapshot()); n != 1 {
		t.Errorf("a resend reached Slack: %d calls", n)
	}
	h.clock.Sleep(ctx, time.Hour) // repeat_interval later: the same group fires again
	h.svc.process(ctx, firing)
	h.svc.process(ctx, resolved)
	ups := h.slack.okCalls("chat.update")
	if len(ups) != 2 || ups[0].ts != posts[0].ts || ups[1].ts != posts[0].ts {
		t.Fatalf("%d updates, want two edits of ts %s", len(ups), posts[0].ts)
	}
	if !strings.HasPrefix(ups[1].text, "[RESOLVED]") || !strings.Contains(ups[1].blocks, "Resolved after 23m45s") {
		t.Errorf("resolution: %q / %s", ups[1].text, cut(ups[1].blocks, 200))
	}
	if tops, replies := h.slack.topLevel(); len(tops) != 1 || len(replies) != 1 {
		t.Errorf("%d posts and %d replies, want the one message edited and the resolution in its thread", len(tops), len(replies))
	}
	if got := h.metric(t, "faultline_enrich_messages_delivered_total", "action", "updated"); got != 2 {
		t.Errorf("updated metric %v", got)
	}
}

func TestDedupeSurvivesRestart(t *testing.T) {
	st := openStore(t)
	g := mustParse(t, "alertmanager_firing.json")
	h1 := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, nil)
	h1.svc.process(context.Background(), g)
	h2 := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, nil)
	h2.svc.process(context.Background(), g)
	if n := len(h2.slack.snapshot()); n != 0 {
		t.Errorf("after a restart a resend reached Slack %d times", n)
	}
}

func TestLostMessagePostsAnew(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, nil)
	ctx := context.Background()
	h.svc.process(ctx, mustParse(t, "alertmanager_firing.json"))
	h.slack.mu.Lock()
	clear(h.slack.messages) // deleted in Slack
	h.slack.mu.Unlock()
	h.svc.process(ctx, mustParse(t, "alertmanager_resolved.json"))
	if n := len(h.slack.okCalls("chat.postMessage")); n != 2 {
		t.Errorf("%d posts, want the resolution posted anew when its message is gone", n)
	}
	if dls := h.deadLetters(t); len(dls) != 0 {
		t.Errorf("dead letters %+v", dls)
	}
}

func TestRateLimitHonoursRetryAfter(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, nil)
	h.slack.fail = func(n int, _ string) (int, string) {
		if n == 1 {
			return 429, "7"
		}
		return 0, ""
	}
	h.svc.process(context.Background(), mustParse(t, "alertmanager_firing.json"))
	if n := len(h.slack.okCalls("chat.postMessage")); n != 1 {
		t.Fatalf("%d posts after a 429, want 1", n)
	}
	sl := h.clock.slept()
	if len(sl) != 1 || sl[0] != 7*time.Second {
		t.Errorf("waited %v, want exactly Slack's Retry-After of 7s", sl)
	}
	if h.metric(t, "faultline_enrich_slack_calls_total", "result", "rate_limited") != 1 || h.svc.br.isOpen() {
		t.Error("a 429 must be counted as rate limited and must not trip the breaker")
	}
}

func TestServerErrorsTripBreakerThenDeadLetter(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, func(c *Config, _ *fakeSlack) {
		c.BreakerFailures, c.BreakerCooldown, c.DeliveryBudget = 3, 30*time.Second, 5*time.Minute
	})
	h.slack.fail = func(int, string) (int, string) { return 500, "" }
	g := mustParse(t, "alertmanager_firing.json")
	h.svc.process(context.Background(), g)

	calls := h.slack.snapshot()
	if len(calls) < 5 {
		t.Fatalf("only %d calls", len(calls))
	}
	for i := 1; i < 3; i++ {
		if gap := calls[i].at.Sub(calls[i-1].at); gap >= 30*time.Second {
			t.Errorf("closed breaker: call %d came %v after the previous, want backoff under the cooldown", i+1, gap)
		}
	}
	for i := 3; i < len(calls); i++ {
		if gap := calls[i].at.Sub(calls[i-1].at); gap < 30*time.Second {
			t.Errorf("open breaker: call %d came %v after the previous, want at least the 30s cooldown", i+1, gap)
		}
	}
	if h.metric(t, "faultline_enrich_slack_calls_total", "result", "breaker_open") == 0 ||
		h.metric(t, "faultline_enrich_slack_breaker_open") != 1 {
		t.Error("breaker refusals or state not in the metrics")
	}
	dls := h.deadLetters(t)
	if len(dls) != 1 || dls[0].Group.Title != "CheckoutHighErrorRate" || dls[0].Message == nil ||
		len(dls[0].Message.Blocks.BlockSet) == 0 || dls[0].Reason != "slack" {
		t.Fatalf("dead letters %+v", dls)
	}
	if h.metric(t, "faultline_enrich_dead_letters_total") != 1 {
		t.Error("dead letter not counted")
	}
}

func TestSlackDownForAWhileNothingLost(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, nil) // default backoff, breaker, budget
	h.slack.fail = func(n int, _ string) (int, string) {
		if h.clock.Now().Before(testNow.Add(3 * time.Minute)) {
			return 503, ""
		}
		return 0, ""
	}
	a, b := mustParse(t, "alertmanager_firing.json"), mustParse(t, "grafana_firing.json")
	if _, err := h.svc.Enqueue(a); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Enqueue(b); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(h.slack.okCalls("chat.postMessage")); n != 2 {
		t.Errorf("%d of 2 alerts delivered after Slack recovered", n)
	}
	if dls := h.deadLetters(t); len(dls) != 0 {
		t.Errorf("dead letters after recovery: %+v", dls)
	}
	if h.metric(t, "faultline_enrich_slack_breaker_open") != 0 {
		t.Error("breaker still open after Slack recovered")
	}
}

func TestCloseDeadLettersWhatItCannotFinish(t *testing.T) {
	an := &fakeAnalyzer{rep: knownReport(), gate: make(chan struct{}), started: make(chan struct{}, 4)}
	h := newHarness(t, an, nil, func(c *Config, _ *fakeSlack) { c.Workers = 1 })
	g2 := mustParse(t, "grafana_firing.json")
	h.svc.Enqueue(mustParse(t, "alertmanager_firing.json"))
	<-an.started
	h.svc.Enqueue(g2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.svc.Close(ctx); err == nil {
		t.Error("Close reported a full drain")
	}
	if n := len(h.slack.okCalls("chat.postMessage")); n != 0 {
		t.Errorf("%d posts", n)
	}
	dls := h.deadLetters(t)
	if len(dls) != 2 {
		t.Fatalf("%d dead letters, want both alerts kept", len(dls))
	}
	for _, dl := range dls {
		if dl.Reason != "shutdown" {
			t.Errorf("reason %q", dl.Reason)
		}
	}
	if _, err := h.svc.Enqueue(g2); err != ErrClosed {
		t.Errorf("Enqueue after Close: %v", err)
	}
}

func TestAnalysisFailureStillPosts(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{err: rootcause.ErrNoData}, nil, nil)
	h.svc.process(context.Background(), mustParse(t, "grafana_firing.json"))
	posts := h.slack.okCalls("chat.postMessage")
	if len(posts) != 1 || !strings.Contains(posts[0].blocks, "No analysis") || !strings.Contains(posts[0].blocks, "Payment gateway latency p99") {
		t.Fatalf("posts %+v", posts)
	}
	if h.metric(t, "faultline_enrich_analysis_failures_total") != 1 {
		t.Error("analysis failure not counted")
	}
}

func TestAnalysisWindowAndService(t *testing.T) {
	an := &fakeAnalyzer{rep: knownReport()}
	h := newHarness(t, an, nil, nil)
	h.svc.process(context.Background(), mustParse(t, "grafana_firing.json"))
	if len(an.queries) != 1 {
		t.Fatalf("%d analyses", len(an.queries))
	}
	q := an.queries[0]
	if q.Service != "payment-gateway" || !q.From.Equal(time.Date(2026, 11, 30, 9, 48, 0, 0, time.UTC)) || !q.To.Equal(testNow) || q.Top < 3 {
		t.Errorf("query %+v", q)
	}
}

func TestWebhookDelivery(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, func(c *Config, f *fakeSlack) {
		c.Token, c.Channel, c.WebhookURL = "", "", f.webhookURL()
	})
	ctx := context.Background()
	h.svc.process(ctx, mustParse(t, "alertmanager_firing.json"))
	h.svc.process(ctx, mustParse(t, "alertmanager_firing.json"))
	h.svc.process(ctx, mustParse(t, "alertmanager_resolved.json"))
	calls := h.slack.okCalls("webhook")
	if len(calls) != 2 || !strings.Contains(calls[0].blocks, "Likely origin") || !strings.HasPrefix(calls[1].text, "[RESOLVED]") {
		t.Fatalf("webhook calls %+v", calls)
	}
}

func TestNotConfigured(t *testing.T) {
	if _, err := New(Config{}, nil, nil, nil, nil); err != ErrNotConfigured {
		t.Errorf("err %v", err)
	}
	if err := (Config{Token: testToken}).Validate(); err == nil || strings.Contains(err.Error(), testToken) {
		t.Errorf("token without channel: %v", err)
	}
}
