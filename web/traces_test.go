package web

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// Traces lists the fixture's two traces: the fake backend is a TraceLister.
func (f *fakeBackend) Traces(ctx context.Context, q analysis.TracesQuery) (*analysis.TraceList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	l := &analysis.TraceList{Window: rootcause.Window{From: q.From, To: q.To}, BucketSec: 120, Traces: 2,
		Baseline: &rootcause.Window{From: q.From.Add(-q.To.Sub(q.From)), To: q.From}}
	for _, id := range []schema.TraceID{fixtureTrace, fixtureTrace2} {
		res := f.traces[id]
		if q.Service != "" && !strings.Contains(strings.Join(res.Services, ","), q.Service) {
			continue
		}
		l.Matched++
		l.Rows = append(l.Rows, analysis.TraceRow{TraceID: id, Start: res.Start, DurationMs: res.Duration, Service: "frontend",
			Operation: "GET /checkout", Services: res.Services, Failed: res.Failed, Origin: res.Origin})
	}
	reqs, errs, p95 := make([]int, 30), make([]int, 30), make([]float64, 30)
	for i := range reqs {
		reqs[i], p95[i] = 40, 120
		if i >= 19 {
			errs[i], p95[i] = 30, 2900
		}
	}
	l.Services = []analysis.ServiceStats{{Service: "payments", Requests: reqs, Errors: errs, P95Ms: p95,
		Band:  &analysis.Band{ReqLo: 30, ReqHi: 50, ErrHi: 0.02, P95Lo: 80, P95Hi: 160, HasP95: true, Buckets: 30},
		Onset: q.From.Add(38 * time.Minute), Deploys: []analysis.Deploy{{Version: "2.4.1", At: q.From.Add(37 * time.Minute)}}}}
	return l, nil
}

// TestTracesPage: /traces lists the traces with their links and origin,
// charts each service with its band, onset and deploy, and refuses a bad
// filter with a 400 that says which.
func TestTracesPage(t *testing.T) {
	h := newTestHandler(t, Config{}, newFixtureBackend())
	page := get(h, "/traces?since=1h&errors=1").Body.String()
	for _, want := range []string{`class="trace-link" href="/trace/` + string(fixtureTrace) + `"`, "pq: connection pool exhausted",
		`id="svc-payments"`, `class="band"`, "left its baseline at 04:08:00", "version 2.4.1 first seen 04:07:00", "checked> failing only",
		"shaded: the usual range of the 1h before the window (02:30–03:30)"} {
		if !strings.Contains(page, want) {
			t.Errorf("/traces lacks %q", want)
		}
	}
	for q, want := range map[string]string{"min=soon": "min", "errors=maybe": "errors", "rows=0": "rows", "since=1h&from=2026-11-30T03:00:00Z": "either since"} {
		rec := get(h, "/api/v1/traces?"+q)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %d %s", q, rec.Code, rec.Body.String())
		}
	}
}

// TestBrowserIncidentToTraces walks from the incident page to the window's
// failing traces and on to one of them, in a real Chromium; the list fits
// a phone's width.
func TestBrowserIncidentToTraces(t *testing.T) {
	b := newBrowser(t)
	srv := httptest.NewServer(newTestHandler(t, Config{CacheTTL: -1}, newFixtureBackend()))
	defer srv.Close()
	b.do(t, "open incident", chromedp.Navigate(srv.URL+"/incident?since=1h"), chromedp.WaitVisible(chromedp.ID("failing-traces")))
	b.do(t, "open the failing traces", chromedp.Click(chromedp.ID("failing-traces")), chromedp.WaitVisible(chromedp.CSS(".trace-list")))
	if got := b.eval(t, `document.querySelectorAll('.trace-list .trace-link').length + '|' + document.querySelector('#svc-payments').innerText.includes('left its baseline')`); got != "2|true" {
		t.Errorf("traces page: links|onset = %q, want 2|true", got)
	}
	b.screenshot(t, "traces")
	b.do(t, "open a trace", chromedp.Click(chromedp.CSS(".trace-list .trace-link")), chromedp.WaitVisible(chromedp.ID("origin")))
	b.do(t, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(srv.URL+"/traces?since=1h"), chromedp.WaitReady(chromedp.CSS("main")))
	if w := b.eval(t, `String(document.documentElement.scrollWidth)`); w != "390" {
		t.Errorf("/traces is %spx wide on a 390px phone (horizontal scrolling)", w)
	}
	b.screenshot(t, "traces-phone")
	b.checkClean(t)
}
