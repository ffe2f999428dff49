package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/ingest"
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
	retention  string
	patterns   string
	drain      time.Duration
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
	fs.StringVar(&f.retention, "retention", "", "delete records older than this (e.g. 7d, 36h); empty keeps everything")
	fs.StringVar(&f.patterns, "patterns", "", "JSON file of extra text patterns (default $FAULTLINE_PATTERNS)")
	fs.DurationVar(&f.drain, "drain-timeout", 30*time.Second, "how long shutdown waits for in-flight requests")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		return fail(e.Stderr, exitUsage, "serve takes no arguments, got %q.", truncate(fs.Arg(0), 40))
	}
	retention, err := parseRetention(f.retention)
	if err != nil {
		return fail(e.Stderr, exitUsage, "--retention %q is not a duration; write it like 7d or 36h.", truncate(f.retention, 40))
	}
	dec, err := decoder(e, f.patterns)
	if err != nil {
		return fail(e.Stderr, exitUsage, "%v; fix the patterns file.", err)
	}
	log := logger(e, false)
	st, err := openStore(ctx, e, f.store, log)
	if err != nil {
		return fail(e.Stderr, exitFail, "%v; check --store.", err)
	}
	code := serve(ctx, e, f, dec, st, retention, log)
	if err := st.Close(); err != nil && code == exitOK {
		return fail(e.Stderr, exitFail, "cannot close the store: %v.", err)
	}
	return code
}

func serve(ctx context.Context, e *env, f serveFlags, dec *ingest.Decoder, st store.Store, retention time.Duration, log *slog.Logger) int {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	tp := sdktrace.NewTracerProvider() // spans are made; add an exporter to ship them
	defer tp.Shutdown(context.Background())
	srv := ingest.NewServer(ingest.ServerConfig{Decoder: dec, Registry: reg, Tracer: tp, Health: healthOf(st)}, sinkOf(st), log)
	servers, err := listen(f, srv, log)
	if err != nil {
		return fail(e.Stderr, exitFail, "%v; choose another address.", err)
	}
	if retention > 0 {
		go retain(ctx, st, retention, log)
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

// boundServer is an http.Server with its listener already bound.
type boundServer struct {
	srv *http.Server
	ln  net.Listener
}

func (b boundServer) serve() error {
	if err := b.srv.Serve(b.ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func listen(f serveFlags, srv *ingest.Server, log *slog.Logger) ([]boundServer, error) {
	var out []boundServer
	for _, a := range []struct {
		addr string
		h    http.Handler
	}{{f.listen, srv.Handler()}, {f.otlpListen, srv.OTLPHandler()}} {
		if a.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", a.addr)
		if err != nil {
			for _, b := range out {
				b.ln.Close()
			}
			return nil, fmt.Errorf("cannot listen on %q: %w", a.addr, err)
		}
		log.Info("listening", "addr", ln.Addr().String())
		out = append(out, boundServer{ln: ln, srv: &http.Server{
			Handler: a.h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 2 * time.Minute,
			WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		}})
	}
	return out, nil
}

// shutdown stops accepting and waits up to drain for in-flight requests,
// so every 2xx already sent stays true before the store closes.
func shutdown(servers []boundServer, drain time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	for _, s := range servers {
		if err := s.srv.Shutdown(ctx); err != nil {
			log.Warn("shutdown did not drain in time", "err", err)
		}
	}
}

// healthOf checks the store answers a read.
func healthOf(st store.Store) func(context.Context) error {
	return func(ctx context.Context) error {
		for _, err := range st.TraceRecords(ctx, schema.TraceID("00000000000000000000000000000001"), 1) {
			if err != nil && !errors.Is(err, schema.ErrNotFound) {
				return err
			}
		}
		return nil
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
// "1d12h"); empty means none.
func parseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	var days int
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil {
			return 0, err
		}
		days, s = n, s[i+1:]
	}
	var rest time.Duration
	if s != "" {
		var err error
		if rest, err = time.ParseDuration(s); err != nil {
			return 0, err
		}
	}
	d := time.Duration(days)*24*time.Hour + rest
	if d <= 0 {
		return 0, errors.New("retention must be positive")
	}
	return d, nil
}
