package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/enrich"
	"github.com/faultline/faultline/store"
)

// deadLetterStore makes a store holding one dead letter: an alert Slack
// never took.
func deadLetterStore(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "dl.db")
	st, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := enrich.New(enrich.Config{MaxAttempts: 1,
		Post: func(context.Context, *enrich.Message, enrich.Posted) (enrich.Posted, error) {
			return enrich.Posted{}, errors.New("connection refused")
		},
		Sleep: func(context.Context, time.Duration) error { return nil }}, nil, st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../enrich/testdata/alertmanager_firing.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := enrich.ParseAlertmanager(raw, enrich.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Enqueue(g); err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestDLQListShowResend: analyze dlq lists the dead letters, shows one in
// full and resends it to Slack, after which it is no longer listed.
func TestDLQListShowResend(t *testing.T) {
	db := deadLetterStore(t)
	code, out, errs := runCmd(t, "dlq", "list", "--store", db)
	if code != exitOK || !strings.Contains(out, "CheckoutHighErrorRate") || !strings.Contains(out, "connection refused") {
		t.Fatalf("list: exit %d, %q, stdout:\n%s", code, errs, out)
	}
	code, out, _ = runCmd(t, "dlq", "list", "--json", "--store", db)
	var list struct {
		DeadLetters []enrich.DeadLetter `json:"dead_letters"`
	}
	if err := json.Unmarshal([]byte(out), &list); code != exitOK || err != nil || len(list.DeadLetters) != 1 {
		t.Fatalf("list --json: exit %d, %v: %s", code, err, out)
	}
	id := list.DeadLetters[0].ID
	if code, out, _ := runCmd(t, "dlq", "show", id, "--store", db); code != exitOK || !strings.Contains(out, `"blocks"`) {
		t.Errorf("show: exit %d: %.300s", code, out)
	}
	if code, _, errs := runCmd(t, "dlq", "show", "nope", "--store", db); code != exitUsage || !strings.Contains(errs, "No dead letter") {
		t.Errorf("show of an unknown id: exit %d %q", code, errs)
	}
	t.Setenv("FAULTLINE_SLACK_WEBHOOK_URL", "")
	t.Setenv("FAULTLINE_SLACK_TOKEN", "")
	if code, _, errs := runCmd(t, "dlq", "resend", id, "--store", db); code != exitUsage || !strings.Contains(errs, "FAULTLINE_SLACK_WEBHOOK_URL") {
		t.Errorf("resend without Slack: exit %d %q", code, errs)
	}
	got := recordingSlack(t, 4)
	if code, out, errs := runCmd(t, "dlq", "resend", id, "--store", db); code != exitOK || !strings.Contains(out, "resent "+id) {
		t.Fatalf("resend: exit %d, %q %q", code, out, errs)
	}
	select {
	case msg := <-got:
		if !strings.Contains(msg, "CheckoutHighErrorRate") {
			t.Errorf("Slack got %.200s", msg)
		}
	default:
		t.Fatal("the resend did not reach Slack")
	}
	if code, out, _ := runCmd(t, "dlq", "list", "--store", db); code != exitOK || !strings.Contains(out, "no dead letters") {
		t.Errorf("list after the resend: exit %d:\n%s", code, out)
	}
	if code, _, errs := runCmd(t, "dlq", "resend", id, "--store", db); code != exitUsage || !strings.Contains(errs, "No dead letter") {
		t.Errorf("second resend: exit %d %q, want 2", code, errs)
	}
	for _, args := range [][]string{{"dlq"}, {"dlq", "frobnicate"}, {"dlq", "resend", "--store", db}} {
		if code, _, errs := runCmd(t, args...); code != exitUsage || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d %q, want 2 and one line", args, code, errs)
		}
	}
}

// TestServeDeadLettersPage: analyze serve lists the store's dead letters on
// /deadletters, and its resend button (with the page's CSRF token) sends
// the message to Slack.
func TestServeDeadLettersPage(t *testing.T) {
	db := deadLetterStore(t)
	got := recordingSlack(t, 4)
	t.Setenv("FAULTLINE_HOOK_TOKEN", "hook-tok")
	base, stop := startServe(t, "--store", db, "--auth-token", "ui-tok")
	defer stop()
	code, page := httpGet(t, base+"/deadletters", "Authorization", "Bearer ui-tok")
	m := regexp.MustCompile(`action="/deadletters/([^"]+)/resend".*?name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if code != 200 || !strings.Contains(page, "CheckoutHighErrorRate") || !strings.Contains(page, "connection refused") || m == nil {
		t.Fatalf("dead-letter page: %d\n%.2000s", code, page)
	}
	if code, _ := httpPost(t, base+"/deadletters/"+m[1]+"/resend", "csrf="+m[2]); code != http.StatusSeeOther && code != http.StatusUnauthorized {
		t.Errorf("resend without credentials: %d", code)
	}
	if code, body := httpPost(t, base+"/api/v1/deadletters/"+m[1]+"/resend", "", "Authorization", "Bearer ui-tok"); code != 200 {
		t.Fatalf("resend: %d %s", code, body)
	}
	select {
	case msg := <-got:
		if !strings.Contains(msg, "CheckoutHighErrorRate") {
			t.Errorf("Slack got %.200s", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the resend did not reach Slack")
	}
	if _, page := httpGet(t, base+"/deadletters", "Authorization", "Bearer ui-tok"); !strings.Contains(page, "No dead letters") {
		t.Errorf("the resent letter is still listed")
	}
}
