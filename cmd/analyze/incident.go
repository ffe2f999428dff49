package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/web"
)

type incidentFlags struct {
	storeFlags
	json            bool
	since, from, to string
	service         string
	top             int
	baseline        time.Duration
	sample          int
	sampleFailing   int
}

func runIncident(ctx context.Context, e *env, args []string) int {
	var f incidentFlags
	fs := flag.NewFlagSet("incident", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	f.bind(fs, e)
	f.bindMemory(fs)
	fs.BoolVar(&f.json, "json", false, "print the JSON document")
	fs.StringVar(&f.since, "since", "", "window: the last DURATION (default 30m; on a store that holds less than an hour, its newer half)")
	fs.StringVar(&f.from, "from", "", "window start, RFC3339")
	fs.StringVar(&f.to, "to", "", "window end, RFC3339 (default now)")
	fs.StringVar(&f.service, "service", "", "start from the alerting service")
	fs.IntVar(&f.top, "top", 5, "how many candidates")
	fs.DurationVar(&f.baseline, "baseline", rootcause.DefaultBaseline, "how long a period before the window is the baseline")
	fs.IntVar(&f.sample, "sample-above", 0, "sample the healthy traces of a period that holds more than N of their records (0: 1000000; -1: never)")
	fs.IntVar(&f.sampleFailing, "sample-failing-above", 0, "sample the failing traces of a window that has more than N of them (0: 20000; -1: never)")
	pos, err := parseFlags(fs, args)
	if err == nil && len(pos) > 0 {
		err = badUsage("incident takes no arguments, got %q; use --since or --from/--to", truncate(pos[0], 40))
	}
	if err == nil && (f.top < 1 || f.top > rootcause.MaxTop) {
		err = badUsage("--top must be between 1 and %d", rootcause.MaxTop)
	}
	if err != nil {
		return fail(e, "incident", err)
	}
	from, to, err := window(f.since, f.from, f.to, time.Now())
	if err != nil {
		return fail(e, "incident", err)
	}
	eng, closeFn, err := f.engine(ctx, false, logger(e))
	if err != nil {
		return fail(e, "incident", err)
	}
	defer closeFn()
	if f.since == "" && f.from == "" && f.to == "" {
		// No window: the incident page's default, which leaves a store
		// that holds less than an hour its baseline.
		if first, last, err := eng.Store.Bounds(ctx); err == nil {
			now := time.Now()
			if d, short := web.DefaultSince(first, last, now); short {
				from, to = now.Add(-d), now
				fmt.Fprintf(e.Stderr, "note: the store's records begin %.0f minutes ago, less than an hour: the window is the last %.0f minutes, from the middle of what it holds, so that what comes before is its baseline (as the web UI's /)\n",
					now.Sub(first).Minutes(), d.Minutes())
			}
		}
	}
	eng.Rootcause.Baseline = f.baseline
	eng.Rootcause.SampleAbove = f.sample
	eng.Rootcause.SampleFailingAbove = f.sampleFailing
	rep, err := eng.Incident(ctx, rootcause.Query{From: from, To: to, Service: f.service, Top: f.top})
	if errors.Is(err, rootcause.ErrNoData) {
		return fail(e, "incident", fmt.Errorf("no records between %s and %s; is ingest running, or is the window right?",
			from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339)))
	}
	if err != nil {
		return fail(e, "incident", err)
	}
	if f.json {
		err = writeJSON(e.Stdout, rep)
	} else {
		err = writeIncident(e.Stdout, rep, runbookgen.StoreFlag(f.url))
	}
	if err != nil {
		return fail(e, "incident", err)
	}
	return exitOK
}

// writeIncident prints the ranked candidates for a terminal; store is the
// " --store ARG" of the commands it suggests (runbookgen.StoreFlag), so
// that they run as printed.
func writeIncident(w io.Writer, rep *rootcause.Report, store string) error {
	var b strings.Builder
	to := rep.Window.To.UTC().Format("15:04:05")
	if rep.Window.To.UTC().YearDay() != rep.Window.From.UTC().YearDay() || rep.Window.To.Sub(rep.Window.From) >= 24*time.Hour {
		to = rep.Window.To.UTC().Format("2006-01-02 15:04:05")
	}
	fmt.Fprintf(&b, "Incident %s → %s UTC: %d traces, %d failing",
		rep.Window.From.UTC().Format("2006-01-02 15:04:05"), to, rep.Traces, rep.FailedTraces)
	if rep.Baseline != nil {
		fmt.Fprintf(&b, "; baseline from %s", rep.Baseline.From.UTC().Format("15:04:05"))
	}
	b.WriteString("\n")
	for _, wn := range rep.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	if len(rep.Candidates) == 0 {
		b.WriteString("\nNo root-cause candidate: nothing in the window differs from the baseline.\n")
	}
	for _, c := range rep.Candidates {
		// The headline is the share explained, never above 100%; the
		// score that ranks (it adds symptom terms, so may exceed 1)
		// stays in --json (runbookgen.Explained).
		fmt.Fprintf(&b, "\n#%d  %s  %s  %s", c.Rank, c.Service, c.Kind, runbookgen.ExplainedWords(&c))
		if c.Traces > 0 {
			if c.Traces == 1 {
				b.WriteString("  1 failing trace")
			} else {
				fmt.Fprintf(&b, "  %d failing traces", c.Traces)
			}
		}
		if !c.FirstSeen.IsZero() {
			fmt.Fprintf(&b, "  first seen %s", c.FirstSeen.UTC().Format("15:04:05.000"))
		}
		b.WriteString("\n")
		if c.Template != "" {
			fmt.Fprintf(&b, "    signature %s  %s\n", c.Signature, oneLine(c.Template, 100))
		}
		for _, ev := range c.Evidence {
			fmt.Fprintf(&b, "    - %s\n", ev)
		}
		if len(c.ExampleTraces) > 0 {
			fmt.Fprintf(&b, "    traces: analyze trace%s %s\n", store, c.ExampleTraces[0])
		}
		if c.Runbook != nil {
			fmt.Fprintf(&b, "    runbook %s (%s, MTTR %s): analyze runbook%s %s\n", c.Runbook.ID, c.Runbook.Severity, c.Runbook.MTTRTarget, store, c.Runbook.ID)
		}
	}
	return terminalText(w, b.String())
}

// oneLine flattens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
