package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline/faultline/enrich"
	"github.com/faultline/faultline/internal/testenv"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// deadLetterID is the one dead letter of db.
func deadLetterID(t *testing.T, db string) string {
	t.Helper()
	code, out, errs := runCmd(t, "dlq", "list", "--json", "--store", db)
	var list struct {
		DeadLetters []enrich.DeadLetter `json:"dead_letters"`
	}
	if err := json.Unmarshal([]byte(out), &list); code != exitOK || err != nil || len(list.DeadLetters) != 1 {
		t.Fatalf("list --json: exit %d, %v, %s: %s", code, err, errs, out)
	}
	return list.DeadLetters[0].ID
}

// TestParallelResendsPostOnce: with a Slack that answers 200 after 0.5 s,
// ten resends of one dead letter at once — through analyze serve's API and
// through analyze dlq resend on the same store — post it once; the other
// requests get 409 or 404.
func TestParallelResendsPostOnce(t *testing.T) {
	db := deadLetterStore(t)
	id := deadLetterID(t, db)
	var posts atomic.Int32
	fakeSlack(t, func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		time.Sleep(500 * time.Millisecond)
		_, _ = io.WriteString(w, "ok")
	})
	t.Setenv("FAULTLINE_HOOK_TOKEN", "hook-tok")
	base, stop := startServe(t, "--store", db, "--auth-token", "ui-tok")
	defer stop()
	var wg sync.WaitGroup
	codes := make([]int, 10)
	for i := range 7 {
		wg.Go(func() {
			codes[i], _ = httpPost(t, base+"/api/v1/deadletters/"+id+"/resend", "", "Authorization", "Bearer ui-tok")
		})
	}
	for i := 7; i < 10; i++ {
		wg.Go(func() { codes[i], _, _ = runCmd(t, "dlq", "resend", "--store", db, id) })
	}
	wg.Wait()
	if n := posts.Load(); n != 1 {
		t.Errorf("Slack got %d posts of one dead letter (codes %v), want 1", n, codes)
	}
	ok := 0
	for i, c := range codes {
		switch {
		case i < 7 && c == 200, i >= 7 && c == exitOK:
			ok++
		case i < 7 && (c == 409 || c == 404), i >= 7 && (c == exitFail || c == exitUsage):
		default:
			t.Errorf("request %d: %d", i, c)
		}
	}
	if ok != 1 {
		t.Errorf("%d resends reported success (%v), want 1", ok, codes)
	}
}

// TestDLQResendBoundedKeepsReason: with Slack answering 500, analyze dlq
// resend gives up after a few attempts with exit 1 and a sentence, and the
// letter keeps its original error.
func TestDLQResendBoundedKeepsReason(t *testing.T) {
	db := deadLetterStore(t)
	id := deadLetterID(t, db)
	var calls atomic.Int32
	fakeSlack(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(500)
	})
	start := time.Now()
	code, _, errs := runCmd(t, "dlq", "resend", "--store", db, id)
	if took := time.Since(start); code != exitFail || took > 40*time.Second || !strings.Contains(errs, "not delivered") {
		t.Errorf("resend to a failing Slack: exit %d after %v: %q", code, took, errs)
	}
	if n := calls.Load(); n == 0 || n > 3 {
		t.Errorf("%d Slack calls, want 1..3", n)
	}
	_, out, _ := runCmd(t, "dlq", "list", "--json", "--store", db)
	if !strings.Contains(out, "connection refused") || !strings.Contains(out, `"resend_error"`) {
		t.Errorf("after the failed resend the original error is gone or the resend's is missing: %s", out)
	}
}

// TestServeListenCheckedFirst: a bad --listen is exit 2 and a busy port
// exit 1, and neither creates the store.
func TestServeListenCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "nx4.db")
	if code, _, errs := runCmd(t, "serve", "--listen", "127.0.0.1:99999", "--store", db); code != exitUsage || !strings.Contains(errs, "--listen") {
		t.Errorf("port 99999: exit %d %q, want 2", code, errs)
	}
	busy := httptest.NewServer(http.NotFoundHandler())
	defer busy.Close()
	if code, _, errs := runCmd(t, "serve", "--listen", strings.TrimPrefix(busy.URL, "http://"), "--store", db); code != exitFail {
		t.Errorf("busy port: exit %d %q, want 1", code, errs)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("the store was created although serve could not listen")
	}
}

// TestServeHookTokenMustDiffer: the hook token equal to the web's access
// token is refused (exit 2).
func TestServeHookTokenMustDiffer(t *testing.T) {
	t.Setenv("FAULTLINE_SLACK_WEBHOOK_URL", "http://127.0.0.1:1/services/T/B/X")
	code, _, errs := runCmd(t, "serve", "--listen", "127.0.0.1:0", "--store", filepath.Join(t.TempDir(), "s.db"), "--auth-token", "x", "--hook-token", "x")
	if code != exitUsage || !strings.Contains(errs, "hook token") {
		t.Errorf("same tokens: exit %d %q, want 2", code, errs)
	}
}

// TestServeMetricsNeedAuth: with --auth-token, /metrics needs it too.
func TestServeMetricsNeedAuth(t *testing.T) {
	base, stop := startServe(t, "--store", filepath.Join(t.TempDir(), "m.db"), "--auth-token", "sekret")
	defer stop()
	if code, body := httpGet(t, base+"/metrics"); code != 401 || strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics without the token: %d", code)
	}
	if code, body := httpGet(t, base+"/metrics", "Authorization", "Bearer sekret"); code != 200 || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics with the token: %d", code)
	}
}

// TestPatternsTextIsTerminalSafe: analyze patterns prints ESC and BEL from
// log lines as visible escapes (text output; --json stays exact).
func TestPatternsTextIsTerminalSafe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.log")
	var b strings.Builder
	for i := range 5 {
		fmt.Fprintf(&b, "ERROR pool exhausted \x1b]0;pwned\x07 \x1b[2J worker %d\n", i)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "patterns", p)
	if code != exitOK || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `\x1b`) {
		t.Errorf("patterns: exit %d %q:\n%q", code, errs, out)
	}
}

// TestServeHealthzReportsDamage: on a store damaged mid-file, served
// read-only, a read that finds the damage says so (500 naming the
// corruption) and /healthz turns 503 from then on.
func TestServeHealthzReportsDamage(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "c.db")
	st, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour).UTC()
	for b := range 20 {
		var recs []schema.Record
		for i := range 1000 {
			n := b*1000 + i
			recs = append(recs, schema.Record{Type: schema.TypeLog, TraceID: schema.TraceID(fmt.Sprintf("%032x", n/10+1)),
				SpanID: schema.SpanID(fmt.Sprintf("%016x", n+1)), Service: "svc", Time: t0.Add(time.Duration(n) * 100 * time.Millisecond),
				Severity: schema.SeverityError, Body: fmt.Sprintf("payment failed: pool exhausted after %d ms %s", n, strings.Repeat("x", 100))})
		}
		if err := st.WriteBatch(ctx, recs); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	testenv.Damage(t, db, 64<<10)
	base, stop := startServe(t, "--read-only", "--store", db)
	defer stop()
	code, body := httpGet(t, base+"/api/v1/incident?since=2h")
	if code != 500 || !strings.Contains(body, "corrupt") {
		t.Fatalf("incident on the damaged store: %d %s", code, body)
	}
	if code, body := httpGet(t, base+"/healthz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "corrupt") {
		t.Errorf("/healthz after a read found damage: %d %q, want 503", code, body)
	}
}

// TestIncidentReadsAReadOnlyStore: analyze incident on a store it may
// read but not write (an immutable file) reads it, with a warning.
func TestIncidentReadsAReadOnlyStore(t *testing.T) {
	path, _ := hostileStore(t)
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
			t.Skipf("cannot make the store immutable: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
	} else {
		os.Chmod(path, 0o444)
		os.Chmod(filepath.Dir(path), 0o555)
		t.Cleanup(func() { os.Chmod(filepath.Dir(path), 0o755) })
	}
	code, out, errs := runCmd(t, "incident", "--store", path, "--from", "2026-03-01T11:55:00Z", "--to", "2026-03-01T12:05:00Z")
	if code != exitOK || !strings.Contains(out, "Incident") || !strings.Contains(errs, "read-only") {
		t.Errorf("incident on a read-only store: exit %d, %q\n%s", code, errs, out)
	}
}
