package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs `analyze serve` on a free port and returns its base URL
// and a stop func that returns the exit code.
func startServe(t *testing.T, args ...string) (string, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	codes := make(chan int, 1)
	go func() {
		codes <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), strings.NewReader(""), io.Discard, &stderr)
	}()
	re := regexp.MustCompile(`listening on (https?://\S+)`)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], func() int {
				cancel()
				select {
				case c := <-codes:
					return c
				case <-time.After(15 * time.Second):
					t.Fatal("serve did not stop after its context ended")
					return -1
				}
			}
		}
		select {
		case c := <-codes:
			cancel()
			t.Fatalf("serve exited %d: %s", c, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("serve did not start: %s", stderr.String())
	return "", nil
}

func httpGet(t *testing.T, url string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := &http.Client{Timeout: 60 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeEmptyStoreAndShutdown(t *testing.T) {
	base, stop := startServe(t, "--store", filepath.Join(t.TempDir(), "s.db"), "--auth-token", "tok")
	if code, _ := httpGet(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz: %d", code)
	}
	if code, _ := httpGet(t, base+"/api/v1/incident"); code != 401 {
		t.Errorf("API without the token: %d, want 401", code)
	}
	code, body := httpGet(t, base+"/api/v1/incident?since=30m", "Authorization", "Bearer tok")
	if code != 200 || !strings.Contains(body, `"candidates":[]`) {
		t.Errorf("empty incident: %d %s", code, body)
	}
	if code, body := httpGet(t, base+"/incident", "Authorization", "Bearer tok"); code != 200 || !strings.Contains(body, "No records in this window") {
		t.Errorf("empty incident page: %d", code)
	}
	if code, _ := httpGet(t, base+"/api/v1/trace/4bf92f3577b34da6a3ce929d0e0e4736", "Authorization", "Bearer tok"); code != 404 {
		t.Errorf("unknown trace: %d, want 404", code)
	}
	if code, body := httpGet(t, base+"/runbooks/timeout", "Authorization", "Bearer tok"); code != 200 || !strings.Contains(body, "Mitigation") {
		t.Errorf("kind runbook: %d", code)
	}
	if code, body := httpPost(t, base+"/hooks/alertmanager", `{"version":"4"}`); code != 503 || !strings.Contains(body, "FAULTLINE_SLACK_WEBHOOK_URL") {
		t.Errorf("hooks without Slack: %d %s, want 503 naming the setting", code, body)
	}
	if code := stop(); code != exitOK {
		t.Errorf("exit %d after shutdown, want 0", code)
	}
}

func httpPost(t *testing.T, url, body string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeMountsAlertHooks posts an Alertmanager alert to a server whose
// Slack destination is a local fake, and waits for the message to arrive.
func TestServeMountsAlertHooks(t *testing.T) {
	got := recordingSlack(t, 4)
	t.Setenv("FAULTLINE_HOOK_TOKEN", "hook-tok")
	base, stop := startServe(t, "--store", filepath.Join(t.TempDir(), "s.db"), "--auth-token", "ui-only")
	defer stop()
	alert, err := os.ReadFile("../../enrich/testdata/alertmanager_firing.json")
	if err != nil {
		t.Fatal(err)
	}
	if code, body := httpPost(t, base+"/hooks/alertmanager", string(alert)); code != http.StatusUnauthorized {
		t.Fatalf("anonymous hook: %d %s, want 401", code, body)
	}
	if code, body := httpPost(t, base+"/hooks/alertmanager", string(alert), "Authorization", "Bearer hook-tok"); code != http.StatusAccepted {
		t.Fatalf("hook: %d %s, want 202", code, body)
	}
	select {
	case msg := <-got:
		if !strings.Contains(msg, "blocks") {
			t.Errorf("Slack got %.200s, want a Block Kit message", msg)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no message reached the fake Slack")
	}
}

// TestServeProtectedWebNeedsHookToken: with --auth-token (or basic auth)
// and a Slack destination, serve refuses to start while the hooks would
// take alerts from anyone.
func TestServeProtectedWebNeedsHookToken(t *testing.T) {
	t.Setenv("FAULTLINE_SLACK_WEBHOOK_URL", "http://127.0.0.1:1/services/T/B/X")
	t.Setenv("FAULTLINE_HOOK_TOKEN", "")
	db := filepath.Join(t.TempDir(), "s.db")
	for _, auth := range [][]string{{"--auth-token", "ui-only"}, {"--basic-auth", "oncall:pw"}} {
		code, _, errs := runCmd(t, append([]string{"serve", "--store", db, "--listen", "127.0.0.1:0"}, auth...)...)
		if code != exitUsage || !strings.Contains(errs, "FAULTLINE_HOOK_TOKEN") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v without a hook token: exit %d, %q; want 2 naming FAULTLINE_HOOK_TOKEN", auth, code, errs)
		}
	}
}

func TestServeUsage(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--basic-auth", "nocolon"},
		{"serve", "extra"},
		{"serve", "--public-url", "javascript:x", "--store", filepath.Join(t.TempDir(), "s.db")},
		{"serve", "--request-timeout", "0s"},
		{"serve", "--max-analyses", "0"},
		{"serve", "--analysis-queue", "-1"},
	} {
		if code, _, errs := runCmd(t, args...); code != exitUsage || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, errs)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errs := runCmd(t, "serve", "--store", filepath.Join(t.TempDir(), "s.db"), "--listen", ln.Addr().String())
	if code != exitFail || !strings.Contains(errs, "Cannot listen") || !strings.Contains(errs, "give another with --listen") {
		t.Errorf("busy port: exit %d, %q; want what to do", code, errs)
	}
}

// TestServeDemoIncident serves the demo incident end to end through the
// real engines: the top candidate, its runbook and an example trace.
func TestServeDemoIncident(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo simulation takes a while")
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	if code, _, errs := runCmd(t, "demo", "--store", db); code != exitOK {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	base, stop := startServe(t, "--store", db)
	defer stop()
	code, body := httpGet(t, base+"/api/v1/incident?since=1h")
	var rep struct {
		Candidates []struct {
			ID            string   `json:"id"`
			Evidence      []string `json:"evidence"`
			ExampleTraces []string `json:"example_traces"`
			Runbook       struct {
				ID string `json:"id"`
			} `json:"runbook"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(body), &rep); code != 200 || err != nil || len(rep.Candidates) == 0 {
		t.Fatalf("demo incident: %d %v %.300s", code, err, body)
	}
	top := rep.Candidates[0]
	if code, page := httpGet(t, base+"/incident?since=1h"); code != 200 || len(top.Evidence) > 0 && !strings.Contains(page, firstWords(top.Evidence[0])) {
		t.Errorf("incident page: %d, evidence %q not shown", code, top.Evidence)
	}
	if code, _ := httpGet(t, base+"/runbooks/"+top.Runbook.ID); code != 200 {
		t.Errorf("top candidate's runbook %q: %d", top.Runbook.ID, code)
	}
	if len(top.ExampleTraces) > 0 {
		if code, page := httpGet(t, base+"/trace/"+top.ExampleTraces[0]); code != 200 || !strings.Contains(page, "ORIGIN") {
			t.Errorf("example trace: %d", code)
		}
	}
}

// firstWords is the start of a sentence without characters HTML escapes.
func firstWords(s string) string {
	if i := strings.IndexAny(s, `'"<>&`); i >= 0 {
		s = s[:i]
	}
	return s[:min(len(s), 30)]
}

// TestServeHelpHidesSecrets: -h does not print tokens taken from the
// environment as flag defaults.
func TestServeHelpHidesSecrets(t *testing.T) {
	t.Setenv("FAULTLINE_AUTH_TOKEN", "ui-SECRET")
	t.Setenv("FAULTLINE_HOOK_TOKEN", "hook-SECRET")
	t.Setenv("FAULTLINE_BASIC_AUTH", "u:pw-SECRET")
	code, _, errs := runCmd(t, "serve", "-h")
	if code != exitOK || strings.Contains(errs, "SECRET") || !strings.Contains(errs, "hook-token") {
		t.Errorf("serve -h: exit %d, shows a secret or lacks --hook-token:\n%s", code, errs)
	}
}

// fakeSlack points FAULTLINE_SLACK_WEBHOOK_URL, for the rest of the test,
// at a local server answering with h: Slack's incoming webhook, faked.
func fakeSlack(t *testing.T, h http.HandlerFunc) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Setenv("FAULTLINE_SLACK_WEBHOOK_URL", srv.URL+"/services/T/B/X")
}

// recordingSlack is fakeSlack that takes every message and passes its body
// on the channel it returns (of capacity n).
func recordingSlack(t *testing.T, n int) chan string {
	t.Helper()
	got := make(chan string, n)
	fakeSlack(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
		_, _ = io.WriteString(w, "ok")
	})
	return got
}
