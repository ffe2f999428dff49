package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeTracesOfTheDemo lists the demo window's failing traces on the
// web UI (its dependency map's slowed calls, and its default window,
// which leaves the demo a baseline): every row links a trace page that shows a failed trace, the
// filters hold, and the silent fx-rates-api is charted (from its callers'
// calls) with the baseline's band and the moment it left it.
func TestServeTracesOfTheDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo simulation takes a while")
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	code, out, errs := runCmd(t, "demo", "--store", db)
	if code != exitOK {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	incident := regexp.MustCompile(`http://localhost:8080(/incident\?from=\S+&to=\S+)`).FindStringSubmatch(out)
	if incident == nil {
		t.Fatalf("the demo printed no incident link:\n%s", out)
	}
	window := strings.TrimPrefix(incident[1], "/incident?")
	base, stop := startServe(t, "--store", db)
	defer stop()

	code, page := httpGet(t, base+incident[1])
	incidentPage := page
	if code != 200 || !strings.Contains(page, `href="/traces?`) {
		t.Fatalf("the incident page (%d) does not link its traces", code)
	}
	// The dependency map times its edges: the calls to the slowed
	// fx-rates-api are where the slowness enters, labelled on the map.
	slowed := regexp.MustCompile(`id="slowed-edges">Calls slower than the baseline \(p95\), deepest first: <strong>pricing → fx-rates-api</strong> \d+ ms → [\d.]+ s`)
	if !slowed.MatchString(page) || !strings.Contains(page, `class="edge-slow" data-edge="pricing → fx-rates-api"`) {
		t.Errorf("the incident page's map does not mark pricing → fx-rates-api slower than its baseline")
	}
	// The default window, on a store that holds the demo's half hour,
	// leaves it a baseline and ranks the fault first.
	code, page = httpGet(t, base+"/incident")
	top := regexp.MustCompile(`<span class="svc">([^<]+)</span>`).FindStringSubmatch(page)
	if code != 200 || !strings.Contains(page, `id="window-note">The store&#39;s records begin at`) || top == nil || top[1] != "fx-rates-api" {
		t.Errorf("/incident without a window: %d, top candidate %q, or no note of the window chosen", code, top)
	}
	if b := regexp.MustCompile(`id="baseline-data">Baseline: [0-9:]+ – [0-9:]+ UTC, ([0-9.]+) minutes of data`).FindStringSubmatch(page); b == nil || atof(b[1]) < 10 {
		t.Errorf("the default window's baseline: %q, want ten minutes of data or more", b)
	}
	// analyze incident without a window takes the same one as /.
	code, js, errs := runCmd(t, "incident", "--store", db, "--json")
	var rep struct {
		Window struct{ From, To time.Time } `json:"window"`
	}
	if err := json.Unmarshal([]byte(js), &rep); code != exitOK || err != nil || !strings.Contains(errs, "less than an hour: the window is the last") ||
		rep.Window.To.Sub(rep.Window.From) >= 20*time.Minute {
		t.Errorf("analyze incident without a window: exit %d, %v, window %v, stderr %q", code, err, rep.Window, errs)
	}
	code, page = httpGet(t, base+"/traces?"+window+"&errors=1&service=pricing")
	if code != 200 {
		t.Fatalf("/traces: %d", code)
	}
	links := regexp.MustCompile(`class="trace-link" href="(/trace/[0-9a-f]{32})"`).FindAllStringSubmatch(page, -1)
	if len(links) < 5 {
		t.Fatalf("only %d failing traces listed", len(links))
	}
	for _, l := range links[:3] {
		if code, tp := httpGet(t, base+l[1]); code != 200 || !strings.Contains(tp, "✖ failed") || !strings.Contains(tp, "pricing") {
			t.Errorf("%s: %d, not a failed trace through pricing", l[1], code)
		}
	}
	// Opened from the incident, every failing trace whose suspect is the
	// top candidate's service shows the incident's kind of it, whatever
	// its own analysis saw (an open breaker's refusal).
	rb := regexp.MustCompile(`href="/runbooks/(fx-rates-api-[^"]+)">Runbook · P1`).FindStringSubmatch(incidentPage)
	if rb == nil {
		t.Fatalf("no runbook of fx-rates-api on the incident page")
	}
	suspect := regexp.MustCompile(`<h3>Suspect: <strong>([^<]+)</strong> <span class="kind kind-([a-z-]+)">`)
	agree := 0
	for _, l := range links {
		_, tp := httpGet(t, base+l[1]+"?runbook="+rb[1])
		if m := suspect.FindStringSubmatch(tp); m != nil && m[1] == "fx-rates-api" {
			agree++
			if m[2] != "dependency-timeout" {
				t.Errorf("%s names fx-rates-api %s, the incident dependency-timeout", l[1], m[2])
			}
		}
	}
	if agree < len(links)/2 {
		t.Errorf("only %d of %d failing traces through pricing name fx-rates-api", agree, len(links))
	}
	if !strings.Contains(page, `id="svc-fx-rates-api"`) || !strings.Contains(page, "left its baseline at") || !strings.Contains(page, `class="band"`) {
		t.Errorf("the traces page does not chart fx-rates-api against its baseline")
	}
	var list struct {
		Matched int `json:"matched"`
		Rows    []struct {
			Failed     bool     `json:"failed"`
			DurationMs float64  `json:"duration_ms"`
			Services   []string `json:"services"`
		} `json:"rows"`
	}
	code, js = httpGet(t, base+"/api/v1/traces?"+window+"&min=3s")
	if err := json.Unmarshal([]byte(js), &list); code != 200 || err != nil || list.Matched == 0 {
		t.Fatalf("/api/v1/traces?min=3s: %d %v %.200s", code, err, js)
	}
	for _, r := range list.Rows {
		if r.DurationMs < 3000 {
			t.Errorf("a trace of %.0f ms under min=3s", r.DurationMs)
		}
	}
	if code, _ := httpGet(t, base+"/api/v1/traces?"+window+"&min=soon"); code != 400 {
		t.Errorf("min=soon: %d, want 400", code)
	}
}

func atof(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
