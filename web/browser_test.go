package web

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/faultline/faultline/rootcause"
)

// screenshotDir is where the browser tests keep screenshots for review
// (build/ is ignored by git).
const screenshotDir = "../build/screenshots"

// chromiumPath finds the browser: $FAULTLINE_CHROMIUM, else /usr/bin/chromium.
// Without one the test fails when $CI is set and skips otherwise.
func chromiumPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("FAULTLINE_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(p); err != nil {
		msg := "no Chromium at " + p + " (set FAULTLINE_CHROMIUM, or apt-get install chromium)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// browser starts a headless Chromium with a fresh profile and records
// every console error, uncaught exception, CSP report and dialog.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string
	// expected are URLs whose error status the test asked for.
	expected map[string]bool
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	b := &browser{ctx: bctx, expected: map[string]bool{}}
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("cannot start Chromium at %s: %v", path, err)
	}
	go b.watchConsole()
	go b.watchDialogs()
	return b
}

func (b *browser) note(p string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, p)
}

// expectError marks a URL the test opens knowing it answers 4xx.
func (b *browser) expectError(u string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expected[u] = true
}

func (b *browser) isExpected(u string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.expected[u]
}

func (b *browser) watchConsole() {
	for m, err := range chromedp.Console(b.ctx) {
		if err != nil {
			return
		}
		if m.Source == "network" && b.isExpected(m.URL) {
			continue
		}
		if m.Type == chromedp.ConsoleError || m.IsException() || m.Type == chromedp.ConsoleWarning && m.Source == "security" {
			b.note(string(m.Type) + " " + m.Source + ": " + m.Text + " (" + m.URL + ")")
		}
	}
}

func (b *browser) watchDialogs() {
	for ev, err := range chromedp.Events(b.ctx, page.JavascriptDialogOpening) {
		if err != nil {
			return
		}
		b.note("a script opened a dialog: " + ev.Message)
		_, _ = chromedp.Call(b.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
	}
}

// checkClean fails the test on any recorded problem.
func (b *browser) checkClean(t *testing.T) {
	t.Helper()
	time.Sleep(200 * time.Millisecond) // let the last events arrive
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}

func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func (b *browser) eval(t *testing.T, js string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("evaluate %q: %v", js, err)
	}
	return s
}

// waitFor polls a JavaScript condition until it is true.
func (b *browser) waitFor(t *testing.T, what, js string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b.eval(t, "String(Boolean("+js+"))") == "true" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s (%s)", what, js)
}

func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(screenshotDir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) darkMode(t *testing.T, on bool) {
	t.Helper()
	v := "light"
	if on {
		v = "dark"
	}
	b.do(t, "emulate "+v, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}})
		return err
	}))
}

// TestBrowserIncidentToTraceToRunbook walks the on-call path in a real
// Chromium: incident page, top candidate and its evidence, one of its
// traces with the origin marked, then its runbook; then the live refresh,
// dark mode and a phone screen.
func TestBrowserIncidentToTraceToRunbook(t *testing.T) {
	b := newBrowser(t)
	be := newFixtureBackend()
	srv := httptest.NewServer(newTestHandler(t, Config{CacheTTL: -1}, be))
	defer srv.Close()

	browseIncident(t, b, srv.URL)
	browseTrace(t, b)
	browseRunbook(t, b)
	browseLiveRefresh(t, b, srv.URL, be)
	browseThemes(t, b, srv.URL)
	b.checkClean(t)
}

func browseIncident(t *testing.T, b *browser, base string) {
	b.do(t, "open incident", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(".candidate")))
	top := b.eval(t, `document.querySelector('.candidate').innerText`)
	for _, want := range []string{"#1", "payments", "db-pool-exhaustion", "first error of 1,874 failing traces", "Runbook · P1 · MTTR 15m"} {
		if !strings.Contains(top, want) {
			t.Errorf("top candidate lacks %q:\n%s", want, top)
		}
	}
	if got := b.eval(t, `document.querySelector('.node-origin .rolelabel').textContent + '|' + document.querySelectorAll('.edge.fail').length`); got != "◆ ORIGIN|3" {
		t.Errorf("graph origin label | failure-path edges = %q, want ◆ ORIGIN|3", got)
	}
	// The calls that slowed are marked; where the slowness enters is
	// labelled, drawn clear of every service box.
	if got := b.eval(t, `document.querySelectorAll('.edge-slow').length + '|' + Array.from(document.querySelectorAll('.edge-label'), l => l.lastChild.textContent).join(',')`); got != "3|p95 120 ms → 3.0 s" {
		t.Errorf("slowed edges | labels = %q, want 3|p95 120 ms → 3.0 s", got)
	}
	if got := b.eval(t, `(function(){ var l = document.querySelector('.edge-label').getBoundingClientRect(); return Array.from(document.querySelectorAll('.node .shape')).filter(function(n){ var r = n.getBoundingClientRect(); return l.left < r.right && r.left < l.right && l.top < r.bottom && r.top < l.bottom; }).length + ''; })()`); got != "0" {
		t.Errorf("the edge label covers %s service boxes", got)
	}
	if got := b.eval(t, `document.getElementById('slowed-edges').innerText`); !strings.HasPrefix(got, "Calls slower than the baseline (p95), deepest first: checkout → payments 120 ms → 3.0 s") {
		t.Errorf("slowed edges line = %q", got)
	}
	if got := b.eval(t, `document.querySelectorAll('.node-origin .rolelabel').length + ''`); got != "1" {
		t.Errorf("%s origin labels", got)
	}
	if got := b.eval(t, `document.querySelector('.tl-origin .onset-label').textContent`); !strings.Contains(got, "first error 04:08:00") {
		t.Errorf("origin onset label = %q", got)
	}
	b.screenshot(t, "incident")
	b.do(t, "keyboard", chromedp.KeyEvent("\t"))
	if got := b.eval(t, `document.activeElement.className`); got != "skip" {
		t.Errorf("first Tab focuses %q, want the skip link", got)
	}
}

func browseTrace(t *testing.T, b *browser) {
	b.do(t, "open a trace of the top candidate", chromedp.Click(chromedp.CSS(".candidate .trace-link")), chromedp.WaitVisible(chromedp.ID("origin")))
	origin := b.eval(t, `document.getElementById('origin').innerText`)
	for _, want := range []string{"ORIGIN", "payments", "connection pool exhausted"} {
		if !strings.Contains(origin, want) {
			t.Errorf("origin row lacks %q: %s", want, origin)
		}
	}
	casc := b.eval(t, `document.querySelector('.cascade').innerText`)
	if !strings.Contains(casc, "checkout") || !strings.Contains(casc, "because of payments") {
		t.Errorf("cascade chain = %q", casc)
	}
	if w := b.eval(t, `document.querySelector('.warnings').innerText`); !strings.Contains(w, "clock skew") || !strings.Contains(w, "840 ms ahead") {
		t.Errorf("warnings = %q", w)
	}
	b.do(t, "open the raw record", chromedp.Click(chromedp.CSS("#origin summary")))
	b.waitFor(t, "raw record", `document.querySelector('#origin details').open && document.querySelector('#origin .raw').offsetHeight > 0`)
	if raw := b.eval(t, `document.querySelector('#origin .raw').innerText`); !strings.Contains(raw, "k8s.pod.name") {
		t.Errorf("raw record = %q", raw)
	}
	b.do(t, "copy the trace id", chromedp.Click(chromedp.CSS(".trace-head h1 .copy")))
	b.waitFor(t, "copy feedback", `document.querySelector('.trace-head h1 .copy').dataset.copied`)
	if got := b.eval(t, `document.querySelector('.trace-head h1 .copy').dataset.copied`); got != string(fixtureTrace) {
		t.Errorf("copied %q, want the trace id", got)
	}
	b.screenshot(t, "trace")
}

func browseRunbook(t *testing.T, b *browser) {
	b.do(t, "open the runbook", chromedp.Click(chromedp.CSS("section a.btn.primary")), chromedp.WaitVisible(chromedp.CSS(".runbook")))
	rb := b.eval(t, `document.querySelector('.runbook').innerText`)
	for _, want := range []string{"Diagnosis", "pg_stat_activity", "MTTR target"} {
		if !strings.Contains(rb, want) {
			t.Errorf("runbook lacks %q", want)
		}
	}
	if n := b.eval(t, `String(document.querySelectorAll('.codeblock .copy').length)`); n != "2" {
		t.Errorf("%s copy buttons on code blocks, want 2", n)
	}
	b.screenshot(t, "runbook")
}

// browseLiveRefresh changes the backend's report under an open page and
// checks the page follows without losing the reader's place.
func browseLiveRefresh(t *testing.T, b *browser, base string, be *fakeBackend) {
	b.do(t, "open incident", chromedp.Navigate(base+"/incident?since=1h"), chromedp.WaitVisible(chromedp.CSS(".candidate")))
	b.waitFor(t, "the first refresh", `document.getElementById('incident').dataset.updated`)
	b.eval(t, `document.querySelector('#cand-c-checkout-timeout details').open = true, window.scrollTo(0, 400), ''`)
	be.update(func(r *rootcause.Report) {
		r.Traces, r.Candidates[1].Evidence[0] = 20001, "a brand new piece of evidence"
	})
	b.eval(t, `document.dispatchEvent(new Event('visibilitychange')), ''`) // tick now rather than in 15 s
	b.waitFor(t, "the new evidence", `document.querySelector('#cand-c-checkout-timeout').innerText.includes('brand new piece')`)
	got := b.eval(t, `document.querySelector('[data-field=traces]').textContent + '|' + document.querySelector('#cand-c-checkout-timeout details').open + '|' + window.scrollY`)
	if got != "20,001|true|400" {
		t.Errorf("after refresh: traces|open|scrollY = %q, want 20,001|true|400", got)
	}
	b.eval(t, `document.getElementById('live-toggle').click(), ''`)
	if got := b.eval(t, `document.getElementById('live-toggle').getAttribute('aria-pressed') + ' ' + document.getElementById('live-status').textContent`); got != "false paused" {
		t.Errorf("after pause: %q", got)
	}
	be.update(func(r *rootcause.Report) { r.Traces = 30003 })
	b.eval(t, `document.dispatchEvent(new Event('visibilitychange')), ''`)
	time.Sleep(500 * time.Millisecond)
	if got := b.eval(t, `document.querySelector('[data-field=traces]').textContent`); got != "20,001" {
		t.Errorf("paused page changed to %s", got)
	}
	b.eval(t, `document.getElementById('live-toggle').click(), ''`)

	// A candidate's headline, the share it explains, follows the report:
	// from the page the server writes, and from the JSON alone on a tick
	// that brings nothing new (app.js's explainedWords).
	share := `document.querySelector('#cand-` + fixtureRunbook + ` [data-field=explained]').textContent`
	if got := b.eval(t, share); got != "symptoms only" {
		t.Errorf("the top candidate's headline before it explains anything: %q", got)
	}
	be.update(func(r *rootcause.Report) {
		r.Candidates[0].Evidence = append([]string{"explains 77% of the window's anomalous requests, each weighed by how unusual it is (failing traces that begin here 77%) [explained]"}, r.Candidates[0].Evidence...)
	})
	tick := `document.dispatchEvent(new Event('visibilitychange')), `
	b.waitFor(t, "the share from the page", `(`+tick+share+` === 'explains 77%')`)
	b.eval(t, share+` = 'stale', ''`)
	b.waitFor(t, "the share from the JSON", `(`+tick+share+` === 'explains 77%')`)
}

func browseThemes(t *testing.T, b *browser, base string) {
	b.darkMode(t, true)
	b.do(t, "dark incident", chromedp.Navigate(base+"/incident"), chromedp.WaitVisible(chromedp.CSS(".candidate")))
	if bg := b.eval(t, `getComputedStyle(document.body).backgroundColor`); bg == "rgb(246, 247, 249)" {
		t.Errorf("dark mode did not change the background: %s", bg)
	}
	b.screenshot(t, "incident-dark")
	b.do(t, "dark trace", chromedp.Navigate(base+"/trace/"+string(fixtureTrace)), chromedp.WaitVisible(chromedp.ID("origin")))
	b.screenshot(t, "trace-dark")
	b.darkMode(t, false)
	for _, p := range []struct{ path, name string }{{"/incident", "incident-phone"}, {"/trace/" + string(fixtureTrace), "trace-phone"}} {
		b.do(t, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(base+p.path), chromedp.WaitReady(chromedp.CSS("main")))
		if w := b.eval(t, `String(document.documentElement.scrollWidth)`); w != "390" {
			t.Errorf("%s is %spx wide on a 390px phone (horizontal scrolling)", p.path, w)
		}
		b.screenshot(t, p.name)
	}
}

// TestBrowserHostilePagesRunNothing loads pages full of attack strings and
// checks that no script ran and nothing broke the CSP.
func TestBrowserHostilePagesRunNothing(t *testing.T) {
	b := newBrowser(t)
	srv := httptest.NewServer(newTestHandler(t, Config{}, hostileBackend()))
	defer srv.Close()
	bad := "/trace/%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E"
	b.expectError(srv.URL + bad)
	for _, p := range []string{"/incident", "/trace/" + string(fixtureTrace), "/runbooks/" + fixtureRunbook, bad} {
		b.do(t, "open "+p, chromedp.Navigate(srv.URL+p), chromedp.WaitReady(chromedp.CSS("main")))
		if n := b.eval(t, `String(document.querySelectorAll('script').length)`); n != "1" {
			t.Errorf("%s: %s script elements, want only ours", p, n)
		}
		if n := b.eval(t, `String(document.querySelectorAll('img,iframe,[onerror],[onload],[onmouseover]').length)`); n != "0" {
			t.Errorf("%s: %s injected elements", p, n)
		}
	}
	b.screenshot(t, "hostile-trace")
	b.checkClean(t)
}

// TestBrowserCatchesCSPViolations proves the watcher above sees what it
// must: an inline script injected at run time is refused by the CSP and reported.
func TestBrowserCatchesCSPViolations(t *testing.T) {
	b := newBrowser(t)
	srv := httptest.NewServer(newTestHandler(t, Config{}, newFixtureBackend()))
	defer srv.Close()
	b.do(t, "open", chromedp.Navigate(srv.URL+"/runbooks/"+fixtureRunbook), chromedp.WaitReady(chromedp.CSS("main")))
	b.eval(t, `(function(){var s=document.createElement('script'); s.textContent='window.ran=1'; document.body.appendChild(s); return ''})()`)
	if got := b.eval(t, `String(window.ran)`); got != "undefined" {
		t.Errorf("inline script ran despite the CSP (window.ran = %s)", got)
	}
	time.Sleep(300 * time.Millisecond)
	b.mu.Lock()
	defer b.mu.Unlock()
	found := false
	for _, p := range b.problems {
		found = found || strings.Contains(p, "Content Security Policy")
	}
	if !found {
		t.Errorf("the CSP violation was not reported; problems: %q", b.problems)
	}
}
