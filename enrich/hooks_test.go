package enrich

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func hookCall(h http.Handler, method, path, token, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestHooksAuthAndStatus(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, func(c *Config, _ *fakeSlack) { c.MaxBody = 64 << 10 })
	hooks := h.svc.Hooks()
	am := string(readFixture(t, "alertmanager_firing.json"))
	gf := string(readFixture(t, "grafana_firing.json"))
	cases := []struct {
		name, method, path, token, body string
		want                            int
	}{
		{"no token", "POST", "/hooks/alertmanager", "", am, http.StatusUnauthorized},
		{"wrong token", "POST", "/hooks/alertmanager", "hook-SECRET-tokeX", am, http.StatusUnauthorized},
		{"not JSON", "POST", "/hooks/alertmanager", "hook-SECRET-token", "{", http.StatusBadRequest},
		{"Grafana body on the Alertmanager hook", "POST", "/hooks/alertmanager", "hook-SECRET-token", gf, http.StatusBadRequest},
		{"too large", "POST", "/hooks/grafana", "hook-SECRET-token", `{"x":"` + strings.Repeat("a", 70<<10) + `"}`, http.StatusRequestEntityTooLarge},
		{"GET", "GET", "/hooks/alertmanager", "hook-SECRET-token", "", http.StatusMethodNotAllowed},
		{"unknown hook", "POST", "/hooks/pagerduty", "hook-SECRET-token", am, http.StatusNotFound},
		{"alertmanager", "POST", "/hooks/alertmanager", "hook-SECRET-token", am, http.StatusAccepted},
		{"grafana", "POST", "/hooks/grafana", "hook-SECRET-token", gf, http.StatusAccepted},
	}
	for _, c := range cases {
		rec := hookCall(hooks, c.method, c.path, c.token, c.body)
		if rec.Code != c.want {
			t.Errorf("%s: status %d, want %d (%s)", c.name, rec.Code, c.want, cut(rec.Body.String(), 200))
		}
		if c.want == http.StatusUnauthorized && !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: no WWW-Authenticate", c.name)
		}
	}
	if err := h.svc.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(h.slack.okCalls("chat.postMessage")); n != 2 {
		t.Errorf("%d messages posted, want the two accepted alerts", n)
	}
	if got := h.metric(t, "faultline_enrich_alerts_rejected_total", "reason", "unauthorized"); got != 2 {
		t.Errorf("unauthorized rejections counted %v", got)
	}
}

func TestHookResendIsNotPostedTwice(t *testing.T) {
	an := &fakeAnalyzer{rep: knownReport(), gate: make(chan struct{}), started: make(chan struct{}, 4)}
	h := newHarness(t, an, nil, func(c *Config, _ *fakeSlack) { c.HookToken = "" })
	hooks := h.svc.Hooks()
	am := string(readFixture(t, "alertmanager_firing.json"))
	if rec := hookCall(hooks, "POST", "/hooks/alertmanager", "", am); rec.Code != http.StatusAccepted {
		t.Fatalf("status %d", rec.Code)
	}
	<-an.started // in progress
	rec := hookCall(hooks, "POST", "/hooks/alertmanager", "", am)
	var body map[string]string
	json.Unmarshal(rec.Body.Bytes(), &body)
	if rec.Code != http.StatusAccepted || body["status"] != "duplicate" {
		t.Errorf("resend while in progress: %d %v", rec.Code, body)
	}
	close(an.gate)
	h.svc.Close(context.Background())
	if n := len(h.slack.okCalls("chat.postMessage")); n != 1 {
		t.Errorf("%d posts, want 1", n)
	}
}

func TestHookQueueFull(t *testing.T) {
	an := &fakeAnalyzer{rep: knownReport(), gate: make(chan struct{}), started: make(chan struct{}, 4)}
	h := newHarness(t, an, nil, func(c *Config, _ *fakeSlack) { c.HookToken, c.Workers, c.QueueSize = "", 1, 1 })
	hooks := h.svc.Hooks()
	am := string(readFixture(t, "alertmanager_firing.json"))
	group := func(i int) string {
		return strings.Replace(am, `"groupKey": "{}`, `"groupKey": "{`+strings.Repeat("x", i)+`}`, 1)
	}
	hookCall(hooks, "POST", "/hooks/alertmanager", "", group(1))
	<-an.started // the worker holds group 1
	if rec := hookCall(hooks, "POST", "/hooks/alertmanager", "", group(2)); rec.Code != http.StatusAccepted {
		t.Fatalf("second group: %d", rec.Code)
	}
	rec := hookCall(hooks, "POST", "/hooks/alertmanager", "", group(3))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("full queue: %d Retry-After %q, want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	close(an.gate)
	h.svc.Close(context.Background())
	if n := len(h.slack.okCalls("chat.postMessage")); n != 2 {
		t.Errorf("%d posts, want the two queued groups", n)
	}
}

// TestSecretsNeverLeak drives failures whose errors carry the secrets and
// checks logs, dead letters and hook answers.
func TestSecretsNeverLeak(t *testing.T) {
	// A Web API error that echoes the token (a misbehaving proxy).
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, nil)
	h.slack.apiError = "invalid_auth: token=" + testToken
	h.svc.process(context.Background(), mustParse(t, "alertmanager_firing.json"))
	rec := hookCall(h.svc.Hooks(), "POST", "/hooks/grafana", "hook-SECRET-tokenWRONG", "{}")
	checkNoSecret(t, h, rec.Body.String(), testToken, "hook-SECRET-token")

	// A webhook whose server is gone: the transport error names the URL.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + testWebhook
	ln.Close()
	h2 := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, func(c *Config, _ *fakeSlack) {
		c.Token, c.Channel, c.WebhookURL = "", "", dead
	})
	h2.svc.process(context.Background(), mustParse(t, "alertmanager_firing.json"))
	checkNoSecret(t, h2, "", "SECRETwebhookPATH")
}

func checkNoSecret(t *testing.T, h *harness, extra string, secrets ...string) {
	t.Helper()
	dls := h.deadLetters(t)
	if len(dls) != 1 {
		t.Fatalf("%d dead letters, want the failed message kept", len(dls))
	}
	raw, _ := json.Marshal(dls)
	logs := h.logs.String()
	if !strings.Contains(logs, "REDACTED") && !strings.Contains(string(raw), "REDACTED") {
		t.Errorf("the failure was not reported with a redacted error: %s", cut(logs, 500))
	}
	for _, s := range secrets {
		for where, text := range map[string]string{"logs": logs, "dead letter": string(raw), "answer": extra} {
			if strings.Contains(text, s) {
				t.Errorf("secret %q appears in the %s", cut(s, 12), where)
			}
		}
	}
}
