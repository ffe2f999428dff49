package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/faultline/faultline/schema"
)

// The paths and addresses of ingest/README.md's Collector blocks that
// TestOtelcol replaces; nothing else of them is changed.
const (
	readmeLogFile    = "/var/log/checkout/app.jsonl"
	readmeOTLPHTTP   = "http://faultline:4318"
	readmeOTLPGRPC   = "faultline:4317"
	readmeRecvGRPC   = "0.0.0.0:4317"
	readmeRecvHTTP   = "0.0.0.0:4318"
	readmeHTTPName   = "otlp_http/faultline"
	readmeGRPCName   = "otlp_grpc/faultline"
	otelcolSkipNotes = "OpenTelemetry Collector not given: set FAULTLINE_OTELCOL to one built with its builder " +
		"(go install go.opentelemetry.io/collector/cmd/builder@v0.165.0, and a manifest with otlpreceiver and " +
		"filelogreceiver, batchprocessor, otlpexporter and otlphttpexporter at v0.165.0, contrib v0.165.1); " +
		"CI does not build it: that takes minutes"
)

// otelcol finds the Collector: $FAULTLINE_OTELCOL, else the test is
// skipped, in CI too (it is not installed there: building it takes minutes).
func otelcol(t *testing.T) string {
	bin := os.Getenv("FAULTLINE_OTELCOL")
	if bin == "" {
		t.Skip(otelcolSkipNotes)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("FAULTLINE_OTELCOL: %v", err)
	}
	return bin
}

// collectorSnippets reads the three yaml blocks of ingest/README.md's
// "OpenTelemetry Collector" part of "Shipper configuration", in order: the
// OTLP forwarding configuration, the gRPC exporter that may take the place
// of its HTTP one, and the filelog configuration.
func collectorSnippets(t *testing.T) (forward, grpcExporter, filelog string) {
	t.Helper()
	readme, err := os.ReadFile("../../ingest/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, part, ok := strings.Cut(string(readme), "\n## Shipper configuration\n")
	if ok {
		part, _, _ = strings.Cut(part, "\n## ")
		_, part, ok = strings.Cut(part, "\nOpenTelemetry Collector")
	}
	if ok {
		part, _, ok = strings.Cut(part, "\nSDKs: ")
	}
	if !ok {
		t.Fatal(`ingest/README.md has no "OpenTelemetry Collector" part (ending at "SDKs: ") under "## Shipper configuration"`)
	}
	var blocks []string
	for {
		var block string
		if _, part, ok = strings.Cut(part, "```yaml\n"); !ok {
			break
		}
		if block, part, ok = strings.Cut(part, "```"); !ok {
			t.Fatal("ingest/README.md: a yaml block of the Collector part is not closed")
		}
		blocks = append(blocks, block)
	}
	if len(blocks) != 3 {
		t.Fatalf("ingest/README.md's Collector part has %d yaml blocks, want 3 (forwarding, gRPC exporter, filelog)", len(blocks))
	}
	return blocks[0], blocks[1], blocks[2]
}

// replaceAll replaces each old of pairs by its new in s, failing the test
// when one is not in s: the README's block no longer has what the test
// rewrites.
func replaceAll(t *testing.T, what, s string, pairs ...string) string {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("ingest/README.md's %s block has no %q to replace:\n%s", what, pairs[i], s)
		}
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// withGRPCExporter is the filelog block with the README's gRPC exporter in
// the place of its HTTP one, as the README says to do.
func withGRPCExporter(t *testing.T, filelog, grpcExporter string) string {
	t.Helper()
	_, exp, ok := strings.Cut(filelog, "\nexporters:\n")
	if ok {
		exp, _, ok = strings.Cut(exp, "\nservice:\n")
	}
	grpcBody, found := strings.CutPrefix(grpcExporter, "exporters:\n")
	if !ok || !found {
		t.Fatalf("ingest/README.md: no exporters section to swap in the filelog block or the gRPC exporter block:\n%s\n%s", filelog, grpcExporter)
	}
	return replaceAll(t, "filelog", filelog, exp+"\n", grpcBody, "["+readmeHTTPName+"]", "["+readmeGRPCName+"]")
}

// TestOtelcolSnippets checks, without a Collector, that the README's blocks
// use the current component names and hold each path and address that
// TestOtelcol replaces, and no other address of faultline's: the
// replacements cannot silently miss.
func TestOtelcolSnippets(t *testing.T) {
	forward, grpcExporter, filelog := collectorSnippets(t)
	blocks := map[string]string{"forwarding": forward, "gRPC exporter": grpcExporter, "filelog": filelog}
	for name, block := range blocks {
		for _, old := range []string{"otlphttp", "filelog:", "[filelog", "otlp/"} {
			if strings.Contains(block, old) {
				t.Errorf("the %s block has the old component name %q (v0.165: otlp_http, otlp_grpc, file_log):\n%s", name, old, block)
			}
		}
	}
	for name, block := range map[string]string{
		"forwarding":        replaceAll(t, "forwarding", forward, readmeRecvGRPC, "R1", readmeRecvHTTP, "R2", readmeOTLPHTTP, "F"),
		"gRPC exporter":     replaceAll(t, "gRPC exporter", grpcExporter, readmeOTLPGRPC, "F"),
		"filelog":           replaceAll(t, "filelog", filelog, readmeLogFile, "L", readmeOTLPHTTP, "F"),
		"filelog over gRPC": replaceAll(t, "filelog", withGRPCExporter(t, filelog, grpcExporter), readmeLogFile, "L", readmeOTLPGRPC, "F"),
	} {
		if strings.Contains(block, "faultline:43") || strings.Contains(block, ":4317") || strings.Contains(block, ":4318") {
			t.Errorf("the %s block has an address TestOtelcol does not replace:\n%s", name, block)
		}
	}
	if g := withGRPCExporter(t, filelog, grpcExporter); strings.Contains(g, readmeHTTPName) || strings.Contains(g, readmeOTLPHTTP) {
		t.Errorf("swapping in the gRPC exporter left the HTTP one:\n%s", g)
	}
}

// appLine is one line of the JSON-lines application log TestOtelcol writes.
type appLine struct {
	text, timeText, msg, level string
	time                       time.Time
	severity                   schema.Severity
	trace                      schema.TraceID
	span                       schema.SpanID
}

// appLog writes the test's application log: JSON lines two hours old with
// their times in three zones to the nanosecond, three levels, trace and
// span ids on the error and warning lines, and one line that is not JSON.
func appLog(t *testing.T, path string) (lines []appLine, plain string) {
	t.Helper()
	base := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	zones := []*time.Location{time.UTC, time.FixedZone("", 2*3600), time.FixedZone("", -5*3600)}
	var file strings.Builder
	for i := range 12 {
		l := appLine{time: base.Add(time.Duration(i)*7*time.Second + time.Duration(i)*123456789)}
		l.timeText = l.time.In(zones[i%len(zones)]).Format(time.RFC3339Nano)
		switch i % 3 {
		case 0:
			l.level, l.severity, l.msg = "error", schema.SeverityError, fmt.Sprintf("charge failed: upstream timeout n=%d", i)
		case 1:
			l.level, l.severity, l.msg = "WARN", schema.SeverityWarn, fmt.Sprintf("slow upstream n=%d", i)
		default:
			l.level, l.severity, l.msg = "info", schema.SeverityInfo, fmt.Sprintf("cart updated n=%d", i)
		}
		if i%3 != 2 {
			l.trace = schema.TraceID(fmt.Sprintf("4bf92f3577b34da6%016x", i+1))
			l.span = schema.SpanID(fmt.Sprintf("00f067aa%08x", i+1))
			l.text = fmt.Sprintf(`{"time":%q,"level":%q,"msg":%q,"trace_id":%q,"span_id":%q}`, l.timeText, l.level, l.msg, l.trace, l.span)
		} else {
			l.text = fmt.Sprintf(`{"time":%q,"level":%q,"msg":%q}`, l.timeText, l.level, l.msg)
		}
		lines = append(lines, l)
		file.WriteString(l.text + "\n")
	}
	plain = "worker pool restarted after a panic"
	file.WriteString(plain + "\n")
	if err := os.WriteFile(path, []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return lines, plain
}

// runOtelcol runs the Collector with conf until done reports true (checked
// every 100 ms, for at most a minute), then stops it as SIGTERM does and
// returns what it logged.
func runOtelcol(t *testing.T, bin, conf string, done func() bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "otelcol.yaml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// Its own metrics would take 127.0.0.1:8888, which another test's
	// Collector may hold; that is no part of the README's configuration.
	cmd := exec.CommandContext(t.Context(), bin, "--config", path, "--set=service.telemetry.metrics.level=none")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(time.Minute); !done(); {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the Collector delivered too little within a minute; it said:\n%s\nits configuration:\n%s", out.String(), conf)
		}
		select {
		case err := <-exited:
			t.Fatalf("the Collector exited: %v\n%s\nits configuration:\n%s", err, out.String(), conf)
		case <-time.After(100 * time.Millisecond):
		}
	}
	cmd.Process.Signal(os.Interrupt)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Errorf("the Collector did not stop within 30 s of SIGINT")
	}
	return out.String()
}

// syncBuffer is a bytes.Buffer a process's output goroutines may write
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// ingestCounts sums faultline_ingest_records_accepted_total and
// ..._rejected_total over their labels from the server's /metrics.
func ingestCounts(addr string) (accepted, rejected int) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		var v float64
		_, num, ok := strings.Cut(line, "} ")
		if !ok {
			continue
		}
		if _, err := fmt.Sscanf(num, "%g", &v); err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(line, "faultline_ingest_records_accepted_total{"):
			accepted += int(v)
		case strings.HasPrefix(line, "faultline_ingest_records_rejected_total{"):
			rejected += int(v)
		}
	}
	return accepted, rejected
}

// otlpTap is an OTLP/HTTP endpoint between the Collector and `ingest
// serve`: it keeps the log records of each /v1/logs request as the
// Collector sent them, and passes the request on unchanged.
type otlpTap struct {
	addr string
	mu   sync.Mutex
	logs []plog.Logs
	errs []string
}

func startTap(t *testing.T, target string) *otlpTap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tap := &otlpTap{addr: ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(tap.serve(target))}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return tap
}

func (tap *otlpTap) serve(target string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.URL.Path == "/v1/logs" {
			tap.keep(r.Header, body)
		}
		req, err := http.NewRequestWithContext(r.Context(), r.Method, "http://"+target+r.URL.Path, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		for _, h := range []string{"Content-Type", "Content-Encoding"} {
			req.Header.Set(h, r.Header.Get(h))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for _, h := range []string{"Content-Type", "Content-Encoding", "Retry-After"} {
			if v := resp.Header.Get(h); v != "" {
				w.Header().Set(h, v)
			}
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}
}

func (tap *otlpTap) keep(h http.Header, body []byte) {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	raw := body
	if h.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			raw, err = io.ReadAll(zr)
		}
		if err != nil {
			tap.errs = append(tap.errs, "gzip: "+err.Error())
			return
		}
	}
	if ct := h.Get("Content-Type"); ct != "application/x-protobuf" {
		tap.errs = append(tap.errs, "Content-Type "+ct+", want application/x-protobuf")
		return
	}
	req := plogotlp.NewExportRequest()
	if err := req.UnmarshalProto(raw); err != nil {
		tap.errs = append(tap.errs, "protobuf: "+err.Error())
		return
	}
	tap.logs = append(tap.logs, req.Logs())
}

// sent is every log record the Collector sent through the tap, with its
// resource's service.name.
func (tap *otlpTap) sent(t *testing.T) (recs []plog.LogRecord, services []string) {
	t.Helper()
	tap.mu.Lock()
	defer tap.mu.Unlock()
	for _, e := range tap.errs {
		t.Errorf("a request from the Collector: %s", e)
	}
	for _, ld := range tap.logs {
		for _, rl := range ld.ResourceLogs().All() {
			svc := ""
			if v, ok := rl.Resource().Attributes().Get("service.name"); ok {
				svc = v.AsString()
			}
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					recs = append(recs, lr)
					services = append(services, svc)
				}
			}
		}
	}
	return recs, services
}

// TestOtelcol runs the real OpenTelemetry Collector ($FAULTLINE_OTELCOL)
// with the configurations of ingest/README.md, only their paths and ports
// replaced, against `ingest serve`:
//   - the filelog block, over OTLP/HTTP (through a tap that checks what the
//     Collector itself set) and over OTLP/gRPC with the README's gRPC
//     exporter in the place of the HTTP one: every line of a JSON-lines
//     log arrives with its own time to the nanosecond (not the time it was
//     read), its level, trace and span ids, its message as the body and the
//     service the README's resource names; a line that is not JSON arrives
//     as it is;
//   - the forwarding block: a log sent to the Collector over OTLP/gRPC and a
//     span over OTLP/HTTP arrive.
func TestOtelcol(t *testing.T) {
	bin := otelcol(t)
	forward, grpcExporter, filelog := collectorSnippets(t)

	for _, over := range []string{"http", "grpc"} {
		t.Run("filelog-"+over, func(t *testing.T) {
			s := startServe(t)
			logFile := filepath.Join(t.TempDir(), "app.jsonl")
			lines, plain := appLog(t, logFile)
			n := len(lines) + 1
			var conf string
			var tap *otlpTap
			if over == "http" {
				tap = startTap(t, s.otlp)
				conf = replaceAll(t, "filelog", filelog, readmeLogFile, logFile, readmeOTLPHTTP, "http://"+tap.addr)
			} else {
				conf = replaceAll(t, "filelog over gRPC", withGRPCExporter(t, filelog, grpcExporter), readmeLogFile, logFile, readmeOTLPGRPC, s.grpc)
			}
			before := time.Now()
			out := runOtelcol(t, bin, conf, func() bool { a, r := ingestCounts(s.http); return a+r >= n })
			after := time.Now()
			if a, r := ingestCounts(s.http); a != n || r != 0 {
				t.Errorf("%d records accepted, %d rejected, want %d and 0; the Collector said:\n%s", a, r, n, out)
			}
			s.stop()
			checkFilelogRecords(t, s.records(t), lines, plain, before, after)
			if tap != nil {
				checkFilelogSent(t, tap, lines, plain)
			}
		})
	}

	t.Run("forward", func(t *testing.T) {
		s := startServe(t)
		recvGRPC, recvHTTP := freePort(t), freePort(t)
		conf := replaceAll(t, "forwarding", forward, readmeRecvGRPC, recvGRPC, readmeRecvHTTP, recvHTTP, readmeOTLPHTTP, "http://"+s.otlp)
		when := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
		logTrace := pcommon.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
		spanTrace := pcommon.TraceID{0x0a, 0xf7, 0x65, 0x19, 0x16, 0xcd, 0x43, 0xdd, 0x84, 0x48, 0xeb, 0x21, 0x1c, 0x80, 0x31, 0x9c}
		sent := false
		out := runOtelcol(t, bin, conf, func() bool {
			if !sent {
				sent = forwardOne(t, recvGRPC, recvHTTP, when, logTrace, spanTrace)
				return false
			}
			a, r := ingestCounts(s.http)
			return a+r >= 2
		})
		if a, r := ingestCounts(s.http); a != 2 || r != 0 {
			t.Errorf("%d records accepted, %d rejected, want 2 and 0; the Collector said:\n%s", a, r, out)
		}
		s.stop()
		recs := s.records(t)
		if len(recs) != 2 {
			t.Fatalf("stored %d records, want the log and the span: %+v", len(recs), recs)
		}
		for _, r := range recs {
			switch r.Type {
			case schema.TypeLog:
				if r.Service != "cart" || r.TraceID != schema.TraceID(hex.EncodeToString(logTrace[:])) || r.Body != "db timeout" ||
					!r.Time.Equal(when) || r.Severity != schema.SeverityError {
					t.Errorf("log record %+v, want cart's ERROR db timeout at %v in trace %x", r, when, logTrace)
				}
			case schema.TypeSpan:
				if r.Service != "checkout" || r.TraceID != schema.TraceID(hex.EncodeToString(spanTrace[:])) || r.Name != "POST /charge" ||
					!r.Time.Equal(when) || r.Duration != 250*time.Millisecond || r.Status != schema.StatusError {
					t.Errorf("span %+v, want checkout's failed POST /charge of 250ms at %v in trace %x", r, when, spanTrace)
				}
			}
		}
	})
}

// forwardOne sends one log record to the Collector's OTLP/gRPC receiver and
// one span to its OTLP/HTTP receiver; false while the receivers are not up.
func forwardOne(t *testing.T, recvGRPC, recvHTTP string, when time.Time, logTrace, spanTrace pcommon.TraceID) bool {
	t.Helper()
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "cart")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetTimestamp(pcommon.NewTimestampFromTime(when))
	lr.SetSeverityNumber(plog.SeverityNumberError)
	lr.SetSeverityText("ERROR")
	lr.Body().SetStr("db timeout")
	lr.SetTraceID(logTrace)
	lr.SetSpanID(pcommon.SpanID{1, 2, 3, 4, 5, 6, 7, 8})

	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(spanTrace)
	sp.SetSpanID(pcommon.SpanID{8, 7, 6, 5, 4, 3, 2, 1})
	sp.SetName("POST /charge")
	sp.SetKind(ptrace.SpanKindServer)
	sp.SetStartTimestamp(pcommon.NewTimestampFromTime(when))
	sp.SetEndTimestamp(pcommon.NewTimestampFromTime(when.Add(250 * time.Millisecond)))
	sp.Status().SetCode(ptrace.StatusCodeError)
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}

	resp, err := http.Post("http://"+recvHTTP+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		return false // not listening yet
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the Collector's OTLP/HTTP receiver answered %s", resp.Status)
	}
	cc, err := grpc.NewClient(recvGRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := plogotlp.NewGRPCClient(cc).Export(ctx, plogotlp.NewExportRequestFromLogs(ld), grpc.WaitForReady(true)); err != nil {
		t.Fatalf("export to the Collector's OTLP/gRPC receiver: %v", err)
	}
	return true
}

// checkFilelogRecords checks what faultline stored of the application log:
// every JSON line at its own time, with its level, ids, message and the
// README's service; the line that is not JSON as it is, at the time it was
// read.
func checkFilelogRecords(t *testing.T, recs []schema.Record, lines []appLine, plain string, before, after time.Time) {
	t.Helper()
	if len(recs) != len(lines)+1 {
		t.Errorf("stored %d records, want %d (%d JSON lines and one that is not)", len(recs), len(lines)+1, len(lines))
	}
	byBody := map[string]schema.Record{}
	for _, r := range recs {
		if _, dup := byBody[r.Body]; dup {
			t.Errorf("two records with the body %q", r.Body)
		}
		byBody[r.Body] = r
	}
	for _, l := range lines {
		r, ok := byBody[l.msg]
		if !ok {
			t.Errorf("no record has the body %q (the line's msg, which the README's move operator makes the body)", l.msg)
			continue
		}
		if !r.Time.Equal(l.time) {
			t.Errorf("%q: time %v, want the line's own %v (%s)", l.msg, r.Time, l.time, l.timeText)
		}
		// faultline keeps a record's own time as log.time only when the
		// shipper's event time wins: the Collector, not faultline, read it.
		if got := r.Attrs["log.time"]; got != l.timeText {
			t.Errorf("%q: log.time %q, want %q: the Collector sent no event time of its own", l.msg, got, l.timeText)
		}
		if r.Severity != l.severity {
			t.Errorf("%q: severity %d (%q), want %d from level %q", l.msg, r.Severity, r.SeverityText, l.severity, l.level)
		}
		if r.TraceID != l.trace || r.SpanID != l.span {
			t.Errorf("%q: trace %q span %q, want %q %q", l.msg, r.TraceID, r.SpanID, l.trace, l.span)
		}
		if r.Service != "checkout" {
			t.Errorf("%q: service %q, want checkout (the README's resource service.name)", l.msg, r.Service)
		}
	}
	r, ok := byBody[plain]
	if !ok {
		t.Errorf("the line that is not JSON was not stored as it is (%q)", plain)
	} else if r.Service != "checkout" || r.Time.Before(before.Add(-time.Second)) || r.Time.After(after) {
		t.Errorf("the line that is not JSON: service %q time %v, want checkout at the time it was read (%v..%v)", r.Service, r.Time, before, after)
	}
}

// checkFilelogSent checks the OTLP records the Collector sent: the parsers
// of the README set their time, severity, ids and body, and its resource
// their service.name.
func checkFilelogSent(t *testing.T, tap *otlpTap, lines []appLine, plain string) {
	t.Helper()
	recs, services := tap.sent(t)
	if len(recs) != len(lines)+1 {
		t.Errorf("the Collector sent %d log records, want %d", len(recs), len(lines)+1)
	}
	byBody := map[string]plog.LogRecord{}
	for i, lr := range recs {
		byBody[lr.Body().AsString()] = lr
		if services[i] != "checkout" {
			t.Errorf("sent %q with the resource's service.name %q, want checkout", lr.Body().AsString(), services[i])
		}
	}
	for _, l := range lines {
		lr, ok := byBody[l.msg]
		if !ok {
			t.Errorf("the Collector sent no record with the body %q", l.msg)
			continue
		}
		if got := lr.Timestamp().AsTime(); !got.Equal(l.time) {
			t.Errorf("%q: sent timeUnixNano %v, want the line's %v", l.msg, got, l.time)
		}
		if got := schema.Severity(lr.SeverityNumber()); got != l.severity || lr.SeverityText() != l.level {
			t.Errorf("%q: sent severity %d %q, want %d %q", l.msg, got, lr.SeverityText(), l.severity, l.level)
		}
		var trace, span string
		if id := lr.TraceID(); !id.IsEmpty() {
			trace = hex.EncodeToString(id[:])
		}
		if id := lr.SpanID(); !id.IsEmpty() {
			span = hex.EncodeToString(id[:])
		}
		if trace != string(l.trace) || span != string(l.span) {
			t.Errorf("%q: sent trace %q span %q, want %q %q", l.msg, trace, span, l.trace, l.span)
		}
	}
	if lr, ok := byBody[plain]; !ok {
		t.Errorf("the Collector did not send the line that is not JSON as it is")
	} else if lr.Timestamp() != 0 || lr.ObservedTimestamp() == 0 {
		t.Errorf("the line that is not JSON: sent time %v observed %v, want only an observed time", lr.Timestamp(), lr.ObservedTimestamp())
	}
}
