package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/internal/cli"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

type serveFlags struct {
	store      string
	listen     string
	otlpListen string
	grpcListen string
	retention  string
	patterns   string
	drain      time.Duration
	authToken  string
	tlsCert    string
	tlsKey     string
	bodyWait   time.Duration
}

// runServe receives logs and spans until ctx is cancelled (SIGINT,
// SIGTERM), then stops accepting, drains in-flight requests and closes
// the store.
func runServe(ctx context.Context, e *env, args []string) int {
	var f serveFlags
	fs := newFlags(e, "serve")
	fs.StringVar(&f.store, "store", "", "store URL (default $FAULTLINE_STORE, else ./faultline.db); ClickHouse: clickhouse://HOST:9000/DB[?cluster=NAME&spool_dir=DIR]")
	fs.StringVar(&f.listen, "listen", ":3100", "address of the Loki push, JSON lines, /healthz and /metrics endpoints")
	fs.StringVar(&f.otlpListen, "otlp-listen", ":4318", "address of the OTLP/HTTP endpoints (empty: off)")
	fs.StringVar(&f.grpcListen, "otlp-grpc-listen", ":4317", "address of the OTLP/gRPC logs and traces services (empty or off: off)")
	fs.StringVar(&f.retention, "retention", "", "delete records older than this (e.g. 7d, 36h); empty keeps everything")
	fs.StringVar(&f.patterns, "patterns", "", "JSON file of extra text patterns (default $FAULTLINE_PATTERNS)")
	fs.DurationVar(&f.drain, "drain-timeout", 30*time.Second, "how long shutdown waits for in-flight requests")
	// The token defaults to its environment variable after parsing, so
	// that -h never prints it.
	fs.StringVar(&f.authToken, "auth-token", "", "require this token on every endpoint but /healthz, as a bearer token or basic-auth password (default $FAULTLINE_INGEST_TOKEN)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS and gRPC over TLS with this certificate (PEM; needs --tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the private key of --tls-cert (PEM)")
	fs.DurationVar(&f.bodyWait, "body-timeout", ingest.DefaultLimits().BodyTimeout, "how long a request body or gRPC message may take to arrive")
	if err := fs.Parse(args); err != nil {
		return flagError(e, fs, err)
	}
	if f.authToken == "" {
		f.authToken = e.Getenv("FAULTLINE_INGEST_TOKEN")
	}
	f.authToken = strings.TrimSpace(f.authToken)
	if fs.NArg() > 0 {
		return fail(e.Stderr, exitUsage, "serve takes no arguments, got %q.", truncate(fs.Arg(0), 40))
	}
	retention, err := parseRetention(f.retention)
	if err != nil {
		return fail(e.Stderr, exitUsage, "%s; write it like 7d or 36h.", cli.DurationError("--retention", f.retention, err, 0))
	}
	if f.grpcListen == "off" {
		f.grpcListen = ""
	}
	for _, a := range []struct{ flag, addr string }{{"--listen", f.listen}, {"--otlp-listen", f.otlpListen}, {"--otlp-grpc-listen", f.grpcListen}} {
		if err := checkAddr(a.addr); err != nil {
			return fail(e.Stderr, exitUsage, "%s %q is not a listen address: %v; write it like :3100 or 127.0.0.1:3100.", a.flag, truncate(a.addr, 60), err)
		}
	}
	if f.store == "" {
		f.store = store.DefaultURL(e.Getenv)
	}
	if err := store.CheckURL(f.store); err != nil {
		return storeFailure(e, err)
	}
	if f.bodyWait <= 0 {
		return fail(e.Stderr, exitUsage, "--body-timeout must be positive, got %s; write it like 1m.", f.bodyWait)
	}
	tlsConf, err := cli.ServerTLS(f.tlsCert, f.tlsKey)
	if err != nil {
		return fail(e.Stderr, exitUsage, "%v.", err)
	}
	dec, err := decoder(e, f.patterns, ingest.Limits{BodyTimeout: f.bodyWait})
	if err != nil {
		return fail(e.Stderr, exitUsage, "%v; fix the patterns file.", err)
	}
	log := logger(e, false)
	setMemoryLimit(e, dec.Limits())
	lns, err := bind(f, log) // before the store: a busy port creates nothing
	if err != nil {
		return fail(e.Stderr, exitFail, "%v; choose another address.", err)
	}
	warnOpen(f, log)
	st, err := openStore(ctx, e, f.store, log)
	if err != nil {
		closeAll(lns)
		return storeFailure(e, err)
	}
	code := serve(ctx, e, f, lns, dec, tlsConf, st, retention, log)
	if err := st.Close(); err != nil && code == exitOK {
		return fail(e.Stderr, exitFail, "cannot close the store: %v.", err)
	}
	return code
}

// setMemoryLimit sets a soft memory limit of the byte budget plus room
// for the rest of the server (unless $GOMEMLIMIT sets one): what requests
// hold is bounded by MaxBytesInFlight, but what they dropped (buffers
// outgrown, bodies refused with 429) was collected late, and 24 gzip
// bombs at once took the server to 1.2 GB.
func setMemoryLimit(e *env, l ingest.Limits) {
	if e.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(l.MaxBytesInFlight + memoryHeadroom)
}

// memoryHeadroom is the memory limit's room over the byte budget: the
// store's caches, the decoders, the gRPC buffers.
const memoryHeadroom = 256 << 20

// checkAddr refuses a listen address that cannot be bound as written (no
// port, a port out of range); empty turns the endpoint off.
func checkAddr(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("it needs a port")
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("port %q is not a port number from 0 to 65535", truncate(port, 20))
	}
	return nil
}

// warnOpen warns when a listener reaches beyond this machine without the
// token: anyone who reaches it can write records that steer the analysis.
func warnOpen(f serveFlags, log *slog.Logger) {
	if f.authToken != "" {
		return
	}
	for _, addr := range []string{f.listen, f.otlpListen, f.grpcListen} {
		if addr != "" && !cli.Loopback(addr) {
			log.Warn("listening beyond loopback without --auth-token: anyone who reaches the port can write records; set --auth-token or $FAULTLINE_INGEST_TOKEN", "addr", addr)
		}
	}
}

func serve(ctx context.Context, e *env, f serveFlags, lns listeners, dec *ingest.Decoder, tlsConf *tls.Config, st store.Store, retention time.Duration, log *slog.Logger) int {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	tp := sdktrace.NewTracerProvider() // spans are made; add an exporter to ship them
	defer tp.Shutdown(context.Background())
	srv := ingest.NewServer(ingest.ServerConfig{Decoder: dec, Registry: reg, Tracer: tp, Health: healthOf(st),
		AuthToken: f.authToken, TLS: tlsConf}, sinkOf(st), log)
	servers := lns.servers(srv, dec.Limits(), tlsConf, log)
	if retention > 0 {
		go retain(ctx, st, retention, log)
	}
	if ic, ok := st.(integrityChecker); ok {
		go watchIntegrity(ctx, ic, integrityEvery, log)
	}
	errc := make(chan error, len(servers))
	for _, s := range servers {
		go func() { errc <- s.serve() }()
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		log.Error("server stopped", "err", err)
		shutdown(servers, f.drain, log)
		return fail(e.Stderr, exitFail, "the server stopped: %v.", err)
	}
	log.Info("shutting down; draining in-flight requests")
	shutdown(servers, f.drain, log)
	return exitOK
}

// netServer is an http.Server or the OTLP/gRPC server.
type netServer interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
}

// boundServer is a server with its listener already bound.
type boundServer struct {
	srv netServer
	ln  net.Listener
	tls bool // the HTTP server takes TLS on ln
}

func (b boundServer) serve() error {
	var err error
	if hs, ok := b.srv.(*http.Server); ok && b.tls {
		err = hs.ServeTLS(b.ln, "", "") // the certificate is in hs.TLSConfig
	} else {
		err = b.srv.Serve(b.ln)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// listeners are the bound --listen, --otlp-listen and --otlp-grpc-listen
// sockets (nil when an address is empty).
type listeners struct{ main, otlp, grpc net.Listener }

// bind listens on every address, or on none.
func bind(f serveFlags, log *slog.Logger) (listeners, error) {
	var lns listeners
	for _, a := range []struct {
		addr string
		ln   *net.Listener
	}{{f.listen, &lns.main}, {f.otlpListen, &lns.otlp}, {f.grpcListen, &lns.grpc}} {
		if a.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", a.addr)
		if err != nil {
			closeAll(lns)
			return listeners{}, fmt.Errorf("cannot listen on %q: %w", a.addr, err)
		}
		*a.ln = ln
	}
	return lns, nil
}

func closeAll(lns listeners) {
	for _, ln := range []net.Listener{lns.main, lns.otlp, lns.grpc} {
		if ln != nil {
			ln.Close()
		}
	}
}

// servers puts srv's handlers on the bound sockets, over TLS when tlsConf
// is set. The HTTP servers also take HTTP/2 (h2c without TLS), so that a
// gRPC exporter pointed at them is told the gRPC port rather than failing
// with "frame too large".
func (lns listeners) servers(srv *ingest.Server, lim ingest.Limits, tlsConf *tls.Config, log *slog.Logger) []boundServer {
	var out []boundServer
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	protos.SetHTTP2(true)
	for _, a := range []struct {
		ln net.Listener
		h  http.Handler
	}{{lns.main, srv.Handler()}, {lns.otlp, srv.OTLPHandler()}} {
		if a.ln == nil {
			continue
		}
		log.Info("listening", "addr", a.ln.Addr().String(), "tls", tlsConf != nil)
		hs := &http.Server{
			Handler: a.h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: lim.BodyTimeout + time.Minute,
			WriteTimeout: lim.BodyTimeout + time.Minute, IdleTimeout: lim.ConnIdleTimeout, Protocols: &protos,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		}
		if tlsConf != nil {
			hs.TLSConfig = tlsConf.Clone()
		}
		out = append(out, boundServer{ln: a.ln, srv: hs, tls: tlsConf != nil})
	}
	if lns.grpc != nil {
		log.Info("listening", "addr", lns.grpc.Addr().String(), "protocol", "otlp-grpc", "tls", tlsConf != nil)
		out = append(out, boundServer{ln: lns.grpc, srv: srv.GRPC()})
	}
	return out
}

// shutdown stops accepting and waits up to drain for in-flight requests,
// so every 2xx already sent stays true before the store closes.
func shutdown(servers []boundServer, drain time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range servers { // at once: each stops accepting at the same time
		wg.Go(func() {
			if err := s.srv.Shutdown(ctx); err != nil {
				log.Warn("shutdown did not drain in time", "addr", s.ln.Addr().String(), "err", err)
			}
		})
	}
	wg.Wait()
}

// healthOf checks that the last write did not fail for a lasting reason
// (a damaged file, a full disk) and that the store answers a read.
func healthOf(st store.Store) func(context.Context) error {
	return func(ctx context.Context) error {
		if wh, ok := st.(writeHealther); ok {
			if err := failureOf(wh.WriteHealth()); err != nil {
				return err
			}
		}
		for _, err := range st.TraceRecords(ctx, schema.TraceID("00000000000000000000000000000001"), 1) {
			if err != nil && !errors.Is(err, schema.ErrNotFound) {
				return failureOf(err)
			}
		}
		return nil
	}
}

// integrityEvery is how often a running server checks the embedded store's
// file for damage done under it (each check is bounded by the store: at
// most 2 seconds of reading, so at most a thirtieth of one core).
const integrityEvery = time.Minute

// watchIntegrity checks the store every interval until ctx ends. Damage
// found makes the store refuse writes (500) and /healthz fail; it is
// logged by the store.
func watchIntegrity(ctx context.Context, ic integrityChecker, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := ic.CheckIntegrity(ctx); err != nil && ctx.Err() == nil {
			log.Warn("store integrity check failed", "err", err)
		}
	}
}

// retain deletes records older than keep, at start and then every
// keep/24 (between a minute and an hour), until ctx ends.
func retain(ctx context.Context, st store.Store, keep time.Duration, log *slog.Logger) {
	every := min(max(keep/24, time.Minute), time.Hour)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		n, err := st.DeleteBefore(ctx, time.Now().Add(-keep))
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("retention failed", "err", err)
		case n > 0:
			log.Info("retention deleted old records", "records", n, "older_than", keep.String())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// parseRetention reads a duration with an optional day unit ("7d", "36h",
// "1d12h") with cli.ParseDuration's overflow checks (at most
// cli.MaxDuration: longer is cli.ErrDurationTooLong); empty means none.
func parseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	return cli.ParseDuration(s, 0)
}
