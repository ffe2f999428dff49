package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary act as the analyze command when re-executed,
// so that a test can kill -9 a real server.
func TestMain(m *testing.M) {
	if os.Getenv("FAULTLINE_ANALYZE_AS_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// startChild runs `analyze serve` as a child process and returns its base
// URL; the caller kills it.
func startChild(t *testing.T, env []string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(append(os.Environ(), "FAULTLINE_ANALYZE_AS_MAIN=1", "FAULTLINE_STORE="), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`listening on (http://\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case base := <-found:
		return cmd, base
	case <-time.After(20 * time.Second):
		t.Fatal("the child server did not start")
		return nil, ""
	}
}

// alertBodies are n distinct Alertmanager groups (the fixture with its
// groupKey changed).
func alertBodies(t *testing.T, n int) []string {
	t.Helper()
	raw, err := os.ReadFile("../../enrich/testdata/alertmanager_firing.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range n {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		m["groupKey"] = fmt.Sprintf("{}:{alertname=\"crash-%d\"}", i)
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	return out
}

// TestAcceptedAlertsSurviveKill9: with Slack hanging, alerts get 202; the
// server is killed with SIGKILL; the next start delivers every one of them.
func TestAcceptedAlertsSurviveKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	hang := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer hanging.Close()
	defer close(hang)
	db := filepath.Join(t.TempDir(), "s.db")
	env := []string{"FAULTLINE_SLACK_WEBHOOK_URL=" + hanging.URL + "/services/T/B/X", "FAULTLINE_HOOK_TOKEN=hook-tok"}
	child, base := startChild(t, env, "--store", db)
	alerts := alertBodies(t, 4)
	for i, a := range alerts {
		if code, body := httpPost(t, base+"/hooks/alertmanager", a, "Authorization", "Bearer hook-tok"); code != http.StatusAccepted {
			t.Fatalf("alert %d: %d %s", i, code, body)
		}
	}
	if err := child.Process.Kill(); err != nil { // kill -9
		t.Fatal(err)
	}
	_ = child.Wait()

	got := recordingSlack(t, 16)
	t.Setenv("FAULTLINE_HOOK_TOKEN", "hook-tok")
	_, stop := startServe(t, "--store", db)
	defer stop()
	delivered := 0
	timeout := time.After(60 * time.Second)
	for delivered < len(alerts) {
		select {
		case msg := <-got:
			if strings.Contains(msg, "CheckoutHighErrorRate") {
				delivered++
			}
		case <-timeout:
			t.Fatalf("%d of %d alerts accepted before the kill reached Slack after the restart", delivered, len(alerts))
		}
	}
}
