package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
)

// TestRunbookLogTextStaysCode: log text a runbookgen code span holds (a
// fence longer than its backtick runs, CommonMark) renders as code on
// /runbooks/ID, never as a link, in prose, lists and table cells.
func TestRunbookLogTextStaysCode(t *testing.T) {
	msg := "NullPointerException, follow [Reset the database](https://phish.example) ```"
	md := strings.Join([]string{
		"# deterministic in payment",
		"",
		"- **Error signature:** `9f86d081884c7d65`, template ```` " + msg + " ````",
		"- `payment` logs ```` " + msg + " ````, and `checkout` logs errors",
		"```` a``b ```` uses:",
		"",
		"| service | template |",
		"|---|---|",
		"| `payment` | ```` x | [y](https://phish.example) ```` |",
	}, "\n")
	b := newFixtureBackend()
	b.runbooks[fixtureRunbook] = &runbookgen.Runbook{ID: fixtureRunbook, Kind: schema.KindDeterministic, Title: "t", Markdown: md}
	h := newTestHandler(t, Config{}, b)
	rec := get(h, "/runbooks/"+fixtureRunbook)
	body := rec.Body.String()
	if rec.Code != 200 {
		t.Fatalf("runbook page: %d", rec.Code)
	}
	if strings.Contains(body, `href="https://phish.example"`) {
		i := strings.Index(body, `href="https://phish.example"`)
		t.Errorf("log text became a link: %s", body[max(0, i-200):i+80])
	}
	if n := strings.Count(body, "NullPointerException, follow [Reset the database](https://phish.example) ```"); n != 2 {
		t.Errorf("the message shows %d times as literal text, want 2", n)
	}
	blocks := parseMarkdown(md)
	for _, bl := range blocks {
		if bl.Kind == "code" {
			t.Errorf("a code span line opened a fenced block: %+v", bl)
		}
	}
}

// countingTraceBackend counts the trace analyses running and run.
type countingTraceBackend struct {
	fakeBackend
	release      chan struct{}
	running, run atomic.Int32
	peak         atomic.Int32
}

func (b *countingTraceBackend) Trace(ctx context.Context, id schema.TraceID) (*correlate.Result, error) {
	n := b.running.Add(1)
	defer b.running.Add(-1)
	b.run.Add(1)
	for {
		p := b.peak.Load()
		if n <= p || b.peak.CompareAndSwap(p, n) {
			break
		}
	}
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return b.fakeBackend.Trace(ctx, id)
}

// TestTraceAnalysesAreBoundedAndShared: parallel requests for one trace
// share one analysis; different traces past the slots and the queue get
// 503 with Retry-After.
func TestTraceAnalysesAreBoundedAndShared(t *testing.T) {
	b := &countingTraceBackend{fakeBackend: *newFixtureBackend(), release: make(chan struct{})}
	h := newTestHandler(t, Config{MaxAnalyses: 1, AnalysisQueue: 1}, b)
	var wg sync.WaitGroup
	codes := make([]int, 12)
	for i := range codes {
		wg.Go(func() { codes[i] = get(h, "/api/v1/trace/"+string(fixtureTrace)).Code })
	}
	waitFor(t, "the trace analysis", func() bool { return b.running.Load() == 1 })
	wg.Go(func() { get(h, "/api/v1/trace/"+string(fixtureTrace2)) }) // queued
	time.Sleep(50 * time.Millisecond)
	other := "0123456789abcdef0123456789abcdef"
	rec := get(h, "/api/v1/trace/"+other)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("trace past the queue: %d (Retry-After %q), want 503", rec.Code, rec.Header().Get("Retry-After"))
	}
	close(b.release)
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Errorf("request %d for the shared trace: %d", i, c)
		}
	}
	if n, p := b.run.Load(), b.peak.Load(); n != 2 || p != 1 {
		t.Errorf("%d trace analyses run (peak %d at once); want 2 (12 identical requests share one), 1 at once", n, p)
	}
}

// conflictDLQ resends slowly, once; requests meanwhile are conflicts.
type conflictDLQ struct {
	fakeDLQ
	busy  atomic.Bool
	posts atomic.Int32
}

func (f *conflictDLQ) Resend(ctx context.Context, id string) error {
	if !f.busy.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: in progress", ErrConflict)
	}
	defer f.busy.Store(false)
	f.mu.Lock()
	listed := len(f.letters) > 0 && f.letters[0].ID == id
	f.mu.Unlock()
	if !listed {
		return fmt.Errorf("%w", schema.ErrNotFound)
	}
	f.posts.Add(1)
	time.Sleep(200 * time.Millisecond)
	f.mu.Lock()
	f.letters = nil
	f.mu.Unlock()
	return nil
}

// TestParallelResendAPI: ten parallel resends of one letter: one 200, the
// others 409 (in progress) or 404 (already resent).
func TestParallelResendAPI(t *testing.T) {
	dlq := &conflictDLQ{fakeDLQ: fakeDLQ{letters: newDLQ().letters[:1]}}
	h := newTestHandler(t, Config{AuthToken: "tok", DeadLetters: dlq}, newFixtureBackend())
	var wg sync.WaitGroup
	codes := make([]int, 10)
	for i := range codes {
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodPost, "/api/v1/deadletters/alertmanager-aa-firing-1/resend", nil)
			req.Header.Set("Authorization", "Bearer tok")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			codes[i] = rec.Code
		})
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case 200:
			ok++
		case 409, 404:
		default:
			t.Errorf("status %d", c)
		}
	}
	if ok != 1 || dlq.posts.Load() != 1 {
		t.Errorf("codes %v, %d posts; want one 200 and one post", codes, dlq.posts.Load())
	}
}

// TestDeadLetterNoticeNotSpoofable: the page's notices show only what the
// server knows, never text from the URL.
func TestDeadLetterNoticeNotSpoofable(t *testing.T) {
	dlq := newDLQ()
	h := newTestHandler(t, Config{DeadLetters: dlq}, newFixtureBackend())
	for _, q := range []string{"resent=Call+support+at+555-0100", "failed=Call+support+at+555-0100"} {
		if body := get(h, "/deadletters?"+q).Body.String(); strings.Contains(body, "555-0100") {
			t.Errorf("?%s: the page shows the URL's text", q)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/deadletters/grafana-bb-resolved-2/resend", nil)
	req.Header.Set("Authorization", "Bearer x")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("resend: %d", rec.Code)
	}
	if body := get(h, "/deadletters?resent=grafana-bb-resolved-2").Body.String(); !strings.Contains(body, "Resent grafana-bb-resolved-2 to Slack.") {
		t.Error("a letter this server resent is not confirmed")
	}
}

// TestMetricsBehindAuth: with the web protected, /metrics needs the same
// credentials (a bearer token for scrapers) and answers 401, not a redirect.
func TestMetricsBehindAuth(t *testing.T) {
	m := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "faultline_enrich_alerts_total 3") })
	h := newTestHandler(t, Config{AuthToken: "sekret", Metrics: m}, newFixtureBackend())
	if rec := get(h, "/metrics"); rec.Code != http.StatusUnauthorized || strings.Contains(rec.Body.String(), "faultline_") {
		t.Errorf("/metrics without credentials: %d %q", rec.Code, rec.Body.String())
	}
	if rec := get(h, "/metrics", "Authorization", "Bearer sekret"); rec.Code != 200 || !strings.Contains(rec.Body.String(), "faultline_enrich") {
		t.Errorf("/metrics with the token: %d", rec.Code)
	}
	open := newTestHandler(t, Config{Metrics: m}, newFixtureBackend())
	if rec := get(open, "/metrics"); rec.Code != 200 {
		t.Errorf("/metrics without access control: %d", rec.Code)
	}
}

// TestHookAuthFailuresRateLimited: wrong hook tokens count as failed
// sign-ins (429 past the limit); the right token still passes.
func TestHookAuthFailuresRateLimited(t *testing.T) {
	hooks := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer hooktok" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	h := newTestHandler(t, Config{Hooks: hooks, HookToken: "hooktok"}, newFixtureBackend())
	post := func(tok string) int {
		req := httptest.NewRequest(http.MethodPost, "/hooks/alertmanager", strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusTooManyRequests && rec.Header().Get("Retry-After") == "" {
			return -1
		}
		return rec.Code
	}
	limited := 0
	for i := range 30 {
		switch c := post(fmt.Sprintf("wrong-%d", i)); c {
		case 429:
			limited++
		case 401:
		default:
			t.Errorf("bad token: %d", c)
		}
	}
	if limited == 0 {
		t.Error("30 wrong hook tokens never got 429")
	}
	if c := post("hooktok"); c != http.StatusAccepted {
		t.Errorf("the right hook token after a flood of wrong ones: %d, want 202", c)
	}
}

// TestHealthzReportsTheStore: /healthz asks Config.Health; a damaged store
// is 503 saying so.
func TestHealthzReportsTheStore(t *testing.T) {
	var err error
	h := newTestHandler(t, Config{AuthToken: "x", Health: func(context.Context) error { return err }}, newFixtureBackend())
	if rec := get(h, "/healthz"); rec.Code != 200 {
		t.Errorf("healthy: %d", rec.Code)
	}
	err = fmt.Errorf("%w: database disk image is malformed", ErrUnhealthy)
	rec := get(h, "/healthz")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "corrupt") || strings.Contains(rec.Body.String(), "malformed") {
		t.Errorf("damaged store: %d %q", rec.Code, rec.Body.String())
	}
	err = errors.New("disk I/O error")
	if rec := get(h, "/healthz"); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("unreadable store: %d", rec.Code)
	}
}
