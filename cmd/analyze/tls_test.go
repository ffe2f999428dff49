package main

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/testenv"
)

// TestServeTLS: `analyze serve --tls-cert --tls-key` serves HTTPS (tried
// with curl and Go's client), refuses plain HTTP on its port, and sets
// the session cookie Secure.
func TestServeTLS(t *testing.T) {
	cert, key, pool := testenv.SelfSignedCert(t)
	base, stop := startServe(t, "--store", filepath.Join(t.TempDir(), "s.db"), "--auth-token", "tok", "--tls-cert", cert, "--tls-key", key)
	defer stop()
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("serve says it listens on %s, want https://", base)
	}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/incident?since=30m", nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"candidates"`) {
		t.Errorf("incident over HTTPS: %d %s", resp.StatusCode, body)
	}
	resp, err = client.PostForm(base+"/login", url.Values{"token": {"tok"}, "next": {"/incident"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ck := resp.Cookies(); len(ck) == 0 || !ck[0].Secure {
		t.Errorf("session cookie over HTTPS: %+v, want Secure", ck)
	}
	if _, err := exec.LookPath("curl"); err == nil {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		out, _ := exec.CommandContext(ctx, "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", cert, base+"/healthz").CombinedOutput()
		if got := strings.TrimSpace(string(out)); got != "200" {
			t.Errorf("curl --cacert %s/healthz: %s, want 200", base, got)
		}
		out, _ = exec.CommandContext(ctx, "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://"+strings.TrimPrefix(base, "https://")+"/healthz").CombinedOutput()
		if got := strings.TrimSpace(string(out)); got != "400" {
			t.Errorf("curl plain HTTP on the HTTPS port: %s, want 400", got)
		}
	}
}

// TestServeWarnsWhenOpen: a server beyond loopback without access control
// is warned about at start.
func TestServeWarnsWhenOpen(t *testing.T) {
	for _, c := range []struct {
		args []string
		warn bool
	}{
		{[]string{"--listen", "0.0.0.0:0"}, true},
		{[]string{"--listen", "0.0.0.0:0", "--auth-token", "tok"}, false},
		{nil, false}, // startServe's 127.0.0.1:0
	} {
		var stderr syncBuffer
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0", "--store", filepath.Join(t.TempDir(), "s.db")}, c.args...), strings.NewReader(""), io.Discard, &stderr)
		}()
		for i := 0; i < 400 && !strings.Contains(stderr.String(), "listening on"); i++ {
			time.Sleep(25 * time.Millisecond)
		}
		cancel()
		<-done
		if got := strings.Contains(stderr.String(), "beyond loopback"); got != c.warn {
			t.Errorf("%v: warned %v, want %v:\n%s", c.args, got, c.warn, stderr.String())
		}
	}
}
