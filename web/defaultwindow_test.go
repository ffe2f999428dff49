package web

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
)

func TestDefaultSince(t *testing.T) {
	now := fixtureNow
	for _, c := range []struct {
		name        string
		first, last time.Duration // before now; first 0: an empty store
		want        time.Duration
		short       bool
	}{
		{"empty", 0, 0, defaultWindow, false},
		{"history", 2 * time.Hour, 0, defaultWindow, false},
		{"an hour", time.Hour, 0, defaultWindow, false},
		{"59 minutes", 59 * time.Minute, 0, 29 * time.Minute, true},
		{"the demo's", 30 * time.Minute, 0, 15 * time.Minute, true},
		{"the demo's, a minute on", 31 * time.Minute, time.Minute, 16 * time.Minute, true},
		{"25m50s", 25*time.Minute + 50*time.Second, 0, 12 * time.Minute, true},
		{"4 minutes", 4 * time.Minute, 0, minDefaultWindow, true},
		{"one record", 12*time.Minute + 30*time.Second, 12*time.Minute + 30*time.Second, 13 * time.Minute, true},
		{"stale", 50 * time.Minute, 40 * time.Minute, defaultWindow, false},
		{"first after now", -time.Minute, 0, defaultWindow, false},
	} {
		first := time.Time{}
		if c.first != 0 {
			first = now.Add(-c.first)
		}
		d, short := DefaultSince(first, now.Add(-c.last), now)
		if d != c.want || short != c.short {
			t.Errorf("%s: default window %v (short %v), want %v (%v)", c.name, d, short, c.want, c.short)
		}
		// A short window holds the newest record, and leaves as much data
		// before it as it holds, where the store reaches now.
		if short && now.Add(-d).After(now.Add(-c.last)) {
			t.Errorf("%s: the window from %v leaves out the last record", c.name, now.Add(-d))
		}
		if short && c.last == 0 && c.first >= 2*minDefaultWindow && c.first-d < d {
			t.Errorf("%s: window %v leaves %v of baseline, less than itself", c.name, d, c.first-d)
		}
	}
}

// TestDefaultWindowKeepsBaseline opens / on a store that holds 30 minutes:
// the page ranks the newest 15 minutes, says why and what the baseline
// held, and its live refresh asks the API for the same window; a window
// the request names is left alone, and a store with history gets the
// usual 30 minutes.
func TestDefaultWindowKeepsBaseline(t *testing.T) {
	be := newFixtureBackend()
	be.first = fixtureNow.Add(-30 * time.Minute)
	h := newTestHandler(t, Config{CacheTTL: -1}, be)

	rec := get(h, "/")
	if rec.Code != 302 || rec.Header().Get("Location") != "/incident" {
		t.Fatalf("/: %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	page := getOK(t, h, "/incident")
	if q := be.lastQ; !q.From.Equal(fixtureNow.Add(-15*time.Minute)) || !q.To.Equal(fixtureNow) {
		t.Errorf("default window %v – %v, want the newest 15 minutes", q.From, q.To)
	}
	for _, want := range []string{
		`id="window-note">The store&#39;s records begin at 04:00 UTC, less than 1h ago: the default window is the last 15m, from the middle of what the store holds, so that what comes before is its baseline.`,
		`id="baseline-data">Baseline: 02:30 – 03:30 UTC, 60 minutes of data, 402,113 records.`,
		`data-api="/api/v1/incident?since=15m"`,
		`Incident <span class="muted">last 15m`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the default incident page lacks %s", want)
		}
	}
	var rep struct {
		Window struct{ From, To time.Time } `json:"window"`
	}
	if err := json.Unmarshal([]byte(getOK(t, h, "/api/v1/incident")), &rep); err != nil || !be.lastQ.From.Equal(fixtureNow.Add(-15*time.Minute)) {
		t.Errorf("/api/v1/incident without a window: %v, asked for %v", err, be.lastQ.From)
	}

	if page := getOK(t, h, "/incident?since=30m"); strings.Contains(page, "window-note") || !be.lastQ.From.Equal(fixtureNow.Add(-30*time.Minute)) {
		t.Errorf("since=30m was not left alone: %v", be.lastQ.From)
	}
	be.first = fixtureNow.Add(-3 * time.Hour)
	h = newTestHandler(t, Config{CacheTTL: -1}, be) // a new server: bounds are kept a minute
	if page := getOK(t, h, "/incident"); strings.Contains(page, "window-note") || !be.lastQ.From.Equal(fixtureNow.Add(-30*time.Minute)) {
		t.Errorf("a store with 3 h of history: default from %v, want the last 30 minutes", be.lastQ.From)
	}
}

// TestBaselineLabel says what the window was compared with, or that
// nothing was.
func TestBaselineLabel(t *testing.T) {
	rep := fixtureReport()
	rep.BaselineData.Minutes, rep.BaselineData.Records, rep.BaselineData.Thin = 2.5, 512, true
	if got, want := baselineLabel(rep), "Baseline: 02:30 – 03:30 UTC, 2.5 minutes of data, 512 records (thin: fewer minutes of data than the window)."; got != want {
		t.Errorf("thin baseline: %q, want %q", got, want)
	}
	rep.Baseline, rep.BaselineData = nil, nil
	if got := baselineLabel(rep); !strings.HasPrefix(got, "Baseline: none") {
		t.Errorf("no baseline: %q", got)
	}
}

// TestNewestWindowLinked: a store whose records end before the window
// (ingest stopped, a demo run hours ago) shows an empty page that links
// the default window up to its newest record; one that reaches into the
// window, or an empty one, links none.
func TestNewestWindowLinked(t *testing.T) {
	be := newFixtureBackend()
	be.report = &rootcause.Report{Window: rootcause.Window{From: fixtureNow.Add(-30 * time.Minute), To: fixtureNow}}
	be.first, be.last = fixtureNow.Add(-3*time.Hour), fixtureNow.Add(-2*time.Hour)
	page := getOK(t, newTestHandler(t, Config{CacheTTL: -1}, be), "/incident")
	want := `id="newest-window" href="/incident?from=2026-11-30T02%3A01%3A00Z&amp;to=2026-11-30T02%3A31%3A00Z">The store&#39;s newest record is at Nov 30 02:30:00 UTC: open the 30m up to it</a>`
	if !strings.Contains(page, "No records in this window") || !strings.Contains(page, want) {
		t.Errorf("the empty page does not link the store's newest records (%s)", want)
	}
	be.last = fixtureNow.Add(-10 * time.Minute)
	if page := getOK(t, newTestHandler(t, Config{CacheTTL: -1}, be), "/incident"); strings.Contains(page, "newest-window") {
		t.Errorf("records in the window, yet the page links the newest ones")
	}
	be.first, be.last = time.Time{}, time.Time{}
	if page := getOK(t, newTestHandler(t, Config{CacheTTL: -1}, be), "/incident"); strings.Contains(page, "newest-window") {
		t.Errorf("an empty store, yet the page links its newest records")
	}
}
