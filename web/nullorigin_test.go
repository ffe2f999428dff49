package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestNullOriginRefused: a browser says Origin: null for a page of no
// site (a sandboxed iframe, a data: URL), which any web page can make; an
// open server took it as no Origin, so such a page could post a made-up
// alert (text/plain, no preflight) to the hooks of a server on localhost
// and have it analysed and sent to Slack. Now refused like a foreign
// Origin; Alertmanager (no Origin) still posts.
func TestNullOriginRefused(t *testing.T) {
	hooked := 0
	hooks := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hooked++; w.WriteHeader(http.StatusAccepted) })
	h, err := New(Config{Now: func() time.Time { return fixtureNow }, Hooks: hooks}, newFixtureBackend(), nil)
	if err != nil {
		t.Fatal(err)
	}
	post := func(origin string) int {
		req := httptest.NewRequest(http.MethodPost, "/hooks/alertmanager", strings.NewReader(`{"alerts":[]}`))
		req.Host = "127.0.0.1:8080"
		req.Header.Set("Content-Type", "text/plain")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if got := post("null"); got != http.StatusForbidden {
		t.Errorf("hook post with Origin: null: %d, want 403", got)
	}
	if got := post(""); got != http.StatusAccepted {
		t.Errorf("hook post without Origin (Alertmanager): %d, want 202", got)
	}
	if hooked != 1 {
		t.Errorf("the hooks were reached %d times, want once", hooked)
	}
}
