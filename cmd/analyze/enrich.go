package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/enrich"
	"github.com/prometheus/client_golang/prometheus"
)

// maxAlertFile bounds the alert file read by `analyze enrich`.
const maxAlertFile = 4 << 20

type enrichFlags struct {
	storeFlags
	json          bool
	alert         string
	lookBack      time.Duration
	serviceLabels string
}

// runEnrich prints the Slack message an alert would get. The analysis
// failing is not a failure of the command: the message then says so, as
// the one sent to Slack would.
func runEnrich(ctx context.Context, e *env, args []string) int {
	var f enrichFlags
	fs := flag.NewFlagSet("enrich", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	f.bind(fs, e)
	f.bindMemory(fs)
	fs.BoolVar(&f.json, "json", false, "print the Block Kit JSON")
	fs.StringVar(&f.alert, "alert", "", "Alertmanager or Grafana webhook body (\"-\" = stdin)")
	fs.DurationVar(&f.lookBack, "lookback", 15*time.Minute, "how long before the alert started to analyse")
	fs.StringVar(&f.serviceLabels, "service-labels", e.Getenv("FAULTLINE_SERVICE_LABELS"), "labels naming the service, comma-separated (default service,service_name,job,app)")
	pos, err := parseFlags(fs, args)
	switch {
	case err != nil:
	case len(pos) > 0:
		err = badUsage("enrich takes no arguments, got %q; give the alert with --alert FILE", truncate(pos[0], 40))
	case f.alert == "":
		err = badUsage("give the alert with --alert FILE (an Alertmanager or Grafana webhook body)")
	case f.lookBack <= 0:
		err = badUsage("--lookback must be positive")
	}
	if err != nil {
		return fail(e, "enrich", err)
	}
	g, err := f.readAlert(e)
	if err != nil {
		return fail(e, "enrich", err)
	}
	msg, storeErr := f.message(ctx, e, g)
	if f.json {
		var b []byte
		if b, err = msg.JSON(); err == nil {
			_, err = e.Stdout.Write(b)
		}
	} else {
		tw := &terminalWriter{w: e.Stdout}
		if err = enrich.WriteText(tw, msg); err == nil {
			err = tw.flush()
		}
	}
	if err != nil {
		return fail(e, "enrich", err)
	}
	if storeErr != nil {
		// The message is printed all the same (it is what Slack would get);
		// the exit code tells a script the store could not be read.
		return exitFail
	}
	return exitOK
}

// readAlert reads and parses the alert file; every problem is bad input.
func (f *enrichFlags) readAlert(e *env) (*enrich.Group, error) {
	var r io.Reader = e.Stdin
	name := "standard input"
	if f.alert != "-" {
		fh, err := os.Open(f.alert)
		if err != nil {
			return nil, badUsage("cannot read the alert file %q: %v", truncate(f.alert, 80), errors.Unwrap(err))
		}
		defer fh.Close()
		r, name = fh, fmt.Sprintf("%q", truncate(f.alert, 80))
	}
	data, err := io.ReadAll(io.LimitReader(r, maxAlertFile+1))
	if err != nil {
		return nil, badUsage("cannot read the alert from %s: %v", name, err)
	}
	if len(data) > maxAlertFile {
		return nil, badUsage("the alert in %s is over %d MiB; is it an alert webhook body", name, maxAlertFile>>20)
	}
	g, err := enrich.Parse(data, enrich.ParseOptions{ServiceLabels: splitList(f.serviceLabels)})
	if err != nil {
		return nil, badUsage("the alert in %s is not an Alertmanager (version 4) or Grafana webhook body: %v", name, err)
	}
	return g, nil
}

// message analyses the alert's window and builds the message. A store
// that cannot be opened gives the message without analysis, a warning, and
// that error.
func (f *enrichFlags) message(ctx context.Context, e *env, g *enrich.Group) (*enrich.Message, error) {
	now := time.Now()
	opt := enrich.AnalyzeOptions{LookBack: f.lookBack, MaxWindow: 6 * time.Hour, Top: 3}
	// The preview opens the store read-only; the engine's note that the
	// candidates' runbooks stay unsaved is expected here, so only errors show.
	log := slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	var a enrich.Analysis
	eng, closeFn, storeErr := f.engine(ctx, true, log)
	if storeErr != nil {
		a = enrich.Analyze(ctx, nil, g, now, opt)
		a.Err = storeErr
	} else {
		defer closeFn()
		a = enrich.Analyze(ctx, eng, g, now, opt)
	}
	if a.Err != nil {
		fmt.Fprintf(e.Stderr, "analyze enrich: the analysis could not run (%s); the message says so and carries the alert.\n", errSentence(a.Err))
	}
	return enrich.BuildMessage(g, a, enrich.MessageOptions{PublicURL: f.public, Now: now}), storeErr
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func errSentence(err error) string {
	return strings.TrimSuffix(strings.ReplaceAll(err.Error(), "\n", " "), ".")
}

// hooksDrain is how long `analyze serve` gives queued alerts to reach
// Slack at shutdown; what is left is kept as dead letters.
const hooksDrain = 20 * time.Second

// hookSettings are what `analyze serve` passes on to the alert hooks.
type hookSettings struct {
	public, token string
	// webProtected: the UI needs credentials, so the hooks must too.
	webProtected bool
	// readOnly: the store cannot keep accepted alerts (no journal).
	readOnly bool
	// analyzer runs the alerts' analyses; nil: the engine, unbounded.
	// serve gives the web's pool, so that they count in --max-analyses.
	analyzer enrich.Analyzer
	// analysisBudget, when set, bounds an alert's analysis, the wait for
	// a slot of that pool included (enrich's AnalysisTimeout).
	analysisBudget time.Duration
}

// check refuses open hooks in front of a protected web: with a Slack
// destination set, the web behind credentials and no hook token, anyone
// could post alerts (and their links and text) that signed-in users and
// the Slack channel then see.
func (hs hookSettings) check(e *env) error {
	cfg := enrich.ConfigFromEnv(e.Getenv)
	if hs.webProtected && cfg.Configured() && strings.TrimSpace(hs.token) == "" && cfg.HookToken == "" {
		return badUsage("the web is protected (--auth-token or --basic-auth) but the alert hooks would take alerts from anyone: " +
			"set FAULTLINE_HOOK_TOKEN (or --hook-token) and give it to Alertmanager or Grafana as the bearer token")
	}
	return nil
}

// alertHooks builds the alert webhooks of `analyze serve` from the
// environment (FAULTLINE_SLACK_*, FAULTLINE_HOOK_TOKEN,
// FAULTLINE_SERVICE_LABELS) and the public URL. Without a Slack
// destination the handler is nil and the hooks stay off (accepting alerts
// with nowhere to send them would swallow them). When the web is protected
// the hooks must be too: without a hook token it is a usage error. stop drains the queue:
// call it after the HTTP server has stopped. reg may be nil.
func alertHooks(e *env, hs hookSettings, eng *analysis.Engine, reg prometheus.Registerer, log *slog.Logger) (h http.Handler, svc *enrich.Service, stop func(), err error) {
	cfg := enrich.ConfigFromEnv(e.Getenv)
	if hs.public != "" {
		cfg.PublicURL = hs.public
	}
	if t := strings.TrimSpace(hs.token); t != "" {
		cfg.HookToken = t
	}
	if err := hs.check(e); err != nil {
		return nil, nil, nil, err
	}
	if cfg.Configured() && cfg.HookToken == "" {
		log.Warn("alert hooks accept alerts from anyone: set FAULTLINE_HOOK_TOKEN (or --hook-token) to require a bearer token")
	}
	if !cfg.Configured() {
		if err := cfg.Validate(); err != nil {
			return nil, nil, nil, badUsage("%v", err)
		}
		log.Info("alert hooks off: no Slack destination (FAULTLINE_SLACK_WEBHOOK_URL, or FAULTLINE_SLACK_TOKEN and FAULTLINE_SLACK_CHANNEL)")
		return nil, nil, func() {}, nil
	}
	cfg.NoJournal = hs.readOnly
	if hs.readOnly {
		log.Warn("store opened read-only: accepted alerts are not kept in it, so a crash loses the ones not yet sent")
	}
	var an enrich.Analyzer = eng
	if hs.analyzer != nil {
		an = hs.analyzer
	}
	if hs.analysisBudget > 0 {
		cfg.AnalysisTimeout = hs.analysisBudget
	}
	svc, err = enrich.New(cfg, an, eng.Store, reg, log)
	if err != nil {
		return nil, nil, nil, badUsage("%v", err)
	}
	// Alerts a previous run accepted and did not settle (it crashed) go
	// out now, or become dead letters.
	if _, err := svc.Resume(context.Background()); err != nil {
		log.Warn("alerts accepted before a restart not resumed", "error", err)
	}
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), hooksDrain)
		defer cancel()
		if err := svc.Close(ctx); err != nil {
			log.Warn("alert queue not drained", "error", err)
		}
	}
	return svc.Hooks(), svc, stop, nil
}
