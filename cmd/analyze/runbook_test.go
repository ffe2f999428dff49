package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunbookKind(t *testing.T) {
	code, out, errs := runCmd(t, "runbook", "--store", filepath.Join(t.TempDir(), "none.db"), "db-pool-exhaustion")
	if code != exitOK || !strings.Contains(out, "## Mitigation — now") || !strings.Contains(out, "pg_stat_activity") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
}

func TestRunbookUsage(t *testing.T) {
	for _, args := range [][]string{
		{"runbook"},
		{"runbook", "a", "b"},
		{"runbook", "not/an id"},
		{"runbook", "--nope", "timeout"},
		{"runbook", "--runbooks", filepath.Join(t.TempDir(), "missing"), "timeout"},
	} {
		code, out, errs := runCmd(t, args...)
		if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

func TestRunbookSaved(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fl.db")

	code, _, errs := runCmd(t, "runbook", "--store", path, "payment-timeout-0123456789ab")
	if code != exitFail || !strings.Contains(errs, "analyze incident") {
		t.Errorf("no store: exit %d, stderr %q", code, errs)
	}

	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := runbookgen.New(runbookgen.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := &rootcause.Report{Traces: 100, Candidates: []rootcause.Candidate{
		{ID: "cand-7", Service: "payment", Kind: schema.KindTimeout, Signature: "00ff", Traces: 30}}}
	rbs := gen.Attach(rep)
	if err := runbookgen.SaveAll(ctx, st, rbs); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	for _, id := range []string{rbs[0].ID, "cand-7"} {
		code, out, errs := runCmd(t, "runbook", "--store", path, id)
		if code != exitOK || out != rbs[0].Markdown {
			t.Errorf("%s: exit %d, stderr %q", id, code, errs)
		}
	}
	code, out, _ := runCmd(t, "runbook", "--json", "--store", path, "cand-7")
	var doc runbookgen.Runbook
	if code != exitOK || json.Unmarshal([]byte(out), &doc) != nil || doc.ID != rbs[0].ID {
		t.Errorf("--json: exit %d, %q", code, out)
	}
	for _, id := range []string{"nobody-timeout-0123456789ab", "nosuch"} {
		code, _, errs = runCmd(t, "runbook", "--store", path, id)
		if code != exitUsage || !strings.Contains(errs, "run 'analyze incident' first") {
			t.Errorf("unknown id %s: exit %d, stderr %q; want %d, bad input", id, code, errs, exitUsage)
		}
	}
}
