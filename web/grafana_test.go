package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestGrafanaLinksOpenTraces follows the Grafana data links of
// ingest/README.md: the Loki derived field's regex captures the trace id
// from the line formats faultline reads, and its URL, and the Tempo table
// link's with the zero-stripped id Tempo shows, open that trace's page.
func TestGrafanaLinksOpenTraces(t *testing.T) {
	readme, err := os.ReadFile("../ingest/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), "## Grafana data links")
	if !ok {
		t.Fatal(`ingest/README.md has no "## Grafana data links" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	m := regexp.MustCompile(`matcherRegex: '([^']+)'`).FindStringSubmatch(sec)
	urls := regexp.MustCompile(`(?:url: '|"url": ")(http://[^'"]+)`).FindAllStringSubmatch(sec, -1)
	if m == nil || len(urls) != 2 {
		t.Fatalf("want one matcherRegex and two link URLs in the section, got %q and %d URLs", m, len(urls))
	}
	re, err := regexp.Compile(m[1])
	if err != nil {
		t.Fatalf("the derived field's regex does not compile: %v", err)
	}
	srv := httptest.NewServer(newTestHandler(t, Config{}, newFixtureBackend()))
	defer srv.Close()
	open := func(link, id string) {
		t.Helper()
		u := strings.Replace(link, "${__value.raw}", id, 1)
		u = srv.URL + u[strings.Index(u[len("http://"):], "/")+len("http://"):]
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "ORIGIN") {
			t.Errorf("%s: %d, want the trace page; %.200s", u, resp.StatusCode, body)
		}
	}
	id := string(fixtureTrace)
	for _, line := range []string{
		`level=error msg="db timeout" trace_id=` + id + ` span_id=1a2b3c4d5e6f7a8b`,
		`{"level":"error","msg":"db timeout","trace_id":"` + id + `"}`,
		`{"message":"db timeout","traceId":"` + strings.ToUpper(id) + `"}`,
		`{"msg":"db timeout","traceID": "` + id + `"}`,
		`2026-12-01 10:00:00 ERROR checkout traceid=` + id + ` payment failed`,
	} {
		got := re.FindStringSubmatch(line)
		if got == nil {
			t.Errorf("the derived field's regex captures nothing in %s", line)
			continue
		}
		open(urls[0][1], got[1])
	}
	// Tempo shows ids without their leading zeros.
	open(urls[1][1], strings.TrimLeft(string(fixtureTrace2), "0"))
}
