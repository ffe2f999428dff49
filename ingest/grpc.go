package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/net/netutil"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	_ "google.golang.org/grpc/encoding/gzip" // registers gzip: answers to a gzipped call are gzipped
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/types/known/durationpb"
)

// GRPCServer serves OTLP/gRPC: the Collector's LogsService and
// TraceService Export methods (the --otlp-grpc-listen address), through the
// same decoders, limits, back-pressure and durability as OTLP/HTTP.
//
// The services are registered under the names and methods of the OTLP
// protos (opentelemetry.proto.collector.{logs,trace}.v1), but the request is
// handed over as the raw protobuf bytes, not unmarshalled by pdata first:
// pdata refuses a whole request for one record with an id of the wrong
// length, which OTLPLogsProto and OTLPTracesProto reject alone
// (otlp_proto_scrub.go). A plogotlp or ptraceotlp GRPCClient (and any OTLP
// exporter) talks to it unchanged.
type GRPCServer struct {
	srv      *grpc.Server
	maxConns int
}

// GRPC returns a new OTLP/gRPC server writing through s. A message over
// Limits.MaxGRPCMessageBytes as sent, or over Limits.MaxBodyBytes after
// gunzip, is refused with RESOURCE_EXHAUSTED and no RetryInfo (not
// retryable); a busy server (no write slot, or the byte budget spent)
// answers RESOURCE_EXHAUSTED, a store that cannot take the batch
// UNAVAILABLE, both with a RetryInfo of Limits.RetryAfter; a message not
// received whole within Limits.BodyTimeout DEADLINE_EXCEEDED; a call
// without the token (ServerConfig.AuthToken) UNAUTHENTICATED before its
// message is read; a request with no usable record INVALID_ARGUMENT; a
// damaged store INTERNAL. OK, with a partial success when records were
// rejected, is sent only after the batch was written.
//
// Memory: gRPC's own gunzip would expand a message (up to its receive
// limit) before any budget applied, so gzip is passed through to the
// handler (gzipPassThrough) and gunzipped there as an HTTP body is,
// counted against Limits.MaxBytesInFlight as it is decompressed; a call
// reserves its message's receive buffers from the same budget before
// reading it. Connections are capped (MaxGRPCConns), each to MaxInFlight
// streams with fixed flow-control windows, closed after ConnIdleTimeout
// without a call, and a peer that stops answering keepalive pings is
// dropped.
func (s *Server) GRPC() *GRPCServer {
	lim := s.dec.Limits()
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(rawCodec{}),
		grpc.RPCDecompressor(gzipPassThrough{}), //nolint:staticcheck // the per-server decompressor; supported throughout gRPC 1.x
		grpc.MaxRecvMsgSize(int(min(lim.MaxGRPCMessageBytes, 1<<31-1))),
		grpc.MaxConcurrentStreams(uint32(lim.MaxInFlight)), // per connection; the server-wide bound is the write slots
		// Fixed windows (no BDP growth up to 16 MiB): what a stream may
		// buffer before its message is read. gRPC opens a stream's window
		// to a whole message once the handler reads it (reserved by then).
		grpc.InitialWindowSize(grpcWindow), grpc.InitialConnWindowSize(grpcWindow),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: lim.ConnIdleTimeout, Time: grpcPingEvery, Timeout: grpcPingTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: grpcMinPingInterval, PermitWithoutStream: true}),
		grpc.ConnectionTimeout(sniffTimeout),
		grpc.InTapHandle(s.tapGRPC),
	}
	if s.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(s.tls)))
	}
	srv := grpc.NewServer(opts...)
	srv.RegisterService(&grpc.ServiceDesc{
		ServiceName: "opentelemetry.proto.collector.logs.v1.LogsService",
		HandlerType: (*any)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Export", Handler: s.export("logs", s.grpcLogs)}},
		Metadata:    "opentelemetry/proto/collector/logs/v1/logs_service.proto",
	}, s)
	srv.RegisterService(&grpc.ServiceDesc{
		ServiceName: "opentelemetry.proto.collector.trace.v1.TraceService",
		HandlerType: (*any)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Export", Handler: s.export("traces", s.grpcTraces)}},
		Metadata:    "opentelemetry/proto/collector/trace/v1/trace_service.proto",
	}, s)
	return &GRPCServer{srv: srv, maxConns: lim.MaxGRPCConns}
}

// gRPC transport settings beside Limits: a stream's flow-control window
// (also the connection's), and keepalive: a ping after grpcPingEvery
// without traffic, the connection dropped when unanswered within
// grpcPingTimeout; clients may ping every grpcMinPingInterval.
const (
	grpcWindow          = 1 << 20
	grpcPingEvery       = time.Minute
	grpcPingTimeout     = 20 * time.Second
	grpcMinPingInterval = 10 * time.Second
)

// Serve accepts connections on ln until Shutdown. A plain HTTP/1 request
// on ln (an OTLP/HTTP exporter pointed at the gRPC port) is answered 400
// with the port to use instead. It returns nil once stopped.
func (g *GRPCServer) Serve(ln net.Listener) error {
	if err := g.srv.Serve(newHintListener(netutil.LimitListener(ln, g.maxConns))); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

// Shutdown stops accepting and waits for the calls in flight (each answered
// only once its batch is written) until ctx ends, then closes what is left.
func (g *GRPCServer) Shutdown(ctx context.Context) error {
	done := make(chan struct{})
	go func() { g.srv.GracefulStop(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		g.srv.Stop()
		<-done
		return ctx.Err()
	}
}

// grpcDecode decodes one raw Export request into b and names the format
// for metrics and logs.
type grpcDecode func(raw []byte, b *Batch) (format string, err error)

func (s *Server) grpcLogs(raw []byte, b *Batch) (string, error) {
	return "otlp-logs-grpc", s.dec.OTLPLogsProto(raw, b)
}

func (s *Server) grpcTraces(raw []byte, b *Batch) (string, error) {
	return "otlp-traces-grpc", s.dec.OTLPTracesProto(raw, b)
}

// export is the gRPC method handler of one signal: the counterpart of
// ingest and handle for HTTP. It never lets a panic escape.
func (s *Server) export(signal string, decode grpcDecode) grpc.MethodHandler {
	return func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (resp any, err error) {
		ctx, span := s.tracer.Start(ctx, "ingest grpc "+signal)
		defer span.End()
		format, st := "otlp-"+signal+"-grpc", Stats{}
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("panic while handling an OTLP/gRPC request", "signal", signal, "panic", fmt.Sprint(v))
				resp, err = nil, status.Error(codes.Internal, "internal error; the server log has the details")
			}
		}()
		st, err = s.handleGRPC(ctx, dec, decode)
		var passed grpcError
		if errors.As(err, &passed) { // gRPC's own answer (the client went away, ...)
			return nil, passed.err
		}
		code := statusOf(err)
		s.m.requests.WithLabelValues(format, strconv.Itoa(code)).Inc()
		span.SetAttributes(attribute.String("ingest.format", format), attribute.Int("ingest.accepted", st.Accepted),
			attribute.Int("ingest.rejected", st.Rejected), attribute.Int("rpc.grpc.status_code", rpcCodeOf(code)))
		if err != nil {
			span.SetStatus(otelcodes.Error, err.Error())
			s.logGRPCFailure(ctx, format, code, err)
			return nil, s.grpcStatus(code, err)
		}
		if signal == "logs" {
			return logsResponse(st), nil
		}
		return tracesResponse(st), nil
	}
}

// grpcError is an error of receiving a message that gRPC already answers
// for itself (a cancelled call); export returns it unchanged.
type grpcError struct{ err error }

func (e grpcError) Error() string { return e.err.Error() }

// errSlowMessage cancels a call whose message did not arrive whole within
// Limits.BodyTimeout (tapGRPC).
var errSlowMessage = errors.New("the message did not arrive in time")

// recvTimerKey is the context key of a call's message timer (tapGRPC).
type recvTimerKey struct{}

// tapGRPC runs when a call's headers arrive, before its message is read:
// it refuses a call without the token (UNAUTHENTICATED) and gives the
// call's context a timer that cancels it unless its message has arrived
// whole within Limits.BodyTimeout (handleGRPC stops it), which resets the
// stream and frees what it buffered.
func (s *Server) tapGRPC(ctx context.Context, info *tap.Info) (context.Context, error) {
	if !authorized(s.token, strings.Join(info.Header.Get("authorization"), ",")) {
		return nil, status.Error(codes.Unauthenticated, publicError(errNoToken))
	}
	ctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(s.dec.Limits().BodyTimeout, func() { cancel(errSlowMessage) })
	return messageContext{context.WithValue(ctx, recvTimerKey{}, timer)}, nil
}

// messageContext is a call's context that reads as past its deadline
// once its message timer fired: gRPC answers a read cut short by its
// context with the context's error itself, so the client gets
// DEADLINE_EXCEEDED (retryable) rather than CANCELLED.
type messageContext struct{ context.Context }

func (c messageContext) Err() error {
	if errors.Is(context.Cause(c.Context), errSlowMessage) {
		return context.DeadlineExceeded
	}
	return c.Context.Err()
}

// receiveGRPC reads a call's message: it reserves the receive buffers
// from the byte budget first (errBytesBusy when spent), then reads the
// message within its timer, then keeps in l only what the message holds.
// A gzipped message is gunzipped here, counted as it is decompressed and
// capped at MaxBodyBytes, as readBody does for HTTP.
func (s *Server) receiveGRPC(ctx context.Context, dec func(any) error, l *lease) ([]byte, error) {
	lim := s.dec.Limits()
	reserve := 2 * lim.MaxGRPCMessageBytes // gRPC's buffers and the message copied out of them
	if err := l.grow(reserve); err != nil {
		return nil, err
	}
	var raw rawMessage
	err := dec(&raw)
	if t, ok := ctx.Value(recvTimerKey{}).(*time.Timer); ok {
		t.Stop()
	}
	switch {
	case errors.Is(context.Cause(ctx), errSlowMessage):
		return nil, badInput(ErrSlowBody, err, "the message did not arrive within %s; send it faster or in smaller batches", lim.BodyTimeout)
	case status.Code(err) == codes.ResourceExhausted:
		return nil, badInput(ErrTooLarge, err, "the message is over the size limit of %d bytes as sent; send smaller batches", lim.MaxGRPCMessageBytes)
	case err != nil:
		return nil, grpcError{err}
	}
	l.shrink(reserve - int64(len(raw)))
	if !isGzip(raw) { // never a protobuf message: its first byte would be a field of wire type 7
		return raw, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, errNotGzip(err)
	}
	out, err := readCapped(zr, lim.MaxBodyBytes, -1, l)
	if err != nil {
		return nil, bodyError(err, lim.MaxBodyBytes, true)
	}
	if int64(len(out)) > lim.MaxBodyBytes {
		return nil, errTooLarge(lim.MaxBodyBytes)
	}
	l.shrink(int64(len(raw))) // the compressed message is no longer held
	return out, nil
}

// handleGRPC receives the message under the byte budget, takes a write
// slot, decodes and writes the batch, as handle does for an HTTP body.
func (s *Server) handleGRPC(ctx context.Context, dec func(any) error, decode grpcDecode) (Stats, error) {
	lim := s.dec.Limits()
	l := &lease{b: s.mem}
	defer func() { l.release(); s.mem.returnMemory(&s.freed) }()
	raw, err := s.receiveGRPC(ctx, dec, l)
	if err != nil {
		return Stats{}, err
	}
	select {
	case s.sem <- struct{}{}:
	default:
		return Stats{}, ErrBusy
	}
	s.m.inFlight.Inc()
	defer func() { <-s.sem; s.m.inFlight.Dec() }()
	b := NewBatch(lim)
	b.mem = &recordBudget{l: l, max: lim.MaxRecordBytes}
	format, err := decode(raw, b)
	s.m.bytes.WithLabelValues(format).Add(float64(len(raw)))
	switch {
	case err == nil && b.Err() != nil:
		return Stats{}, b.Err()
	case err != nil:
		return b.Stats, err
	case b.Len() == 0 && b.Stats.Rejected > 0:
		s.m.count(format, b.Stats)
		return b.Stats, badInput(ErrNothingUsable, nil, "no usable record in the request (rejected %s)", rejectSummary(b.Stats))
	}
	if err := s.write(ctx, b); err != nil {
		s.m.count(format, Stats{Rejects: b.Stats.Rejects})
		return b.Stats, err
	}
	s.m.count(format, b.Stats)
	return b.Stats, nil
}

// grpcStatus is the gRPC answer of a failed request: the code of its HTTP
// status (rpcCodeOf), the same plain sentence, and for a busy server or a
// store that cannot take the batch right now (429, 503) a RetryInfo, which
// OTLP exporters need before they retry RESOURCE_EXHAUSTED.
func (s *Server) grpcStatus(code int, err error) error {
	st := status.New(codes.Code(rpcCodeOf(code)), publicError(err))
	if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
		info := &errdetails.RetryInfo{RetryDelay: durationpb.New(s.dec.Limits().RetryAfter)}
		if withInfo, derr := st.WithDetails(info); derr == nil {
			st = withInfo
		}
	}
	return st.Err()
}

func (s *Server) logGRPCFailure(ctx context.Context, format string, code int, err error) {
	lvl := s.log.Warn
	if code >= 500 {
		lvl = s.log.Error
	}
	remote := ""
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		remote = p.Addr.String()
	}
	args := []any{"rpc", format, "code", codes.Code(rpcCodeOf(code)).String(), "remote", remote, "err", err}
	if c := causeOf(err); c != "" {
		args = append(args, "detail", truncate(c, 300))
	}
	lvl("ingest request failed", args...)
}

func logsResponse(st Stats) plogotlp.ExportResponse {
	resp := plogotlp.NewExportResponse()
	if st.Rejected > 0 {
		resp.PartialSuccess().SetRejectedLogRecords(int64(st.Rejected))
		resp.PartialSuccess().SetErrorMessage(rejectSummary(st))
	}
	return resp
}

func tracesResponse(st Stats) ptraceotlp.ExportResponse {
	resp := ptraceotlp.NewExportResponse()
	if st.Rejected > 0 {
		resp.PartialSuccess().SetRejectedSpans(int64(st.Rejected))
		resp.PartialSuccess().SetErrorMessage(rejectSummary(st))
	}
	return resp
}

// rawMessage is an Export request as it came: protobuf bytes.
type rawMessage []byte

// rawCodec hands requests over as raw bytes and marshals the pdata
// ExportResponses; it is the only codec of the gRPC server.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	r, ok := v.(interface{ MarshalProto() ([]byte, error) })
	if !ok {
		return nil, fmt.Errorf("cannot marshal %T", v)
	}
	out, err := r.MarshalProto()
	if err != nil {
		return nil, err
	}
	return mem.BufferSlice{mem.SliceBuffer(out)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(*rawMessage)
	if !ok {
		return fmt.Errorf("cannot unmarshal into %T", v)
	}
	if len(data) == 1 { // gzipPassThrough's copy, not from gRPC's pool: kept without another copy
		if sb, ok := data[0].(mem.SliceBuffer); ok {
			*m = rawMessage(sb)
			return nil
		}
	}
	*m = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

// gzipPassThrough is the server's decompressor of grpc-encoding gzip: it
// hands the message over still compressed, for receiveGRPC to gunzip
// under the byte budget (gRPC's own would expand it whole first).
type gzipPassThrough struct{}

func (gzipPassThrough) Do(r io.Reader) ([]byte, error) {
	if mr, ok := r.(interface{ Remaining() int }); ok { // gRPC's reader of the message: one allocation
		b := make([]byte, mr.Remaining())
		_, err := io.ReadFull(r, b)
		return b, err
	}
	return io.ReadAll(r)
}

func (gzipPassThrough) Type() string { return "gzip" }

// Port hints: the answer a client gets on the wrong port.
const (
	hintHTTPOnGRPC = "this port speaks OTLP/gRPC; send OTLP/HTTP (POST /v1/logs, /v1/traces) to the --otlp-listen port (default 4318)\n"
	hintGRPCOnHTTP = "this port speaks HTTP (OTLP/HTTP, Loki push, JSON lines), not gRPC; send OTLP/gRPC to the --otlp-grpc-listen port (default 4317)"
)

// hintListener answers a connection that starts with an HTTP/1 request
// line (not the HTTP/2 preface "PRI * ...") with a 400 naming the
// OTLP/HTTP port, instead of gRPC's SETTINGS frame and silent close. The
// first bytes are read before gRPC sees the connection (gRPC writes first),
// each in its own goroutine, bounded by sniffTimeout.
type hintListener struct {
	net.Listener
	conns chan net.Conn
	errc  chan error
	done  chan struct{}
	once  sync.Once
}

// sniffTimeout bounds how long a new connection may take to send its
// first 4 bytes (a gRPC client sends its 24-byte preface at once).
const sniffTimeout = 10 * time.Second

func newHintListener(ln net.Listener) *hintListener {
	l := &hintListener{Listener: ln, conns: make(chan net.Conn), errc: make(chan error, 1), done: make(chan struct{})}
	go l.accept()
	return l
}

func (l *hintListener) accept() {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if te, ok := err.(interface{ Temporary() bool }); ok && te.Temporary() {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			l.errc <- err
			return
		}
		go l.sniff(c)
	}
}

func (l *hintListener) sniff(c net.Conn) {
	var head [4]byte
	c.SetReadDeadline(time.Now().Add(sniffTimeout))
	n, err := readFull(c, head[:])
	c.SetReadDeadline(time.Time{})
	switch {
	case n == len(head) && looksHTTP1(head):
		hintHTTP1(c)
		c.Close()
		return
	case err != nil && n == 0:
		c.Close()
		return
	}
	select {
	case l.conns <- &prefixConn{Conn: c, pending: head[:n]}:
	case <-l.done:
		c.Close()
	}
}

func (l *hintListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errc:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *hintListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// prefixConn gives back the bytes sniffed before the rest of the stream.
type prefixConn struct {
	net.Conn
	pending []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

func readFull(c net.Conn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := c.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// looksHTTP1 tells an HTTP/1 method ("POST", "GET ", "PUT ") from the
// HTTP/2 preface and from a TLS handshake.
func looksHTTP1(h [4]byte) bool {
	if string(h[:]) == "PRI " {
		return false
	}
	for i, b := range h {
		if !('A' <= b && b <= 'Z') && !(i >= 3 && b == ' ') {
			return false
		}
	}
	return true
}

// hintHTTP1 writes the 400 and reads (a bounded part of) what the client
// still sends, so that closing does not reset the answer away.
func hintHTTP1(c net.Conn) {
	c.SetDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		len(hintHTTPOnGRPC), hintHTTPOnGRPC)
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	buf := make([]byte, 32<<10)
	for range 32 { // at most 1 MiB
		if _, err := c.Read(buf); err != nil {
			break
		}
	}
}

// grpcHint answers a gRPC call (HTTP/2, application/grpc) on an HTTP port
// with UNIMPLEMENTED and the port to use instead; other requests go to h.
// The HTTP server must allow unencrypted HTTP/2 (h2c) for a gRPC client's
// call to arrive at all.
func grpcHint(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 && isGRPCContentType(r.Header.Get("Content-Type")) {
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Grpc-Status", strconv.Itoa(int(codes.Unimplemented)))
			w.Header().Set("Grpc-Message", hintGRPCOnHTTP)
			w.WriteHeader(http.StatusOK)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func isGRPCContentType(ct string) bool {
	const g = "application/grpc"
	return len(ct) >= len(g) && ct[:len(g)] == g && (len(ct) == len(g) || ct[len(g)] == '+' || ct[len(g)] == ';')
}
