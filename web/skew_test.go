package web

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

const skewedTrace = schema.TraceID("5ce0aa11223344556677889900aabbcc")

// skewedResult is correlate's own analysis of a trace whose hosts disagree
// on the time, as the demo's do: auth's clock runs 2.2 s ahead of the
// frontend that calls it, pricing's 40 ms behind auth's caller. By the raw
// timestamps auth's span starts after its parent ended and pricing's
// before its parent began.
func skewedResult(t *testing.T) *correlate.Result {
	t.Helper()
	t0 := fixtureNow.Add(-20 * time.Minute)
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	const authAhead, pricingBehind = 2206.8, -40.0
	rec := func(typ schema.RecordType, at float64, svc, span, parent, name string, dur float64, status schema.SpanStatus) schema.Record {
		return schema.Record{Type: typ, Time: t0.Add(ms(at)), TraceID: skewedTrace, SpanID: schema.SpanID(span),
			ParentSpanID: schema.SpanID(parent), Service: svc, Name: name, Duration: ms(dur), Status: status, Severity: schema.SeverityInfo}
	}
	logAt := func(at float64, svc, span, body string, sev schema.Severity) schema.Record {
		r := rec(schema.TypeLog, at, svc, span, "", "", 0, 0)
		r.Body, r.Severity = body, sev
		return r
	}
	recs := []schema.Record{
		rec(schema.TypeSpan, 0, "frontend", "f000000000000001", "", "GET /auth/search", 400, schema.StatusError),
		rec(schema.TypeSpan, 1, "frontend", "f000000000000002", "f000000000000001", "GET", 190, schema.StatusError),
		rec(schema.TypeSpan, authAhead+3, "auth", "a000000000000001", "f000000000000002", "GET /internal/auth/batch", 182, schema.StatusError),
		rec(schema.TypeSpan, authAhead+4, "auth", "a000000000000002", "a000000000000001", "DELETE", 9, schema.StatusError),
		rec(schema.TypeSpan, 6+pricingBehind, "pricing", "b000000000000001", "a000000000000002", "DELETE /api/v1/pricing/{id}", 5, schema.StatusError),
		logAt(10+pricingBehind, "pricing", "b000000000000001", "bulkhead fxRatesApi full: max concurrent calls (3) reached", schema.SeverityError),
		logAt(authAhead+14, "auth", "a000000000000001", "giving up after 2 attempts: Request failed with status code 503", schema.SeverityError),
		logAt(192, "frontend", "f000000000000002", "GET: Request failed with status code 500", schema.SeverityError),
		logAt(399, "frontend", "f000000000000001", "request completed GET /auth/search 500 400ms", schema.SeverityError),
	}
	res := correlate.AnalyzeRecords(recs, correlate.Options{})
	res.TraceID = skewedTrace
	moved := 0
	for _, e := range res.Timeline {
		if e.AdjustedMs != 0 {
			moved++
		}
	}
	if moved == 0 || !res.Failed {
		t.Fatalf("correlate corrected no skew in the fixture (failed %v); the test needs a skewed trace: %+v", res.Failed, res.Warnings)
	}
	return res
}

// TestWaterfallBarsOnCorrectedClock: the rows of the waterfall are in causal
// (skew-corrected) order, so their bars and offsets are too: every span's
// bar lies within its parent's, and the raw host time is kept for the
// page to show on demand.
func TestWaterfallBarsOnCorrectedClock(t *testing.T) {
	res := skewedResult(t)
	v := newTraceView(res, "", 100)
	bars := map[string][2]float64{}
	parents := map[string]string{}
	rawOutside := false
	for _, r := range v.Rows {
		if r.Type != "span" {
			continue
		}
		bars[r.SpanID] = [2]float64{pctOf(t, r.BarX), pctOf(t, r.BarX) + pctOf(t, r.BarW)}
		parents[r.SpanID] = r.ParentID
		if r.Skew != "" && (r.RawBarX == r.BarX || r.RawTime == "" || r.RawOffset == r.Offset) {
			t.Errorf("span %s moved by the correction keeps no raw place: raw x %s, time %q, offset %s", r.SpanID, r.RawBarX, r.RawTime, r.RawOffset)
		}
		if r.SpanID == "a000000000000001" {
			rawOutside = pctOf(t, r.RawBarX) > 90
			if !strings.HasPrefix(r.Offset, "+") || strings.HasSuffix(r.Offset, " s") {
				t.Errorf("auth's span starts at %s on the corrected clock, want within ms of its caller", r.Offset)
			}
		}
	}
	if !rawOutside {
		t.Errorf("by its host's clock auth's span should start past the frontend's end; raw bars: %+v", v.Rows)
	}
	for id, p := range parents {
		pb, ok := bars[p]
		if p == "" || !ok {
			continue
		}
		if b := bars[id]; b[0] < pb[0]-0.01 || b[1] > pb[1]+0.01 {
			t.Errorf("span %s's bar %.2f-%.2f%% is outside its parent %s's %.2f-%.2f%%", id, b[0], b[1], p, pb[0], pb[1])
		}
	}
	// The cascade reads in the order it happened: no service fails
	// "because of" one whose failure came later.
	if v.OriginTime == "" || v.OriginRawTime == "" {
		t.Errorf("origin time %q, host clock %q: pricing's clock was moved, both are wanted", v.OriginTime, v.OriginRawTime)
	}
	last := v.OriginTime
	for _, c := range v.Cascade {
		if c.Time < last {
			t.Errorf("cascade %s failed at %s, before the failure before it (%s)", c.Service, c.Time, last)
		}
		last = c.Time
	}
}

func pctOf(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		t.Fatalf("bar coordinate %q: %v", s, err)
	}
	return f
}

// TestBrowserWaterfallSkewCorrected draws the skewed trace in a real
// Chromium: each span's bar is inside its parent's on the page; the host
// clocks button shows the raw times, where auth's span falls outside its
// caller, and back.
func TestBrowserWaterfallSkewCorrected(t *testing.T) {
	b := newBrowser(t)
	be := newFixtureBackend()
	be.traces[skewedTrace] = skewedResult(t)
	srv := httptest.NewServer(newTestHandler(t, Config{CacheTTL: -1}, be))
	defer srv.Close()
	b.do(t, "open the skewed trace", chromedp.Navigate(srv.URL+"/trace/"+string(skewedTrace)), chromedp.WaitVisible(chromedp.ID("wf-raw")))
	// outside lists the span rows whose bar, as drawn, leaves its parent's.
	const outside = `(function(){
		var out = [];
		document.querySelectorAll('#wf li.wf.span[data-parent]').forEach(function (li) {
			var p = document.querySelector('#wf li.wf.span[data-span="' + li.dataset.parent + '"]');
			if (!p) return;
			var c = li.querySelector('rect').getBoundingClientRect(), q = p.querySelector('rect').getBoundingClientRect();
			if (c.left < q.left - 0.5 || c.right > q.right + 0.5) out.push(li.dataset.span);
		});
		return out.join(',');
	})()`
	if n := b.eval(t, `String(document.querySelectorAll('#wf li.wf.span[data-parent]').length)`); n != "4" {
		t.Fatalf("%s span rows with a parent, want 4", n)
	}
	if got := b.eval(t, outside); got != "" {
		t.Errorf("on the corrected clock these spans' bars leave their parent's: %s", got)
	}
	auth := `document.querySelector('#wf li[data-span="a000000000000001"].span .when').textContent`
	if got := b.eval(t, auth); strings.HasSuffix(got, " s") {
		t.Errorf("auth's span is drawn at %s, its host's skew not corrected", got)
	}
	b.screenshot(t, "trace-skew-corrected")

	b.do(t, "show host clocks", chromedp.Click(chromedp.ID("wf-raw")))
	b.waitFor(t, "the host clocks", `document.getElementById('wf-raw').getAttribute('aria-pressed') === 'true'`)
	if got := b.eval(t, outside); !strings.Contains(got, "a000000000000001") {
		t.Errorf("by the hosts' clocks auth's span should leave its caller's; outside: %q", got)
	}
	if got := b.eval(t, auth); got != "+2.2 s" {
		t.Errorf("auth's span by its host's clock is at %s, want +2.2 s", got)
	}
	b.screenshot(t, "trace-skew-raw")

	b.do(t, "back to the corrected clock", chromedp.Click(chromedp.ID("wf-raw")))
	if got := b.eval(t, outside); got != "" {
		t.Errorf("back on the corrected clock, outside: %s", got)
	}
	b.do(t, "open auth's record", chromedp.Click(chromedp.CSS(`#wf li[data-span="a000000000000001"].span summary`)))
	if raw := b.eval(t, `document.querySelector('#wf li[data-span="a000000000000001"].span .raw').innerText`); !strings.Contains(raw, "host clock") || !strings.Contains(raw, "04:10:02.209 UTC") {
		t.Errorf("the raw record does not show the host's own time: %s", raw)
	}
	b.checkClean(t)
}
