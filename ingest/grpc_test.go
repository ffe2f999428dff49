package ingest

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// startGRPC serves s's OTLP/gRPC on a free port and returns a client
// connection to it.
func startGRPC(t *testing.T, s *Server) *grpc.ClientConn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := s.GRPC()
	go g.Serve(ln)
	cc, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		g.Shutdown(ctx)
	})
	return cc
}

func newGRPCServer(lim Limits, sink Sink) *Server {
	return NewServer(ServerConfig{Decoder: NewDecoder(DecoderConfig{Limits: lim})}, sink, nil)
}

// TestGRPCExport: logs and spans sent by pdata's own gRPC clients, plain
// and gzip-compressed, are stored, and the answer is a full success.
func TestGRPCExport(t *testing.T) {
	sink := &fakeSink{}
	s := newGRPCServer(Limits{}, sink)
	cc := startGRPC(t, s)
	ctx := t.Context()
	logs := plogotlp.NewExportRequestFromLogs(otlpLogs(traceFor(1)))
	resp, err := plogotlp.NewGRPCClient(cc).Export(ctx, logs)
	if err != nil || resp.PartialSuccess().RejectedLogRecords() != 0 {
		t.Fatalf("logs: %v, partial success %+v", err, resp.PartialSuccess())
	}
	nLogs := len(sink.records())
	if nLogs != otlpLogs("").LogRecordCount() {
		t.Errorf("%d log records stored, want %d", nLogs, otlpLogs("").LogRecordCount())
	}
	spans := ptraceotlp.NewExportRequestFromTraces(otlpTraces(traceFor(2)))
	tresp, err := ptraceotlp.NewGRPCClient(cc).Export(ctx, spans, grpc.UseCompressor(gzip.Name))
	if err != nil || tresp.PartialSuccess().RejectedSpans() != 0 {
		t.Fatalf("gzip traces: %v, partial success %+v", err, tresp.PartialSuccess())
	}
	recs := sink.records()
	if got := len(recs) - nLogs; got < otlpTraces("").SpanCount() {
		t.Errorf("%d records from %d spans", got, otlpTraces("").SpanCount())
	}
	for _, r := range recs {
		if string(r.TraceID) != traceFor(1) && string(r.TraceID) != traceFor(2) {
			t.Errorf("stored trace id %q", r.TraceID)
		}
	}
	// An empty Export is a valid message (zero bytes): OK, nothing stored.
	if _, err := plogotlp.NewGRPCClient(cc).Export(ctx, plogotlp.NewExportRequest()); err != nil {
		t.Errorf("empty export: %v", err)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{
		`faultline_ingest_requests_total{code="200",format="otlp-logs-grpc"} 2`,
		`faultline_ingest_requests_total{code="200",format="otlp-traces-grpc"} 1`,
		fmt.Sprintf(`faultline_ingest_records_accepted_total{format="otlp-logs-grpc"} %d`, nLogs),
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestGRPCPartialSuccess: a record the decoders reject — a time no store can
// hold, a trace id of the wrong length, which pdata itself would refuse the
// whole request for — is rejected alone, and the answer says how many and why.
func TestGRPCPartialSuccess(t *testing.T) {
	sink := &fakeSink{}
	cc := startGRPC(t, newGRPCServer(Limits{}, sink))
	resp, err := plogotlp.NewGRPCClient(cc).Export(t.Context(), logsRequest(otlpLogsAt(math.MaxUint64)))
	if err != nil {
		t.Fatal(err)
	}
	ps := resp.PartialSuccess()
	if ps.RejectedLogRecords() != 1 || !strings.Contains(ps.ErrorMessage(), "bad_timestamp") || len(sink.records()) != 1 {
		t.Errorf("partial success %d %q, %d stored; want 1 bad_timestamp and 1 stored", ps.RejectedLogRecords(), ps.ErrorMessage(), len(sink.records()))
	}

	// A trace id of 3 bytes cannot be built with pdata: send the bytes.
	var out rawMessage
	err = cc.Invoke(t.Context(), "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
		rawRequest(logsWithBadTraceID()), &out, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		t.Fatalf("bad trace id: %v", err)
	}
	got := plogotlp.NewExportResponse()
	if err := got.UnmarshalProto(out); err != nil {
		t.Fatal(err)
	}
	if ps := got.PartialSuccess(); ps.RejectedLogRecords() != 1 || !strings.Contains(ps.ErrorMessage(), "bad_trace_id") || len(sink.records()) != 2 {
		t.Errorf("bad trace id: partial success %d %q, %d stored", ps.RejectedLogRecords(), ps.ErrorMessage(), len(sink.records()))
	}

	// Nothing usable: INVALID_ARGUMENT (not retryable), with the reasons.
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().SetTimestamp(pcommon.Timestamp(math.MaxUint64))
	_, err = plogotlp.NewGRPCClient(cc).Export(t.Context(), plogotlp.NewExportRequestFromLogs(ld))
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "bad_timestamp") {
		t.Errorf("all rejected: %v, want InvalidArgument naming bad_timestamp", err)
	}
}

// TestGRPCLimits: over the message size RESOURCE_EXHAUSTED without
// RetryInfo (retrying cannot help); while every write slot is taken
// RESOURCE_EXHAUSTED with RetryInfo; a store that cannot take the batch
// UNAVAILABLE with RetryInfo; and OK only once the batch is written.
func TestGRPCLimits(t *testing.T) {
	t.Run("too large", func(t *testing.T) {
		sink := &fakeSink{}
		cc := startGRPC(t, newGRPCServer(Limits{MaxBodyBytes: 1 << 10}, sink))
		ld := plog.NewLogs()
		ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr(strings.Repeat("x", 4<<10))
		for _, opts := range [][]grpc.CallOption{nil, {grpc.UseCompressor(gzip.Name)}} { // 4 KiB of x gzip into far less than 1 KiB
			_, err := plogotlp.NewGRPCClient(cc).Export(t.Context(), plogotlp.NewExportRequestFromLogs(ld), opts...)
			if st := status.Convert(err); st.Code() != codes.ResourceExhausted || retryDelay(st) != 0 {
				t.Errorf("over the size limit (%d options): %v, want ResourceExhausted without RetryInfo", len(opts), err)
			}
		}
		if len(sink.records()) != 0 {
			t.Errorf("%d records stored", len(sink.records()))
		}
	})
	t.Run("busy", func(t *testing.T) {
		bs := &blockingSink{entered: make(chan struct{}), release: make(chan struct{})}
		cc := startGRPC(t, newGRPCServer(Limits{MaxInFlight: 1}, bs))
		done := make(chan error)
		go func() {
			_, err := plogotlp.NewGRPCClient(cc).Export(context.Background(), plogotlp.NewExportRequestFromLogs(otlpLogs(traceFor(1))))
			done <- err
		}()
		<-bs.entered
		// Another connection: on the same one, gRPC's stream limit
		// (MaxInFlight per connection) makes the call wait at the client.
		other, err := grpc.NewClient(cc.Target(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		_, err = plogotlp.NewGRPCClient(other).Export(ctx, plogotlp.NewExportRequestFromLogs(otlpLogs(traceFor(2))))
		if st := status.Convert(err); st.Code() != codes.ResourceExhausted || retryDelay(st) != 2*time.Second {
			t.Errorf("while busy: %v (retry %v), want ResourceExhausted with a RetryInfo of 2s", err, retryDelay(st))
		}
		select {
		case err := <-done:
			t.Fatalf("answered (%v) before the batch was written", err)
		case <-time.After(100 * time.Millisecond):
		}
		close(bs.release)
		if err := <-done; err != nil {
			t.Errorf("first export: %v", err)
		}
	})
	t.Run("store down", func(t *testing.T) {
		sink := &fakeSink{err: fmt.Errorf("server at /secret/path refused: %w", ErrStoreUnavailable)}
		cc := startGRPC(t, newGRPCServer(Limits{}, sink))
		_, err := ptraceotlp.NewGRPCClient(cc).Export(t.Context(), ptraceotlp.NewExportRequestFromTraces(otlpTraces(traceFor(1))))
		st := status.Convert(err)
		if st.Code() != codes.Unavailable || retryDelay(st) != 2*time.Second || strings.Contains(st.Message(), "secret") {
			t.Errorf("store down: %v (retry %v), want Unavailable with a RetryInfo and no internals", err, retryDelay(st))
		}
	})
	t.Run("store damaged", func(t *testing.T) {
		sink := &fakeSink{err: fmt.Errorf("malformed: %w", ErrStoreBroken)}
		cc := startGRPC(t, newGRPCServer(Limits{}, sink))
		_, err := plogotlp.NewGRPCClient(cc).Export(t.Context(), plogotlp.NewExportRequestFromLogs(otlpLogs(traceFor(1))))
		if st := status.Convert(err); st.Code() != codes.Internal || retryDelay(st) != 0 {
			t.Errorf("store damaged: %v, want Internal without RetryInfo", err)
		}
	})
}

// TestGRPCPortHints: an OTLP/HTTP request on the gRPC port gets a 400
// naming the OTLP/HTTP port; a gRPC call on an HTTP port (served with h2c,
// as ingest serve does) gets UNIMPLEMENTED naming the gRPC port.
func TestGRPCPortHints(t *testing.T) {
	s := newGRPCServer(Limits{}, &fakeSink{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := s.GRPC()
	go g.Serve(ln)
	defer g.Shutdown(context.Background())
	resp, body := post(t, "http://"+ln.Addr().String()+"/v1/logs", "application/x-protobuf", "", otlpLogsProto(traceFor(1)))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "4318") {
		t.Errorf("HTTP/1 on the gRPC port: %d %q", resp.StatusCode, body)
	}

	hs := httptest.NewUnstartedServer(s.OTLPHandler())
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetHTTP1(true)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	defer hs.Close()
	cc, err := grpc.NewClient(strings.TrimPrefix(hs.URL, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	_, err = ptraceotlp.NewGRPCClient(cc).Export(t.Context(), ptraceotlp.NewExportRequestFromTraces(otlpTraces(traceFor(1))))
	if st := status.Convert(err); st.Code() != codes.Unimplemented || !strings.Contains(st.Message(), "4317") {
		t.Errorf("gRPC on the OTLP/HTTP port: %v, want Unimplemented naming 4317", err)
	}
	// HTTP/1 still works there.
	if resp, body := post(t, hs.URL+"/v1/logs", "application/x-protobuf", "", otlpLogsProto(traceFor(1))); resp.StatusCode != 200 {
		t.Errorf("OTLP/HTTP beside h2c: %d %s", resp.StatusCode, body)
	}
}

// TestGRPCShutdownDrains: Shutdown waits for a call whose batch is being
// written, and that call is answered OK.
func TestGRPCShutdownDrains(t *testing.T) {
	bs := &blockingSink{entered: make(chan struct{}), release: make(chan struct{})}
	s := newGRPCServer(Limits{}, bs)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	g := s.GRPC()
	served := make(chan error, 1)
	go func() { served <- g.Serve(ln) }()
	cc, _ := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	defer cc.Close()
	done := make(chan error, 1)
	go func() {
		_, err := plogotlp.NewGRPCClient(cc).Export(context.Background(), plogotlp.NewExportRequestFromLogs(otlpLogs(traceFor(1))))
		done <- err
	}()
	<-bs.entered
	stopped := make(chan error, 1)
	go func() { stopped <- g.Shutdown(context.Background()) }()
	time.Sleep(50 * time.Millisecond)
	close(bs.release)
	if err := <-done; err != nil {
		t.Errorf("call in flight at shutdown: %v", err)
	}
	if err := <-stopped; err != nil {
		t.Errorf("shutdown: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
}

func retryDelay(st *status.Status) time.Duration {
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	return 0
}

func logsRequest(b []byte) plogotlp.ExportRequest {
	req := plogotlp.NewExportRequest()
	if err := req.UnmarshalProto(b); err != nil {
		panic(err)
	}
	return req
}

// rawRequest sends b as it is through rawCodec.
type rawRequest []byte

func (r rawRequest) MarshalProto() ([]byte, error) { return r, nil }

// logsWithBadTraceID is an ExportLogsServiceRequest of two log records,
// the second with a 3-byte trace id.
func logsWithBadTraceID() []byte {
	record := func(trace []byte, body string) []byte {
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.Fixed64Type) // time_unix_nano
		b = protowire.AppendFixed64(b, uint64(incidentBase.UnixNano()))
		var v []byte
		v = protowire.AppendTag(v, 1, protowire.BytesType) // AnyValue.string_value
		v = protowire.AppendString(v, body)
		b = protowire.AppendTag(b, 5, protowire.BytesType) // body
		b = protowire.AppendBytes(b, v)
		b = protowire.AppendTag(b, 9, protowire.BytesType) // trace_id
		return protowire.AppendBytes(b, trace)
	}
	good := mustHex16(traceFor(3))
	var scope []byte
	for _, r := range [][]byte{record(good[:], "good"), record([]byte{1, 2, 3}, "bad")} {
		scope = protowire.AppendTag(scope, 2, protowire.BytesType) // ScopeLogs.log_records
		scope = protowire.AppendBytes(scope, r)
	}
	var rl []byte
	rl = protowire.AppendTag(rl, 2, protowire.BytesType) // ResourceLogs.scope_logs
	rl = protowire.AppendBytes(rl, scope)
	var req []byte
	req = protowire.AppendTag(req, 1, protowire.BytesType) // resource_logs
	return protowire.AppendBytes(req, rl)
}
