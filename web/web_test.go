package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
)

func newTestHandler(t testing.TB, cfg Config, b Backend) http.Handler {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return fixtureNow }
	}
	h, err := New(cfg, b, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return asLocalhost(h)
}

// asLocalhost serves h requests made with httptest's default host,
// example.com, as if they named localhost (Host and Origin): an open
// server answers only to its own names (checkHost); TestHostChecked
// tries other hosts on an unwrapped handler.
func asLocalhost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "example.com" {
			r.Host = "localhost"
		}
		if r.Header.Get("Origin") == "http://example.com" {
			r.Header.Set("Origin", "http://localhost")
		}
		h.ServeHTTP(w, r)
	})
}

// get performs one request and returns the recorder.
func get(h http.Handler, path string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestStatusCodes(t *testing.T) {
	h := newTestHandler(t, Config{}, newFixtureBackend())
	tests := []struct {
		path   string
		status int
		ctype  string
		has    string
	}{
		{"/healthz", 200, "text/plain", "ok"},
		{"/login?next=/trace", 303, "", ""},
		{"/", 302, "", ""},
		{"/incident", 200, "text/html", "connection pool exhausted"},
		{"/incident?since=15m", 200, "text/html", "last 15m"},
		{"/incident?from=2026-11-30T03:30:00Z&to=2026-11-30T04:30:00Z&service=payments", 200, "text/html", "service: payments"},
		{"/incident?since=banana", 400, "text/html", "not a positive duration"},
		{"/incident?from=2026-11-30T05:00:00Z&to=2026-11-30T04:00:00Z", 400, "text/html", "from must be before to"},
		{"/incident?since=30d", 400, "text/html", "wider than"},
		{"/incident?since=1h&from=2026-11-30T03:00:00Z", 400, "text/html", "either since"},
		{"/trace/" + string(fixtureTrace), 200, "text/html", "ORIGIN"},
		{"/trace/not-a-trace", 400, "text/html", "not a trace id"},
		{"/trace/ffffffffffffffffffffffffffffffff", 404, "text/html", "No records for this trace id"},
		{"/trace?id=" + strings.ToUpper(string(fixtureTrace)), 302, "", ""},
		{"/trace", 200, "text/html", "Find a trace"},
		{"/runbooks/" + fixtureRunbook, 200, "text/html", "pg_stat_activity"},
		{"/runbooks/" + fixtureRunbook + ".md", 200, "text/markdown", "## Diagnosis"},
		{"/runbooks/nope", 404, "text/html", "no runbook"},
		{"/runbooks/bad%20id", 400, "text/html", "not a runbook id"},
		{"/api/v1/incident?since=1h", 200, "application/json", `"candidates"`},
		{"/api/v1/incident?since=-5m", 400, "application/json", `"error"`},
		{"/api/v1/trace/" + string(fixtureTrace), 200, "application/json", `"origin"`},
		{"/api/v1/trace/zzz", 400, "application/json", `"error"`},
		{"/api/v1/trace/ffffffffffffffffffffffffffffffff", 404, "application/json", `"error"`},
		{"/api/v1/runbooks/" + fixtureRunbook, 200, "application/json", `"markdown"`},
		{"/api/v1/runbooks/nope", 404, "application/json", `"error"`},
		{"/api/v1/nothing", 404, "application/json", `"error"`},
		{"/nothing", 404, "text/html", "no such page"},
		{"/static/app.css", 200, "text/css", "prefers-color-scheme"},
		{"/static/app.js", 200, "javascript", "live"},
		{"/static/../web.go", 404, "", ""},
		{"/hooks/alertmanager", 404, "", ""},
	}
	for _, tt := range tests {
		rec := get(h, tt.path)
		if rec.Code != tt.status {
			t.Errorf("GET %s: status %d, want %d; body %.200s", tt.path, rec.Code, tt.status, rec.Body.String())
			continue
		}
		if ct := rec.Header().Get("Content-Type"); !strings.Contains(ct, tt.ctype) {
			t.Errorf("GET %s: content type %q, want %q", tt.path, ct, tt.ctype)
		}
		if !strings.Contains(rec.Body.String(), tt.has) {
			t.Errorf("GET %s: body lacks %q: %.300s", tt.path, tt.has, rec.Body.String())
		}
	}
}

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	h := newTestHandler(t, Config{}, newFixtureBackend())
	for _, p := range []string{"/incident", "/trace/" + string(fixtureTrace), "/runbooks/" + fixtureRunbook, "/api/v1/incident", "/nothing", "/trace/x"} {
		rec := get(h, p)
		csp := rec.Header().Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", p, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: CSP allows unsafe sources: %q", p, csp)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" || rec.Header().Get("Referrer-Policy") == "" {
			t.Errorf("%s: missing nosniff or Referrer-Policy: %v", p, rec.Header())
		}
	}
}

func TestAPIDocumentsRoundTrip(t *testing.T) {
	b := newFixtureBackend()
	h := newTestHandler(t, Config{}, b)
	rec := get(h, "/api/v1/incident?from=2026-11-30T03:30:00Z&to=2026-11-30T04:30:00Z&service=payments&top=2")
	var rep struct {
		Window     struct{ From, To time.Time }
		Candidates []struct {
			ID      string `json:"id"`
			Rank    int    `json:"rank"`
			Runbook struct {
				URL string `json:"url"`
			} `json:"runbook"`
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil {
		t.Fatalf("incident JSON: %v", err)
	}
	if len(rep.Candidates) != 2 || rep.Candidates[0].ID != fixtureRunbook || rep.Candidates[0].Runbook.URL == "" {
		t.Errorf("candidates = %+v", rep.Candidates)
	}
	want := IncidentQuery{From: fixtureNow.Add(-time.Hour), To: fixtureNow, Service: "payments", Top: 2}
	if b.lastQ != want {
		t.Errorf("backend got %+v, want %+v", b.lastQ, want)
	}
	get(h, "/api/v1/incident")
	if b.lastQ.To.Sub(b.lastQ.From) != 30*time.Minute || b.lastQ.Top != rootcause.MaxTop {
		t.Errorf("default query = %+v, want the CLI's last 30 minutes and the API cap", b.lastQ)
	}
}

// TestAPITopLimit: the API takes top in 1..rootcause.MaxTop, as analyze
// incident --top does, and answers 400 outside it.
func TestAPITopLimit(t *testing.T) {
	b := newFixtureBackend()
	h := newTestHandler(t, Config{}, b)
	max := strconv.Itoa(rootcause.MaxTop)
	if rec := get(h, "/api/v1/incident?since=1h&top="+max); rec.Code != 200 || b.lastQ.Top != rootcause.MaxTop {
		t.Errorf("top=%s: status %d, backend top %d; want 200 and %s", max, rec.Code, b.lastQ.Top, max)
	}
	for _, top := range []string{"0", "-1", strconv.Itoa(rootcause.MaxTop + 1), "200", "10000"} {
		rec := get(h, "/api/v1/incident?since=1h&top="+top)
		var body map[string]string
		if err := json.Unmarshal(rec.Body.Bytes(), &body); rec.Code != 400 || err != nil || !strings.Contains(body["error"], "between 1 and "+max) {
			t.Errorf("top=%s: status %d body %.200s, want 400 with an error naming 1..%s", top, rec.Code, rec.Body.String(), max)
		}
	}
}

func TestAPIErrorsShowNoInternals(t *testing.T) {
	b := newFixtureBackend()
	b.err = errors.New("dial tcp 10.1.2.3:9000: secret-password@clickhouse refused")
	h := newTestHandler(t, Config{}, b)
	for _, p := range []string{"/api/v1/incident", "/incident", "/api/v1/trace/" + string(fixtureTrace), "/runbooks/x"} {
		rec := get(h, p)
		if rec.Code != 500 {
			t.Errorf("%s: status %d, want 500", p, rec.Code)
		}
		if strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "10.1.2.3") {
			t.Errorf("%s: internals leaked: %s", p, rec.Body.String())
		}
	}
	rec := get(h, "/api/v1/incident")
	var body map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["error"] == "" || len(body) != 1 {
		t.Errorf("error body = %q (%v), want {\"error\": ...}", rec.Body.String(), err)
	}
}

func TestPanicBecomes500(t *testing.T) {
	b := newFixtureBackend()
	b.panicMsg = "boom: internal state xyz"
	h := newTestHandler(t, Config{}, b)
	for _, p := range []string{"/incident", "/api/v1/incident"} {
		rec := get(h, p)
		if rec.Code != 500 || strings.Contains(rec.Body.String(), "xyz") {
			t.Errorf("%s: status %d body %.200s, want a 500 without the panic text", p, rec.Code, rec.Body.String())
		}
	}
}

// blockingBackend waits for the request's deadline.
type blockingBackend struct{ fakeBackend }

func (b *blockingBackend) Incident(ctx context.Context, q IncidentQuery) (*rootcause.Report, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestBackendTimeout(t *testing.T) {
	h := newTestHandler(t, Config{RequestTimeout: 30 * time.Millisecond}, &blockingBackend{*newFixtureBackend()})
	rec := get(h, "/api/v1/incident")
	if rec.Code != http.StatusGatewayTimeout || !strings.Contains(rec.Body.String(), "narrower window") {
		t.Errorf("status %d body %s, want 504 with advice", rec.Code, rec.Body.String())
	}
}

func TestHooksMounted(t *testing.T) {
	var gotPath string
	hooks := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.Path
		w.WriteHeader(http.StatusAccepted)
	})
	h := newTestHandler(t, Config{Hooks: hooks, AuthToken: "s3cret"}, newFixtureBackend())
	req := httptest.NewRequest(http.MethodPost, "/hooks/alertmanager", strings.NewReader(`{"version":"4"}`))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted || gotPath != "/hooks/alertmanager" {
		t.Errorf("hooks: status %d path %q, want 202 at /hooks/alertmanager (hooks check their own token)", rec.Code, gotPath)
	}
}

func TestEmptyState(t *testing.T) {
	b := newFixtureBackend()
	b.report = fixtureReport()
	b.report.Traces, b.report.FailedTraces, b.report.Candidates, b.report.Services, b.report.Edges = 0, 0, nil, nil, nil
	h := newTestHandler(t, Config{}, b)
	body := get(h, "/incident").Body.String()
	for _, want := range []string{"No records in this window", "Is ingest running", "Last 15 min"} {
		if !strings.Contains(body, want) {
			t.Errorf("empty page lacks %q", want)
		}
	}
	rec := get(h, "/api/v1/incident")
	if !strings.Contains(rec.Body.String(), `"candidates":[]`) {
		t.Errorf("empty API report should carry an empty list: %s", rec.Body.String())
	}
}

func TestTimelineCappedKeepsOrigin(t *testing.T) {
	b := newFixtureBackend()
	b.traces[fixtureTrace] = largeResult(5000)
	h := newTestHandler(t, Config{MaxTimelineRows: 100}, b)
	body := get(h, "/trace/"+string(fixtureTrace)).Body.String()
	if !strings.Contains(body, "Showing 101 of 5,000 records") || !strings.Contains(body, `?rows=400">Show up to 400`) {
		t.Errorf("cap note or show-more link missing")
	}
	if n := strings.Count(get(h, "/trace/"+string(fixtureTrace)+"?rows=400").Body.String(), `class="wf `); n != 401 {
		t.Errorf("?rows=400 rendered %d rows, want 401", n)
	}
	if !strings.Contains(body, `id="origin"`) {
		t.Errorf("origin row beyond the cap was dropped")
	}
	if n := strings.Count(body, `class="wf `); n != 101 {
		t.Errorf("rendered %d rows, want 101", n)
	}
	rec := get(newTestHandler(t, Config{MaxAPITimelineRows: 300}, b), "/api/v1/trace/"+string(fixtureTrace))
	var res struct {
		Timeline []json.RawMessage `json:"timeline"`
		Warnings []string          `json:"warnings"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil || len(res.Timeline) != 300 {
		t.Fatalf("API timeline = %d entries (%v), want 300", len(res.Timeline), err)
	}
	if w := res.Warnings[len(res.Warnings)-1]; !strings.Contains(w, "300 of 5000") {
		t.Errorf("last warning = %q, want the truncation note", w)
	}
}

func TestCandidatesCapped(t *testing.T) {
	b := newFixtureBackend()
	b.report = largeReport(50, 40)
	h := newTestHandler(t, Config{MaxCandidates: 10, MaxServices: 12}, b)
	body := get(h, "/incident").Body.String()
	if n := strings.Count(body, `class="candidate"`); n != 10 {
		t.Errorf("rendered %d candidates, want 10", n)
	}
	if !strings.Contains(body, "40 more candidates are") || !strings.Contains(body, "28 more services are not") {
		t.Errorf("cap notes missing")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{{BasicUser: "u"}, {PublicURL: "javascript:alert(1)"}, {PublicURL: "/relative"},
		{MaxAPICandidates: rootcause.MaxTop + 1}} {
		if _, err := New(cfg, newFixtureBackend(), nil); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
	if _, err := New(Config{}, nil, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("New with nil backend = %v, want ErrConfig", err)
	}
}

func TestPagesAreValidUTF8(t *testing.T) {
	h := newTestHandler(t, Config{}, newFixtureBackend())
	for _, p := range []string{"/incident", "/trace/" + string(fixtureTrace), "/runbooks/" + fixtureRunbook} {
		body, _ := io.ReadAll(get(h, p).Body)
		if !utf8.Valid(body) {
			t.Errorf("%s: invalid UTF-8", p)
		}
	}
}

func TestIncidentReportsAreSharedBriefly(t *testing.T) {
	b := newFixtureBackend()
	now := fixtureNow.Add(1200 * time.Millisecond)
	h := newTestHandler(t, Config{Now: func() time.Time { return now }}, b)
	get(h, "/api/v1/incident?since=1h")
	now = now.Add(2 * time.Second) // the page fetch that follows the JSON poll
	get(h, "/incident?since=1h")
	if b.calls != 1 {
		t.Errorf("backend called %d times for the poll and the page, want 1", b.calls)
	}
	if want := fixtureNow.Add(-time.Hour); !b.lastQ.From.Equal(want) {
		t.Errorf("relative window starts %v, want %v (now rounded down to the cache TTL)", b.lastQ.From, want)
	}
	get(h, "/incident?since=15m")
	now = now.Add(10 * time.Second)
	get(h, "/incident?since=1h")
	if b.calls != 3 {
		t.Errorf("backend called %d times, want 3 (another window, then an expired entry)", b.calls)
	}
	nc := newFixtureBackend()
	h = newTestHandler(t, Config{CacheTTL: -1}, nc)
	get(h, "/api/v1/incident")
	get(h, "/api/v1/incident")
	if nc.calls != 2 {
		t.Errorf("with the cache off the backend was called %d times, want 2", nc.calls)
	}
}

// gatedBackend counts incident analyses and holds each until released.
type gatedBackend struct {
	fakeBackend
	started atomic.Int32
	release chan struct{}
}

func (b *gatedBackend) Incident(ctx context.Context, q IncidentQuery) (*rootcause.Report, error) {
	b.started.Add(1)
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return b.fakeBackend.Incident(ctx, q)
}

// TestConcurrentViewersShareOneAnalysis: people opening the same incident
// while its analysis runs wait for that one instead of starting their own,
// and get the same report; one who gives up early does not cancel it.
func TestConcurrentViewersShareOneAnalysis(t *testing.T) {
	b := &gatedBackend{fakeBackend: *newFixtureBackend(), release: make(chan struct{})}
	h := newTestHandler(t, Config{CacheTTL: -1}, b) // no cache: only sharing can keep it to one
	const viewers = 6
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	early := httptest.NewRecorder()
	h.ServeHTTP(early, httptest.NewRequest(http.MethodGet, "/api/v1/incident", nil).WithContext(gone))
	var wg sync.WaitGroup
	recs := make([]*httptest.ResponseRecorder, viewers)
	for i := range recs {
		wg.Go(func() { recs[i] = get(h, "/api/v1/incident") })
	}
	// Without sharing, every viewer starts an analysis at once; give them
	// the time to.
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) && b.started.Load() < viewers {
		time.Sleep(5 * time.Millisecond)
	}
	close(b.release)
	wg.Wait()
	if n := b.started.Load(); n != 1 {
		t.Errorf("%d analyses ran for %d viewers (and one who left), want 1", n, viewers)
	}
	for i, rec := range recs {
		if rec.Code != http.StatusOK || rec.Body.String() != recs[0].Body.String() {
			t.Errorf("viewer %d: status %d, body differs: %v", i, rec.Code, rec.Body.String() != recs[0].Body.String())
		}
	}
	if early.Code != 499 {
		t.Errorf("the viewer who left got %d, want 499", early.Code)
	}
}

// windowBackend holds each analysis until released or cancelled, and
// records the cancellations.
type windowBackend struct {
	fakeBackend
	running   atomic.Int32
	peak      atomic.Int32
	cancelled atomic.Int32
	release   chan struct{}
}

func (b *windowBackend) Incident(ctx context.Context, q IncidentQuery) (*rootcause.Report, error) {
	n := b.running.Add(1)
	defer b.running.Add(-1)
	for p := b.peak.Load(); n > p && !b.peak.CompareAndSwap(p, n); p = b.peak.Load() {
	}
	select {
	case <-b.release:
		return b.fakeBackend.Incident(ctx, q)
	case <-ctx.Done():
		b.cancelled.Add(1)
		return nil, ctx.Err()
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAnalysesAreBounded: requests for different windows run at most
// MaxAnalyses analyses at once, AnalysisQueue more wait, and the rest get
// 503 with Retry-After at once.
func TestAnalysesAreBounded(t *testing.T) {
	b := &windowBackend{fakeBackend: *newFixtureBackend(), release: make(chan struct{})}
	h := newTestHandler(t, Config{MaxAnalyses: 1, AnalysisQueue: 1, CacheTTL: -1}, b)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Go(func() { codes[i] = get(h, "/api/v1/incident?since="+strconv.Itoa(10+i)+"m").Code })
		if i == 0 {
			waitFor(t, "the first analysis", func() bool { return b.running.Load() == 1 })
		}
	}
	time.Sleep(50 * time.Millisecond) // the second is queued, not running
	for i := range 6 {
		rec := get(h, "/api/v1/incident?since="+strconv.Itoa(30+i)+"m")
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
			t.Errorf("request %d past the queue: %d (Retry-After %q), want 503 with Retry-After", i, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	if rec := get(h, "/incident?since=45m"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "busy") {
		t.Errorf("page past the queue: %d", rec.Code)
	}
	close(b.release)
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Errorf("running and queued requests: %v, want 200 both", codes)
	}
	if p := b.peak.Load(); p != 1 {
		t.Errorf("%d analyses ran at once, want at most 1", p)
	}
}

// TestAnalysisStopsWhenNobodyWaits: a client that hangs up cancels its
// analysis (no detached work piles up), but only when it was the last one
// waiting for it.
func TestAnalysisStopsWhenNobodyWaits(t *testing.T) {
	b := &windowBackend{fakeBackend: *newFixtureBackend(), release: make(chan struct{})}
	h := newTestHandler(t, Config{CacheTTL: -1}, b)
	ask := func(ctx context.Context) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/incident?since=20m", nil).WithContext(ctx))
		return rec
	}
	// Two viewers of one window; the first hangs up: the analysis goes on.
	c1, hangUp1 := context.WithCancel(context.Background())
	done1 := make(chan *httptest.ResponseRecorder, 1)
	go func() { done1 <- ask(c1) }()
	waitFor(t, "the analysis", func() bool { return b.running.Load() == 1 })
	c2, hangUp2 := context.WithCancel(context.Background())
	done2 := make(chan *httptest.ResponseRecorder, 1)
	go func() { done2 <- ask(c2) }()
	time.Sleep(30 * time.Millisecond)
	hangUp1()
	if rec := <-done1; rec.Code != 499 {
		t.Errorf("the viewer who left got %d", rec.Code)
	}
	time.Sleep(30 * time.Millisecond)
	if b.cancelled.Load() != 0 || b.running.Load() != 1 {
		t.Fatalf("one viewer leaving cancelled the analysis the other waits for")
	}
	// The last one hangs up: the analysis is cancelled.
	hangUp2()
	<-done2
	waitFor(t, "the cancellation", func() bool { return b.cancelled.Load() == 1 && b.running.Load() == 0 })
}

// TestTracePageNamesNoService: a trace whose records name no service shows
// correlate.NoService on its page, never a blank name.
func TestTracePageNamesNoService(t *testing.T) {
	const id = schema.TraceID("6df93f1a2b3c4d5e6f708192a3b4c5d6")
	at := fixtureNow.Add(-10 * time.Minute)
	res := correlate.AnalyzeRecords([]schema.Record{
		{Type: schema.TypeLog, TraceID: id, Time: at, Severity: schema.SeverityError, Body: "db timeout"},
		{Type: schema.TypeLog, TraceID: id, Time: at.Add(time.Second), Severity: schema.SeverityInfo, Body: "ok"},
	}, correlate.Options{})
	b := newFixtureBackend()
	b.traces[id] = res
	rec := get(newTestHandler(t, Config{}, b), "/trace/"+string(id))
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	if n := strings.Count(body, correlate.NoService); n < 3 {
		t.Errorf("%q shown %d times, want the origin, the suspect and the timeline rows", correlate.NoService, n)
	}
	if strings.Contains(body, "<b></b>") || strings.Contains(body, `<strong class="svc"></strong>`) {
		t.Error("a blank service name on the page")
	}
}

// A shipper pointed at the web server by mistake is told where records go,
// even on a protected server, and is not sent to the login form.
func TestPushToWebNamesIngest(t *testing.T) {
	for _, cfg := range []Config{{}, {AuthToken: "tok-123"}} {
		h := newTestHandler(t, cfg, newFixtureBackend())
		for _, p := range []string{"/loki/api/v1/push", "/ingest/jsonl", "/v1/logs", "/v1/traces"} {
			req := httptest.NewRequest(http.MethodPost, p, strings.NewReader(`{"streams":[]}`))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code != http.StatusNotFound || !strings.Contains(body, "ingest serve") || !strings.Contains(body, ":4318") {
				t.Errorf("POST %s (token %q): %d %.300s, want 404 naming ingest serve and its ports", p, cfg.AuthToken, rec.Code, body)
			}
		}
		// Anything else is the web's own: no hint, and behind its login.
		if rec := get(h, "/v1/logs"); strings.Contains(rec.Body.String(), "ingest serve") {
			t.Errorf("GET /v1/logs (token %q) got the push hint: %d", cfg.AuthToken, rec.Code)
		}
	}
}

// TestCandidateHeadlineIsTheShareExplained: a candidate's headline on the
// incident page is the share of the window's anomalous requests it
// explains, its bar as wide, never above 100%, where its score (the share
// plus its symptoms' terms, which ranks) is over 1; the score is named as
// what ranks, and the API keeps it.
func TestCandidateHeadlineIsTheShareExplained(t *testing.T) {
	b := newFixtureBackend()
	b.report = fixtureReport()
	c := &b.report.Candidates[0]
	c.Score = 1.02
	c.Evidence = append([]string{"explains 92% of the window's anomalous requests, each weighed by how unusual it is (failing traces that begin here 92%) [explained]"}, c.Evidence...)
	h := newTestHandler(t, Config{}, b)
	body := get(h, "/incident").Body.String()
	for _, want := range []string{
		`<rect class="fill" width="92" height="8" rx="2"/></svg><span data-field="explained">explains 92%</span>`,
		`<span data-field="explained">symptoms only</span>`,
		`ranked by score 1.02, that share plus its own symptoms' terms`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the incident page lacks %q", want)
		}
	}
	if strings.Contains(body, `data-field="score"`) || strings.Contains(body, ">1.02<") {
		t.Error("the incident page shows the score as a candidate's headline")
	}
	if api := get(h, "/api/v1/incident").Body.String(); !strings.Contains(api, `"score":1.02`) {
		t.Errorf("the API lost the score: %.300s", api)
	}
}

// TestRunbookSeverityReasonOnce: the runbook page's header gives the
// severity's reason only when the text does not open with it (the
// built-in runbooks do; it read twice, one under the other).
func TestRunbookSeverityReasonOnce(t *testing.T) {
	b := newFixtureBackend()
	reason := "P1 because 50.0% of the traces in the window fail here"
	b.runbooks["builtin"] = &runbookgen.Runbook{ID: "builtin", Title: "T", Severity: "P1", MTTRTarget: "15m", SeverityReason: reason,
		Markdown: "# T\n\n**Severity P1 — MTTR target 15m.** " + reason + ".\n\n## Symptoms\n"}
	b.runbooks["team"] = &runbookgen.Runbook{ID: "team", Title: "T", Severity: "P1", MTTRTarget: "15m", SeverityReason: reason,
		Markdown: "# T\n\nOur own words.\n"}
	h := newTestHandler(t, Config{}, b)
	for id, want := range map[string]int{"builtin": 1, "team": 1} {
		if n := strings.Count(get(h, "/runbooks/"+id).Body.String(), reason); n != want {
			t.Errorf("runbook %s shows the severity's reason %d times, want %d", id, n, want)
		}
	}
}
