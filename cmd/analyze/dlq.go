package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/faultline/faultline/enrich"
	"github.com/faultline/faultline/internal/cli"
	"github.com/faultline/faultline/store"
)

const dlqUsage = "usage: analyze dlq list|show|resend [--store URL] [--json] [ID... | --all]"

// dlqFlags are the flags of every dlq subcommand.
type dlqFlags struct {
	storeFlags
	json, all bool
}

// runDLQ implements "analyze dlq": the Slack messages alert enrichment
// could not deliver (kept in the store as dead letters), to list, show in
// full, or resend with the Slack settings of the environment. It mirrors
// "ingest dlq", which does the same for ClickHouse batches.
func runDLQ(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fail(e, "dlq", badUsage("%s", dlqUsage))
	}
	verb := args[0]
	var f dlqFlags
	fs := flag.NewFlagSet("dlq "+verb, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	f.bind(fs, e)
	f.bindMemory(fs)
	fs.BoolVar(&f.json, "json", false, "one JSON document on stdout")
	fs.BoolVar(&f.all, "all", false, "resend every dead letter")
	ids, err := parseFlags(fs, args[1:])
	if err != nil {
		return fail(e, "dlq", err)
	}
	switch verb {
	case "list":
		err = dlqList(ctx, e, &f)
	case "show":
		err = dlqShow(ctx, e, &f, ids)
	case "resend":
		err = dlqResend(ctx, e, &f, ids)
	default:
		err = badUsage("unknown dlq command %q; %s", truncate(verb, 20), dlqUsage)
	}
	if err != nil {
		return fail(e, "dlq", err)
	}
	return exitOK
}

// deadLetters opens the store read-only and lists its dead letters.
func (f *dlqFlags) deadLetters(ctx context.Context, e *env) ([]enrich.DeadLetter, error) {
	st, err := store.Open(ctx, f.url, store.Options{ReadOnly: true, Logger: logger(e)})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return enrich.ListDeadLetters(ctx, st)
}

func dlqList(ctx context.Context, e *env, f *dlqFlags) error {
	list, err := f.deadLetters(ctx, e)
	if err != nil {
		return err
	}
	if f.json {
		for i := range list {
			list[i].Message = nil // list is the summary; show has the message
		}
		return writeJSON(e.Stdout, map[string]any{"store": f.url, "dead_letters": list})
	}
	if len(list) == 0 {
		fmt.Fprintf(e.Stdout, "no dead letters in %s\n", cli.TerminalSafe(f.url))
		return nil
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAT\tREASON\tTRIES\tALERT\tERROR")
	for _, dl := range list {
		alert := ""
		if dl.Group != nil {
			alert = string(dl.Group.Status) + " " + dl.Group.Title
			if dl.Group.Service != "" {
				alert += " (" + dl.Group.Service + ")"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", dl.ID, dl.At.UTC().Format(time.RFC3339), dl.Reason, dl.Attempts,
			truncate(oneLine(alert, 60), 80), truncate(oneLine(dl.Error, 80), 100))
	}
	tw.Flush()
	return terminalText(e.Stdout, b.String())
}

// dlqShow prints the named dead letters in full, message included.
func dlqShow(ctx context.Context, e *env, f *dlqFlags, ids []string) error {
	if len(ids) == 0 {
		return badUsage("name a dead letter ID (see 'analyze dlq list')")
	}
	list, err := f.deadLetters(ctx, e)
	if err != nil {
		return err
	}
	var out []enrich.DeadLetter
	for _, id := range ids {
		found := false
		for _, dl := range list {
			if dl.ID == id {
				out, found = append(out, dl), true
				break
			}
		}
		if !found {
			return badUsage("no dead letter %q; see 'analyze dlq list'", truncate(id, 80))
		}
	}
	return writeJSON(e.Stdout, map[string]any{"dead_letters": out})
}

// dlqResend delivers the named dead letters (or --all) with the Slack
// settings of the environment, as analyze serve would.
func dlqResend(ctx context.Context, e *env, f *dlqFlags, ids []string) error {
	switch {
	case f.all && len(ids) > 0:
		return badUsage("give dead letter IDs or --all, not both")
	case !f.all && len(ids) == 0:
		return badUsage("name a dead letter ID (see 'analyze dlq list') or give --all")
	}
	cfg := enrich.ConfigFromEnv(e.Getenv)
	if f.public != "" {
		cfg.PublicURL = f.public
	}
	if !cfg.Configured() {
		return badUsage("%v", enrich.ErrNotConfigured)
	}
	cfg.NoJournal = true // this process takes no alerts
	log := logger(e)
	eng, closeFn, err := f.engine(ctx, false, log)
	if err != nil {
		return err
	}
	defer closeFn()
	svc, err := enrich.New(cfg, eng, eng.Store, nil, log)
	if err != nil {
		return badUsage("%v", err)
	}
	defer svc.Close(context.Background())
	if f.all {
		list, err := svc.DeadLetters(ctx)
		if err != nil {
			return err
		}
		for _, dl := range list {
			ids = append(ids, dl.ID)
		}
	}
	var failed []string
	for _, id := range ids {
		err := svc.Resend(ctx, id)
		switch {
		case errors.Is(err, enrich.ErrNoDeadLetter):
			return badUsage("no dead letter %q (it may have been resent already); see 'analyze dlq list'", truncate(id, 80))
		case errors.Is(err, enrich.ErrResendInProgress):
			fmt.Fprintf(e.Stderr, "analyze dlq: %s; try again in a minute.\n", cli.TerminalSafe(errSentence(err)))
			failed = append(failed, id)
		case err != nil:
			fmt.Fprintf(e.Stderr, "analyze dlq: %s\n", cli.TerminalSafe(errSentence(err))+".")
			failed = append(failed, id)
		default:
			fmt.Fprintf(e.Stdout, "resent %s\n", id)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d dead letters not delivered; they stay listed", len(failed), len(ids))
	}
	return nil
}
