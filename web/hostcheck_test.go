package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHostChecked: an open server answers only requests addressed to it
// (an IP, localhost, its --public-url host): with Host evil.example (a
// DNS-rebinding page) the API answered 200 with the full report, now 403;
// a browser write (an Origin) must come from such a host too; /healthz
// and the hooks (without an Origin) answer any Host; a protected server is
// not checked (credentials are).
func TestHostChecked(t *testing.T) {
	hooked := 0
	hooks := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hooked++; w.WriteHeader(http.StatusAccepted) })
	open, err := New(Config{Now: func() time.Time { return fixtureNow }, Hooks: hooks}, newFixtureBackend(), nil)
	if err != nil {
		t.Fatal(err)
	}
	named, err := New(Config{Now: func() time.Time { return fixtureNow }, PublicURL: "https://faultline.example"}, newFixtureBackend(), nil)
	if err != nil {
		t.Fatal(err)
	}
	protected, err := New(Config{Now: func() time.Time { return fixtureNow }, AuthToken: "tok"}, newFixtureBackend(), nil)
	if err != nil {
		t.Fatal(err)
	}
	do := func(h http.Handler, method, path, host string, hdr ...string) int {
		req := httptest.NewRequest(method, path, strings.NewReader("{}"))
		req.Host = host
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	api := "/api/v1/runbooks/" + fixtureRunbook
	for _, c := range []struct {
		name         string
		h            http.Handler
		method, path string
		host         string
		hdr          []string
		want         int
	}{
		{"API, foreign host", open, "GET", api, "evil.example:8081", nil, 403},
		{"page, foreign host", open, "GET", "/incident?since=30m", "evil.example:8081", nil, 403},
		{"mcp-less 404, foreign host", open, "GET", "/nothing", "evil.example", nil, 403},
		{"API, loopback IP", open, "GET", api, "127.0.0.1:8081", nil, 200},
		{"API, IPv6 loopback", open, "GET", api, "[::1]:8081", nil, 200},
		{"API, localhost", open, "GET", api, "localhost:8081", nil, 200},
		{"API, a LAN IP", open, "GET", api, "10.1.2.3:8080", nil, 200},
		{"healthz, foreign host", open, "GET", "/healthz", "evil.example", nil, 200},
		{"write, foreign Origin", open, "POST", "/api/v1/deadletters/x/resend", "127.0.0.1:8081", []string{"Origin", "http://evil.example:8081"}, 403},
		{"hook from Alertmanager, any Host", open, "POST", "/hooks/alertmanager", "faultline.monitoring.svc:8080", nil, 202},
		{"hook from a page, foreign Origin", open, "POST", "/hooks/alertmanager", "127.0.0.1:8081", []string{"Origin", "http://evil.example"}, 403},
		{"public URL's host", named, "GET", api, "faultline.example", nil, 200},
		{"another name of a named server", named, "GET", api, "evil.example", nil, 403},
		{"protected, foreign host, with the token", protected, "GET", api, "proxy.internal", []string{"Authorization", "Bearer tok"}, 200},
	} {
		if got := do(c.h, c.method, c.path, c.host, c.hdr...); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	if hooked != 1 {
		t.Errorf("the hooks were reached %d times, want once (only Alertmanager's post)", hooked)
	}
}

// TestNoStore: runbooks (JSON and Markdown) and API errors carry
// Cache-Control: no-store, as every answer with incident data does.
func TestNoStore(t *testing.T) {
	h := newTestHandler(t, Config{}, newFixtureBackend())
	for _, path := range []string{"/api/v1/runbooks/" + fixtureRunbook, "/runbooks/" + fixtureRunbook + ".md", "/runbooks/" + fixtureRunbook,
		"/api/v1/trace/not-a-trace", "/api/v1/incident?since=forever", "/api/v1/runbooks/nope", "/incident?since=30m"} {
		rec := get(h, path)
		if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s (%d): Cache-Control %q, want no-store", path, rec.Code, cc)
		}
	}
}
