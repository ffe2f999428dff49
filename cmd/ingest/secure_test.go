package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/faultline/faultline/internal/testenv"
	"github.com/faultline/faultline/schema"
)

const ingestToken = "s3cret-ingest-token"

// curlStatus runs curl with args and returns the HTTP status it got.
func curlStatus(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "curl", append([]string{"-sS", "-o", "/dev/null", "-w", "%{http_code}"}, args...)...).CombinedOutput()
	if err != nil && len(out) == 0 {
		t.Fatalf("curl %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// TestServeAuthTLS: `ingest serve --auth-token T --tls-cert --tls-key`
// serves HTTPS and gRPC over TLS, and every endpoint but /healthz needs
// the token (bearer or basic-auth password), tried with curl, the gRPC
// client and telemetrygen (--ca-cert, --otlp-header); only what carried
// the token is stored.
func TestServeAuthTLS(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (apt-get install curl): the test tries the token over HTTPS with it")
	}
	cert, key, pool := testenv.SelfSignedCert(t)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	s := startServeWith(t, client, "https", "--auth-token", ingestToken, "--tls-cert", cert, "--tls-key", key)
	jsonl := func(trace string) string {
		return `{"time":"` + time.Now().UTC().Format(time.RFC3339) + `","level":"error","msg":"db timeout","trace_id":"` + trace + `","service":"curl"}`
	}
	bearer := "Authorization: Bearer " + ingestToken
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"jsonl with the bearer token", []string{"--cacert", cert, "-H", bearer, "--data-binary", jsonl("00000000000000000000000000000a01"), "https://" + s.http + "/ingest/jsonl"}, "200"},
		{"jsonl with basic auth", []string{"--cacert", cert, "-u", "promtail:" + ingestToken, "--data-binary", jsonl("00000000000000000000000000000a02"), "https://" + s.http + "/ingest/jsonl"}, "200"},
		{"jsonl without a token", []string{"--cacert", cert, "--data-binary", jsonl("00000000000000000000000000000a03"), "https://" + s.http + "/ingest/jsonl"}, "401"},
		{"jsonl with a wrong token", []string{"--cacert", cert, "-H", "Authorization: Bearer nope", "--data-binary", jsonl("00000000000000000000000000000a04"), "https://" + s.http + "/ingest/jsonl"}, "401"},
		{"loki push without a token", []string{"--cacert", cert, "-H", "Content-Type: application/json", "--data-binary", `{"streams":[]}`, "https://" + s.http + "/loki/api/v1/push"}, "401"},
		{"otlp/http with the token", []string{"--cacert", cert, "-H", bearer, "-H", "Content-Type: application/json", "--data-binary",
			`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"curl"}}]},"scopeLogs":[{"logRecords":[{"timeUnixNano":"` +
				itoa(time.Now().UnixNano()) + `","body":{"stringValue":"db timeout"},"traceId":"00000000000000000000000000000a05"}]}]}]}`, "https://" + s.otlp + "/v1/logs"}, "200"},
		{"otlp/http without a token", []string{"--cacert", cert, "-H", "Content-Type: application/json", "--data-binary", `{}`, "https://" + s.otlp + "/v1/logs"}, "401"},
		{"metrics without a token", []string{"--cacert", cert, "https://" + s.http + "/metrics"}, "401"},
		{"metrics with the token", []string{"--cacert", cert, "-H", bearer, "https://" + s.http + "/metrics"}, "200"},
		{"healthz needs none", []string{"--cacert", cert, "https://" + s.http + "/healthz"}, "200"},
		{"plain HTTP on the TLS port", []string{"-H", bearer, "--data-binary", jsonl("00000000000000000000000000000a06"), "http://" + s.http + "/ingest/jsonl"}, "400"},
	} {
		if got := curlStatus(t, c.args...); got != c.want {
			t.Errorf("curl %s: %s, want %s", c.name, got, c.want)
		}
	}

	// The gRPC client over TLS: UNAUTHENTICATED without the token.
	cc, err := grpc.NewClient(s.grpc, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool})))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	req := plogotlp.NewExportRequestFromLogs(oneLog())
	if _, err := plogotlp.NewGRPCClient(cc).Export(t.Context(), req); status.Code(err) != codes.Unauthenticated {
		t.Errorf("gRPC export without the token: %v, want UNAUTHENTICATED", err)
	}
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+ingestToken)
	if _, err := plogotlp.NewGRPCClient(cc).Export(ctx, req); err != nil {
		t.Errorf("gRPC export with the token: %v", err)
	}

	s.stop()
	byService := map[string]int{}
	for _, r := range s.records(t) {
		byService[r.Service+"/"+typeName(r.Type)]++
		if r.TraceID == "00000000000000000000000000000a03" || r.TraceID == "00000000000000000000000000000a04" || r.TraceID == "00000000000000000000000000000a06" {
			t.Errorf("stored a record sent without the token: %+v", r)
		}
	}
	if byService["curl/log"] != 3 || byService["api/log"] != 1 {
		t.Errorf("stored %v, want 3 curl logs (2 JSON lines, 1 OTLP) and 1 gRPC log", byService)
	}
	t.Logf("stored %v", byService)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestTelemetrygenAuthTLS: telemetrygen, as the README shows it, with
// --ca-cert and --otlp-header, over OTLP/gRPC and OTLP/HTTP to `ingest
// serve --auth-token --tls-cert --tls-key`; without the header it is told
// UNAUTHENTICATED and nothing of it is stored.
func TestTelemetrygenAuthTLS(t *testing.T) {
	bin := telemetrygen(t)
	cert, key, pool := testenv.SelfSignedCert(t)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	s := startServeWith(t, client, "https", "--auth-token", ingestToken, "--tls-cert", cert, "--tls-key", key)
	tg := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, append(args, "--rate", "0", "--ca-cert", cert)...).CombinedOutput()
		return string(out), err
	}
	header := `Authorization="Bearer ` + ingestToken + `"`
	if out, err := tg("logs", "--logs", "3", "--otlp-endpoint", s.grpc, "--otlp-header", header); err != nil {
		t.Errorf("telemetrygen logs over gRPC+TLS with the token: %v\n%s", err, out)
	}
	if out, err := tg("traces", "--traces", "2", "--otlp-http", "--otlp-endpoint", s.otlp, "--otlp-header", header); err != nil {
		t.Errorf("telemetrygen traces over OTLP/HTTP+TLS with the token: %v\n%s", err, out)
	}
	if out, _ := tg("logs", "--logs", "1", "--otlp-endpoint", s.grpc, "--otlp-header", `Authorization="Bearer wrong"`); !strings.Contains(out, "Unauthenticated") {
		t.Errorf("telemetrygen with a wrong token: no UNAUTHENTICATED in\n%s", out)
	}
	s.stop()
	spans, logs := 0, 0
	for _, r := range s.records(t) {
		if r.Type == schema.TypeSpan {
			spans++
		} else {
			logs++
		}
	}
	if logs != 3 || spans < 2 {
		t.Errorf("stored %d logs and %d spans, want the 3 logs and at least 2 spans sent with the token", logs, spans)
	}
}

// TestServeWarnsWhenOpen: a listener beyond loopback without the token is
// warned about at start; with the token, or on loopback, it is not.
func TestServeWarnsWhenOpen(t *testing.T) {
	for _, c := range []struct {
		name   string
		listen string
		extra  []string
		warn   bool
	}{
		{"every interface, no token", "0.0.0.0:" + portOf(freePort(t)), nil, true},
		{"every interface, a token", "0.0.0.0:" + portOf(freePort(t)), []string{"--auth-token", ingestToken}, false},
		{"loopback, no token", freePort(t), nil, false},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		var stderr syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, append([]string{"serve", "--store", t.TempDir() + "/s.db", "--listen", c.listen, "--otlp-listen", "", "--otlp-grpc-listen", ""}, c.extra...),
				strings.NewReader(""), &bytes.Buffer{}, &stderr)
		}()
		err := waitHealthz("http://127.0.0.1:" + portOf(c.listen))
		cancel()
		<-done
		if err != nil {
			t.Fatalf("%s: not up: %v (%s)", c.name, err, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "without --auth-token"); got != c.warn {
			t.Errorf("%s: warned %v, want %v; stderr:\n%s", c.name, got, c.warn, stderr.String())
		}
	}
}

func typeName(k schema.RecordType) string {
	if k == schema.TypeSpan {
		return "span"
	}
	return "log"
}

func portOf(addr string) string { return addr[strings.LastIndex(addr, ":")+1:] }
