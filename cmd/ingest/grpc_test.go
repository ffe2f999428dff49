package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"

	"github.com/faultline/faultline/internal/testenv"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/sqlite"
)

// served is an `ingest serve` running in-process on free ports.
type served struct {
	db, http, otlp, grpc string
	stop                 func() int // cancels (as SIGTERM does) and returns the exit code
}

func startServe(t *testing.T) served {
	t.Helper()
	return startServeWith(t, http.DefaultClient, "http")
}

// startServeWith starts `ingest serve` with extra flags; client and
// scheme reach its /healthz (https and a client trusting the certificate
// with --tls-cert).
func startServeWith(t *testing.T, client *http.Client, scheme string, extra ...string) served {
	t.Helper()
	s := served{db: filepath.Join(t.TempDir(), "serve.db"), http: freePort(t), otlp: freePort(t), grpc: freePort(t)}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--store", s.db, "--listen", s.http, "--otlp-listen", s.otlp, "--otlp-grpc-listen", s.grpc}, extra...),
			strings.NewReader(""), &bytes.Buffer{}, &stderr)
	}()
	if err := waitHealthzWith(client, scheme+"://"+s.http); err != nil {
		cancel()
		t.Fatalf("server not up: %v (%s)", err, stderr.String())
	}
	s.stop = func() int {
		cancel()
		code := <-done
		if code != exitOK {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
		return code
	}
	return s
}

// waitHealthz waits up to 10 s for base/healthz to answer 200.
func waitHealthz(base string) error { return waitHealthzWith(http.DefaultClient, base) }

func waitHealthzWith(client *http.Client, base string) error {
	var err error
	for range 200 {
		var resp *http.Response
		if resp, err = client.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("healthz: %s", resp.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

// records reads every record of the stopped server's store.
func (s served) records(t *testing.T) []schema.Record {
	t.Helper()
	st, err := sqlite.Open(context.Background(), s.db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out []schema.Record
	q := schema.WindowQuery{From: time.Unix(1, 0), To: time.Now().Add(time.Hour), Limit: 100000}
	for r, err := range st.WindowRecords(context.Background(), q) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestServeGRPC exports logs over OTLP/gRPC (gzip) to `ingest serve`, stops
// it as SIGTERM does, and finds the records in the store.
func TestServeGRPC(t *testing.T) {
	s := startServe(t)
	cc, err := grpc.NewClient(s.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "api")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	lr.Body().SetStr("db timeout")
	lr.SetTraceID(pcommon.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36})
	if _, err := plogotlp.NewGRPCClient(cc).Export(t.Context(), plogotlp.NewExportRequestFromLogs(ld), grpc.UseCompressor(gzip.Name)); err != nil {
		t.Fatalf("export: %v", err)
	}
	s.stop()
	recs := s.records(t)
	if len(recs) != 1 || recs[0].Service != "api" || recs[0].TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("stored %+v, want the one log record", recs)
	}
}

// telemetrygen finds the OpenTelemetry Collector's load generator:
// $FAULTLINE_TELEMETRYGEN, else telemetrygen on $PATH (scripts/test.sh
// installs it). Absent, the test fails when $CI is set and is skipped
// otherwise.
func telemetrygen(t *testing.T) string {
	return testenv.Binary(t, "FAULTLINE_TELEMETRYGEN", "telemetrygen", "go install github.com/open-telemetry/opentelemetry-collector-contrib/cmd/telemetrygen@v0.161.0")
}

// TestTelemetrygen sends traces and logs with the Collector's telemetrygen
// over OTLP/gRPC, as the Collector's otlp exporter does, and checks that
// the store has them; sent to the wrong port, each protocol is told the
// right one.
func TestTelemetrygen(t *testing.T) {
	bin := telemetrygen(t)
	s := startServe(t)
	tg := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, append(args, "--otlp-insecure", "--rate", "0")...).CombinedOutput()
		return string(out), err
	}
	for _, args := range [][]string{
		{"traces", "--traces", "5"},
		{"logs", "--logs", "5"},
	} {
		if out, err := tg(append(args, "--otlp-endpoint", s.grpc)...); err != nil {
			t.Fatalf("telemetrygen %s: %v\n%s", args[0], err, out)
		}
	}
	// The command: gRPC to the OTLP/HTTP port (it used to fail with
	// "http2: frame too large"); and OTLP/HTTP to the gRPC port.
	if out, _ := tg("traces", "--traces", "1", "--otlp-endpoint", s.otlp); !strings.Contains(out, "Unimplemented") || !strings.Contains(out, "4317") {
		t.Errorf("gRPC on the OTLP/HTTP port: no hint of the gRPC port in\n%s", out)
	}
	if out, _ := tg("logs", "--logs", "1", "--otlp-http", "--otlp-endpoint", s.grpc); !strings.Contains(out, "400") || !strings.Contains(out, "4318") {
		t.Errorf("OTLP/HTTP on the gRPC port: no hint of the OTLP/HTTP port in\n%s", out)
	}
	s.stop()
	spans, logs := 0, 0
	for _, r := range s.records(t) {
		if r.Service != "telemetrygen" {
			t.Errorf("record of service %q: %+v", r.Service, r)
			continue
		}
		if r.Type == schema.TypeSpan {
			spans++
		} else {
			logs++
		}
	}
	// telemetrygen traces makes a parent and a child span per trace.
	if spans < 5 || logs != 5 {
		t.Errorf("stored %d spans and %d logs, want at least 5 spans (5 traces) and 5 logs", spans, logs)
	}
	t.Logf("stored %d spans and %d logs from telemetrygen", spans, logs)
}
