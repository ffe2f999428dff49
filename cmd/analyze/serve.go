package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/faultline/faultline/enrich"
	"github.com/faultline/faultline/internal/cli"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/web"
)

// serveFlags are the flags of `analyze serve`.
type serveFlags struct {
	storeFlags
	listen    string
	authToken string
	basicAuth string
	hookToken string
	readOnly  bool
	timeout   time.Duration
	analyses  int
	queue     int
	tlsCert   string
	tlsKey    string
}

// shutdownGrace is how long in-flight requests get after SIGTERM.
const shutdownGrace = 10 * time.Second

func runServe(ctx context.Context, e *env, args []string) int {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	f.bind(fs, e)
	f.bindMemory(fs)
	fs.StringVar(&f.listen, "listen", ":8080", "address to listen on")
	// Secrets default to their environment variables after parsing, so
	// that -h never prints them as defaults.
	fs.StringVar(&f.authToken, "auth-token", "", "require this bearer token (or the login form) for pages and API (default $FAULTLINE_AUTH_TOKEN)")
	fs.StringVar(&f.basicAuth, "basic-auth", "", "also admit HTTP basic auth as USER:PASSWORD (default $FAULTLINE_BASIC_AUTH)")
	fs.BoolVar(&f.readOnly, "read-only", false, "open the store read-only (candidate runbooks are then kept in memory only)")
	fs.StringVar(&f.hookToken, "hook-token", "", "bearer token the alert hooks require; needed with --auth-token or --basic-auth when Slack is configured (default $FAULTLINE_HOOK_TOKEN)")
	fs.DurationVar(&f.timeout, "request-timeout", 20*time.Second, "longest analysis per request")
	fs.IntVar(&f.analyses, "max-analyses", 2, "analyses run at once, whoever asks: pages, API, /mcp and alert hooks share them")
	fs.IntVar(&f.queue, "analysis-queue", 4, "analyses of pages, API and /mcp waiting for a slot; past them a request gets 503 with Retry-After (alerts wait, never refused)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with this certificate (PEM; needs --tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the private key of --tls-cert (PEM)")
	pos, err := parseFlags(fs, args)
	f.secretsFromEnv(e)
	if err == nil && len(pos) > 0 {
		err = badUsage("serve takes no arguments, got %q", truncate(pos[0], 40))
	}
	if err == nil {
		err = checkListen(f.listen)
	}
	if err != nil {
		return fail(e, "serve", err)
	}
	cfg, err := f.webConfig()
	if err != nil {
		return fail(e, "serve", err)
	}
	tlsConf, err := cli.ServerTLS(f.tlsCert, f.tlsKey)
	if err != nil {
		return fail(e, "serve", badUsage("%v", err))
	}
	cfg.TLS = tlsConf != nil
	// One pool for every analysis of the server: pages, API, /mcp and the
	// alert hooks.
	cfg.Pool = web.NewPool(f.analyses, f.queue)
	hs := hookSettings{public: f.public, token: f.hookToken, webProtected: cfg.AuthToken != "" || cfg.BasicUser != "", readOnly: f.readOnly}
	if err := hs.check(e); err != nil {
		return fail(e, "serve", err)
	}
	if t := strings.TrimSpace(f.hookToken); t != "" && t == cfg.AuthToken {
		return fail(e, "serve", badUsage("the hook token is the same as the web's access token: "+
			"anyone who can post alerts could then read every page and resend dead letters; give them different values"))
	}
	// Bound before the store is opened: a bad or busy port creates nothing.
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fail(e, "serve", fmt.Errorf("cannot listen on %s (%w): another server may hold the port; give another with --listen, such as --listen localhost:8081", f.listen, errors.Unwrap(err)))
	}
	defer ln.Close()
	log := slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if !hs.webProtected && !cli.Loopback(f.listen) {
		log.Warn("listening beyond loopback without --auth-token or --basic-auth: anyone who reaches the port can read every incident; "+
			"set --auth-token or $FAULTLINE_AUTH_TOKEN", "addr", f.listen)
	}
	// A server may start before anything was ingested: it creates the
	// store, as ingest serve does, and shows an empty state until data comes.
	f.create = true
	eng, closeFn, err := f.engine(ctx, f.readOnly, log)
	if err != nil {
		return fail(e, "serve", err)
	}
	defer closeFn()
	// The embedded store's file is followed: one moved over it is opened
	// in its place (swapstore.go).
	var swap *swapStore
	if path := storePath(f.url); path != "" {
		swap = newSwapStore(path, eng.Store, func(ctx context.Context) (store.Store, error) { return f.open(ctx, f.readOnly, log) }, log)
		eng.Store = swap
		defer swap.Close()
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	hs.analyzer = pooledAnalyzer{pool: cfg.Pool, an: eng, timeout: alertAnalysisTimeout}
	hs.analysisBudget = alertAnalysisTimeout + alertSlotWait
	hooks, svc, stopHooks, err := alertHooks(e, hs, eng, reg, log)
	if err != nil {
		return fail(e, "serve", err)
	}
	defer stopHooks() // after the HTTP server has stopped: drains the alert queue
	cfg.Hooks = hooks
	if hooks == nil {
		cfg.Hooks = http.HandlerFunc(hooksNotConfigured)
	} else {
		cfg.DeadLetters = webDeadLetters{svc}
		cfg.HookToken = hookToken(e, hs)
	}
	// /metrics shows alert counts, rejection reasons and the Slack
	// breaker: behind the web's access control when it is on.
	cfg.Metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
	// /mcp: the same tools as analyze mcp, in the same pool as the pages.
	cfg.MCP = serveMCP(eng, log, hs.webProtected)
	wb := newWebBackend(eng)
	cfg.Health = wb.health(eng.Store)
	if swap != nil {
		swap.mu.Lock()
		swap.onSwap = func() { wb.damaged.Store(nil) }
		swap.mu.Unlock()
		cfg.Health = withFileCheck(swap, cfg.Health)
	}
	h, err := web.New(cfg, wb, log)
	if err != nil {
		return fail(e, "serve", badUsage("%v", err))
	}
	return serveUntilDone(ctx, e, ln, h, cfg, tlsConf)
}

// An alert's analysis in analyze serve waits up to alertSlotWait for a
// slot of the pool, then runs for up to alertAnalysisTimeout (enrich's
// own default): a busy web delays the alert's message, rather than
// sending it without its analysis.
const (
	alertSlotWait        = 2 * time.Minute
	alertAnalysisTimeout = 30 * time.Second
)

// pooledAnalyzer runs the alert hooks' analyses in the web's pool, so
// that --max-analyses bounds them with the pages', the API's and /mcp's:
// an alert waits for a slot (never refused: its hook answered 202), then
// has timeout (0: none) to run.
type pooledAnalyzer struct {
	pool    *web.Pool
	an      enrich.Analyzer
	timeout time.Duration
}

func (p pooledAnalyzer) Incident(ctx context.Context, q rootcause.Query) (*rootcause.Report, error) {
	var rep *rootcause.Report
	err := p.pool.Wait(ctx, 0, func(ctx context.Context) error {
		if p.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, p.timeout)
			defer cancel()
		}
		var err error
		rep, err = p.an.Incident(ctx, q)
		return err
	})
	if err != nil {
		return nil, err // rep is the flight's until it lands
	}
	return rep, nil
}

// withFileCheck adds to health the check of the store's file: removed
// while the server runs is unhealthy; replaced is opened (swapStore).
func withFileCheck(swap *swapStore, health func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := swap.health(ctx); err != nil {
			return err
		}
		return health(ctx)
	}
}

// storePath is the file of an embedded store's URL ("" for ClickHouse).
func storePath(storeURL string) string {
	switch {
	case strings.HasPrefix(storeURL, "clickhouse:"):
		return ""
	case strings.HasPrefix(storeURL, "file:"):
		u, err := url.Parse(storeURL)
		if err != nil {
			return ""
		}
		return u.Path
	}
	return storeURL
}

// checkListen refuses a listen address that cannot be bound as written
// (no port, a port out of range), as ingest serve does.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return badUsage("--listen %q is not an address such as :8080 or 127.0.0.1:8080 (a port from 0 to 65535)", truncate(addr, 40))
	}
	return nil
}

// hookToken is the bearer token the hooks require ("" when none).
func hookToken(e *env, hs hookSettings) string {
	if t := strings.TrimSpace(hs.token); t != "" {
		return t
	}
	return enrich.ConfigFromEnv(e.Getenv).HookToken
}

// hooksNotConfigured answers the alert webhooks when no Slack destination
// is set: 503 with what to set, so a notifier's log says why.
func hooksNotConfigured(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(`{"error":"alert enrichment is not configured: set FAULTLINE_SLACK_WEBHOOK_URL, or FAULTLINE_SLACK_TOKEN and FAULTLINE_SLACK_CHANNEL"}` + "\n"))
}

// secretsFromEnv fills the secret flags not given from the environment.
func (f *serveFlags) secretsFromEnv(e *env) {
	for _, v := range []struct {
		p   *string
		env string
	}{{&f.authToken, "FAULTLINE_AUTH_TOKEN"}, {&f.basicAuth, "FAULTLINE_BASIC_AUTH"}, {&f.hookToken, "FAULTLINE_HOOK_TOKEN"}} {
		if *v.p == "" {
			*v.p = e.Getenv(v.env)
		}
	}
}

// webConfig builds the web configuration from the flags.
func (f *serveFlags) webConfig() (web.Config, error) {
	cfg := web.Config{AuthToken: f.authToken, PublicURL: f.public, RequestTimeout: f.timeout,
		MaxAnalyses: f.analyses, AnalysisQueue: f.queue}
	if f.analyses < 1 {
		return cfg, badUsage("--max-analyses must be at least 1")
	}
	if f.queue < 0 {
		return cfg, badUsage("--analysis-queue must be 0 or more")
	}
	if f.queue == 0 {
		cfg.AnalysisQueue = -1 // none: web.Config's 0 is the default
	}
	if f.basicAuth != "" {
		u, p, ok := strings.Cut(f.basicAuth, ":")
		if !ok || u == "" || p == "" {
			return cfg, badUsage("--basic-auth must be USER:PASSWORD")
		}
		cfg.BasicUser, cfg.BasicPassword = u, p
	}
	if f.timeout <= 0 {
		return cfg, badUsage("--request-timeout must be positive")
	}
	if err := cfg.Validate(); err != nil {
		return cfg, badUsage("%v", err)
	}
	return cfg, nil
}

// serveUntilDone serves h on ln (over TLS when tlsConf is set) until ctx
// ends (SIGINT or SIGTERM), then shuts down gracefully.
func serveUntilDone(ctx context.Context, e *env, ln net.Listener, h http.Handler, cfg web.Config, tlsConf *tls.Config) int {
	srv := web.NewHTTPServer(ln.Addr().String(), h, cfg)
	scheme := "http"
	if tlsConf != nil {
		srv.TLSConfig, scheme = tlsConf, "https"
	}
	fmt.Fprintf(e.Stderr, "analyze serve: listening on %s://%s\n", scheme, ln.Addr())
	done := make(chan error, 1)
	go func() {
		if tlsConf != nil {
			done <- srv.ServeTLS(ln, "", "") // the certificate is in srv.TLSConfig
			return
		}
		done <- srv.Serve(ln)
	}()
	select {
	case err := <-done:
		return fail(e, "serve", fmt.Errorf("server stopped: %w", err))
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fail(e, "serve", fmt.Errorf("shutdown did not finish: %w", err))
	}
	fmt.Fprintln(e.Stderr, "analyze serve: stopped")
	return exitOK
}

// webDeadLetters shows the enrichment service's dead letters on the web.
type webDeadLetters struct{ svc *enrich.Service }

func (d webDeadLetters) DeadLetters(ctx context.Context) ([]web.DeadLetter, error) {
	list, err := d.svc.DeadLetters(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]web.DeadLetter, 0, len(list))
	for _, dl := range list {
		out = append(out, webDeadLetter(dl))
	}
	return out, nil
}

func (d webDeadLetters) Resend(ctx context.Context, id string) error {
	err := d.svc.Resend(ctx, id)
	switch {
	case errors.Is(err, enrich.ErrNoDeadLetter):
		return fmt.Errorf("%w: %w", schema.ErrNotFound, err)
	case errors.Is(err, enrich.ErrResendInProgress):
		return fmt.Errorf("%w: %w", web.ErrConflict, err)
	}
	return err
}

func webDeadLetter(dl enrich.DeadLetter) web.DeadLetter {
	w := web.DeadLetter{ID: dl.ID, At: dl.At, Reason: dl.Reason, Error: dl.Error, Attempts: dl.Attempts, ResendError: dl.ResendError}
	if g := dl.Group; g != nil {
		w.Title, w.Service, w.Severity, w.Status = g.Title, g.Service, g.Severity, string(g.Status)
	}
	return w
}
