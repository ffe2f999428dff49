package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// enrichT0 is when the seeded incident begins.
var enrichT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// enrichStore writes a small incident into a fresh embedded store: in
// every trace checkout times out on inventory, whose database pool is
// exhausted.
func enrichStore(t *testing.T) (string, []string) {
	t.Helper()
	return enrichStoreAt(t, enrichT0)
}

// enrichStoreAt is enrichStore with the incident beginning at t0.
func enrichStoreAt(t *testing.T, t0 time.Time) (string, []string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "enrich.db")
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var recs []schema.Record
	var ids []string
	for i := range 8 {
		id := schema.TraceID(fmt.Sprintf("%032x", 0xe0000+i))
		ids = append(ids, string(id))
		t0 := t0.Add(time.Duration(i) * 20 * time.Second)
		ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
		recs = append(recs,
			schema.Record{Type: schema.TypeSpan, TraceID: id, SpanID: "00000000000000a1", Service: "checkout", Name: "POST /checkout",
				Time: ms(0), Duration: 3005 * time.Millisecond, Status: schema.StatusError},
			schema.Record{Type: schema.TypeSpan, TraceID: id, SpanID: "00000000000000b1", ParentSpanID: "00000000000000a1",
				Service: "inventory", Name: "GET /reserve", Time: ms(4), Duration: 2100 * time.Millisecond, Status: schema.StatusError},
			schema.Record{Type: schema.TypeLog, TraceID: id, SpanID: "00000000000000b1", Service: "inventory", Time: ms(2100),
				Severity: schema.SeverityError, Body: "HikariPool-1 - Connection is not available, request timed out after 2000ms <pool>"},
			schema.Record{Type: schema.TypeLog, TraceID: id, SpanID: "00000000000000a1", Service: "checkout", Time: ms(3003),
				Severity: schema.SeverityError, Body: "call to inventory exceeded 3000ms"},
		)
	}
	if err := st.WriteBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path, ids
}

// enrichAlert writes a resolved Alertmanager alert for checkout covering
// the seeded incident.
func enrichAlert(t *testing.T) string {
	t.Helper()
	body := fmt.Sprintf(`{"version":"4","groupKey":"{}:{alertname=\"CheckoutErrors\"}","status":"resolved","receiver":"faultline",
	"groupLabels":{"alertname":"CheckoutErrors"},"commonLabels":{"alertname":"CheckoutErrors","service":"checkout","severity":"critical"},
	"commonAnnotations":{"summary":"Checkout is failing","runbook_url":"https://wiki.example.com/checkout"},"externalURL":"http://am:9093",
	"alerts":[{"status":"resolved","labels":{"alertname":"CheckoutErrors","service":"checkout","severity":"critical"},
	"annotations":{"summary":"Checkout is failing"},"startsAt":%q,"endsAt":%q,"generatorURL":"http://prom:9090/graph","fingerprint":"0123456789abcdef"}]}`,
		enrichT0.Add(time.Minute).Format(time.RFC3339), enrichT0.Add(10*time.Minute).Format(time.RFC3339))
	path := filepath.Join(t.TempDir(), "alert.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEnrichJSONRealAnalysis(t *testing.T) {
	st, ids := enrichStore(t)
	code, out, errs := runCmd(t, "enrich", "--store", st, "--json", "--alert", enrichAlert(t), "--public-url", "https://fl.example.com")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var msg struct {
		Text   string            `json:"text"`
		Blocks []json.RawMessage `json:"blocks"`
	}
	if err := json.Unmarshal([]byte(out), &msg); err != nil || len(msg.Blocks) == 0 {
		t.Fatalf("stdout is not one Block Kit message: %v\n%s", err, out)
	}
	for _, want := range []string{"RESOLVED: CheckoutErrors (critical)", "*Likely origin:* *inventory*", "https://fl.example.com/trace/" + ids[0][:8],
		"https://fl.example.com/incident?from=2026-03-01T11%3A46%3A00Z&amp;to=2026-03-01T12%3A10%3A00Z&amp;service=checkout",
		"https://fl.example.com/runbooks/", "link from the alert: <https://wiki.example.com/checkout|wiki.example.com>", "&lt;pool&gt;"} {
		if !strings.Contains(out, want) {
			t.Errorf("message lacks %q", want)
		}
	}
	if errs != "" {
		t.Errorf("stderr %q, want quiet", errs)
	}
}

// TestEnrichFiringAlertFromTwoDaysAgo: a real Alertmanager v4 payload of
// an alert still firing, whose startsAt is two days old, is analysed on
// the stretch it fired in (which the store holds), not on the hours
// before now.
func TestEnrichFiringAlertFromTwoDaysAgo(t *testing.T) {
	t0 := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Second)
	st, _ := enrichStoreAt(t, t0)
	raw, err := os.ReadFile("../../enrich/testdata/alertmanager_firing.json")
	if err != nil {
		t.Fatal(err)
	}
	starts := t0.Add(time.Minute)
	body := strings.ReplaceAll(string(raw), "2026-11-30T10:04:30.123Z", starts.Format(time.RFC3339Nano))
	body = strings.ReplaceAll(body, "2026-11-30T10:05:00.456Z", starts.Add(30*time.Second).Format(time.RFC3339Nano))
	alert := filepath.Join(t.TempDir(), "am.json")
	if err := os.WriteFile(alert, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "enrich", "--store", st, "--alert", alert)
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	window := "window " + starts.Add(-15*time.Minute).Format("15:04")
	for _, want := range []string{"*Likely origin:* *inventory*", window} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "No analysis") || strings.Contains(out, "no records") {
		t.Errorf("the old alert was analysed on the wrong stretch:\n%s", out)
	}
}

func TestEnrichTextWithoutStore(t *testing.T) {
	code, out, errs := runCmd(t, "enrich", "--store", filepath.Join(t.TempDir(), "none.db"), "--alert", enrichAlert(t))
	// The message is printed all the same; the exit code says the store failed.
	if code != exitFail {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitFail, errs)
	}
	for _, want := range []string{"RESOLVED: CheckoutErrors (critical)", "No analysis", "Checkout is failing",
		"link from the alert: wiki.example.com (https://wiki.example.com/checkout)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "carries the alert") {
		t.Errorf("stderr %q, want one sentence about the missing analysis", errs)
	}
}

func TestEnrichBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version":"4","status":"firing","alerts":[]}`), 0o644)
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("<html>"), 0o644)
	for _, args := range [][]string{
		{"enrich"},
		{"enrich", "--alert", filepath.Join(dir, "missing.json")},
		{"enrich", "--alert", bad},
		{"enrich", "--alert", garbage},
		{"enrich", "--alert", bad, "extra"},
		{"enrich", "--nope"},
	} {
		code, out, errs := runCmd(t, args...)
		if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one sentence", args, code, out, errs)
		}
	}
}

func TestEnrichHooksWiring(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng, err := analysis.New(st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	envOf := func(kv map[string]string) *env { return &env{Getenv: func(k string) string { return kv[k] }} }
	log := slog.New(slog.DiscardHandler)

	if h, _, stop, err := alertHooks(envOf(nil), hookSettings{}, eng, nil, log); err != nil || h != nil {
		t.Errorf("no Slack destination: handler %v err %v, want hooks off", h, err)
	} else {
		stop()
	}
	if _, _, _, err := alertHooks(envOf(map[string]string{"FAULTLINE_SLACK_TOKEN": "xoxb-x-SECRET"}), hookSettings{}, eng, nil, log); err == nil ||
		strings.Contains(err.Error(), "SECRET") {
		t.Errorf("token without channel: %v", err)
	}
	h, _, stop, err := alertHooks(envOf(map[string]string{"FAULTLINE_SLACK_WEBHOOK_URL": "http://127.0.0.1:1/services/x",
		"FAULTLINE_HOOK_TOKEN": "hooktok"}), hookSettings{}, eng, nil, log)
	if err != nil || h == nil {
		t.Fatalf("webhook: %v", err)
	}
	defer stop()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/hooks/alertmanager", strings.NewReader("{}")))
	if rec.Code != 401 {
		t.Errorf("unauthenticated hook: %d, want 401", rec.Code)
	}
}
