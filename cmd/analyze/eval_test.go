package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/evaluate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/sim"
)

// simSet writes a set of one small simulated incident and returns its folder.
func simSet(t *testing.T, fault string) string {
	t.Helper()
	f, ok := sim.FaultNamed(fault)
	if !ok {
		t.Fatalf("the simulator knows no fault %q", fault)
	}
	inc, err := sim.Generate(sim.Config{Seed: 31, Fault: f.Kind, FaultType: f.Type,
		Baseline: 10 * time.Minute, Window: 5 * time.Minute, TracesPerSecond: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := inc.WriteCase(filepath.Join(dir, fault)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestEvalBaselines(t *testing.T) {
	set := simSet(t, "regression-after-deploy")
	code, out, errs := runCmd(t, "eval", "--baselines", set)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, m := range evaluate.BaselineMethods() {
		if !strings.Contains(out, "baseline "+m+":") || !strings.Contains(errs, m+" ") {
			t.Errorf("no line for the baseline %s in the summary or no rank in the case line:\n%s\n%s", m, out, errs)
		}
	}
	// Two sets: each gets its own lines, then the pooled ones.
	code, out, errs = runCmd(t, "eval", "--baselines", set, set)
	if code != exitOK || strings.Count(out, "== ") != 3 || strings.Count(out, "baseline earliest_error:") != 3 {
		t.Errorf("two sets: exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}

	code, out, errs = runCmd(t, "eval", "--json", "--baselines", set)
	var doc evaluate.Summary
	if err := json.Unmarshal([]byte(out), &doc); code != exitOK || err != nil {
		t.Fatalf("--json: exit %d, %v, stderr %q", code, err, errs)
	}
	for _, m := range evaluate.BaselineMethods() {
		b := doc.Baselines[m]
		if b == nil || b.Cases != 1 || len(b.PerCase) != 1 || b.PerCase[0].Truth != doc.PerCase[0].Truth {
			t.Errorf("--json: baseline %s = %+v, want one case with the truth", m, b)
		}
	}
	// Without --baselines, the document has none.
	if _, out, _ := runCmd(t, "eval", "--json", set); strings.Contains(out, `"baselines"`) {
		t.Errorf("the document has baselines without --baselines")
	}
}

func TestEvalAblate(t *testing.T) {
	set := simSet(t, "network-delay")
	code, out, errs := runCmd(t, "eval", "--ablate", set)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	all := slices.Concat(rootcause.Rules(), correlate.Rules())
	if len(lines) != 2+len(all) || !strings.Contains(lines[1], "all ") {
		t.Errorf("want a header, the all-rules row and one row per rule, of the ranking and of the per-trace analysis; got:\n%s", out)
	}
	for _, r := range all {
		if !strings.Contains(out, "\n"+r+" ") {
			t.Errorf("no row for the rule %s:\n%s", r, out)
		}
	}

	code, out, errs = runCmd(t, "eval", "--ablate", "--json", set)
	var doc evaluate.Ablation
	if err := json.Unmarshal([]byte(out), &doc); code != exitOK || err != nil {
		t.Fatalf("--json: exit %d, %v, stderr %q", code, err, errs)
	}
	if doc.Cases != 1 || len(doc.Sets) != 1 || len(doc.Rules) != len(all) || len(doc.All.SetAC1) != 1 {
		t.Errorf("--json: %+v", doc)
	}
	changed := 0
	for _, r := range doc.Rules {
		if r.DeltaAC1 != r.AC1-doc.All.AC1 || len(r.SetAC1) != 1 {
			t.Errorf("rule %s: %+v against all rules on %+v", r.Rule, r, doc.All)
		}
		if len(r.Changed) > 0 {
			changed++
		}
	}
	// The analysis finds the delayed service, by its call timing: some
	// rule switched off loses it.
	if doc.All.AC1 != 1 || changed == 0 {
		t.Errorf("all rules on: AC@1 %.2f; %d rules change a case when off; want 1 and some", doc.All.AC1, changed)
	}
}

// --rules splits an ablation: only the rules it names are switched off.
func TestEvalAblateSomeRules(t *testing.T) {
	set := simSet(t, "network-delay")
	code, out, errs := runCmd(t, "eval", "--ablate", "--json", "--rules", "call_timing, callee_named", set)
	var doc evaluate.Ablation
	if err := json.Unmarshal([]byte(out), &doc); code != exitOK || err != nil {
		t.Fatalf("exit %d, %v, stderr %q", code, err, errs)
	}
	var got []string
	for _, r := range doc.Rules {
		got = append(got, r.Rule)
	}
	if !slices.Equal(got, []string{"call_timing", "callee_named"}) {
		t.Errorf("rules switched off: %q, want call_timing and callee_named", got)
	}
	code, _, errs = runCmd(t, "eval", "--ablate", "--rules", "no_such_rule", set)
	if code != exitUsage || !strings.Contains(errs, `"no_such_rule"`) || !strings.Contains(errs, "callee_named") {
		t.Errorf("an unknown rule: exit %d, stderr %q; want a usage error naming it and the rules", code, errs)
	}
}

// --tune scores the case at each value and reports the constant's
// leave-one-set-out folds; a constant that is not one, or a value that is
// not a number, is a usage error.
func TestEvalTune(t *testing.T) {
	set := simSet(t, "network-delay")
	code, out, errs := runCmd(t, "eval", "--json", "--tune", "min_decades=2,4", "--tune", "older_share=0.25", set)
	var doc evaluate.Tuning
	if err := json.Unmarshal([]byte(out), &doc); code != exitOK || err != nil {
		t.Fatalf("exit %d, %v, stderr %q", code, err, errs)
	}
	if doc.Cases != 1 || len(doc.Constants) != 2 || doc.Constants[0].Name != "min_decades" || len(doc.Constants[0].Values) != 3 ||
		len(doc.Constants[1].Values) != 2 || len(doc.Constants[0].Folds) != 1 {
		t.Fatalf("tuning document %+v; want 1 case, min_decades at 3 values and older_share at 2, one fold each", doc)
	}
	if v := doc.Constants[0].Values[1]; v.Value != 3 || v.AC1 != 1 {
		t.Errorf("min_decades now: %+v, want 3 with the fault ranked first", v)
	}
	for _, bad := range []string{"no_such=1", "min_decades=x", "min_decades", "min_decades=-1"} {
		code, _, errs := runCmd(t, "eval", "--tune", bad, set)
		if code != exitUsage || !strings.Contains(errs, "tune") {
			t.Errorf("--tune %s: exit %d, stderr %q; want a usage error", bad, code, errs)
		}
	}
}

func TestEvalUsage(t *testing.T) {
	for _, args := range [][]string{
		{"eval"},
		{"eval", "--baselines", "--ablate", t.TempDir()},
		{"eval", "--ablate", "--tune", "min_decades=2", t.TempDir()},
		{"eval", "--rules", "call_timing", t.TempDir()},
		{"eval", t.TempDir()},
	} {
		code, out, errs := runCmd(t, args...)
		if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// --origins checks the per-trace origin of at most N of a case's failing
// traces; without it eval checks all of them, and --ablate 30.
func TestEvalOrigins(t *testing.T) {
	set := simSet(t, "dependency-timeout")
	checked := func(args ...string) (int, *float64) {
		t.Helper()
		code, out, errs := runCmd(t, append([]string{"eval", "--json"}, append(args, set)...)...)
		var doc evaluate.Summary
		if err := json.Unmarshal([]byte(out), &doc); code != exitOK || err != nil || len(doc.PerCase) != 1 {
			t.Fatalf("%q: exit %d, %v, stderr %q", args, code, err, errs)
		}
		return doc.PerCase[0].OriginsChecked, doc.OriginAccuracy
	}
	all, acc := checked()
	if all <= 3 || acc == nil {
		t.Fatalf("without --origins: %d origins checked (accuracy %v), want more than 3 and an accuracy", all, acc)
	}
	if n, acc := checked("--origins", "3"); n != 3 || acc == nil {
		t.Errorf("--origins 3: %d origins checked (accuracy %v), want 3", n, acc)
	}
	if n, _ := checked("--origins", "100000"); n != all {
		t.Errorf("--origins above the count: %d checked, want all %d", n, all)
	}
	if code, _, errs := runCmd(t, "eval", "--origins", "-1", set); code != exitUsage || !strings.Contains(errs, "--origins") {
		t.Errorf("--origins -1: exit %d, stderr %q; want a usage error naming the flag", code, errs)
	}
}

// eval takes --memory-limit as the other analysing commands do: an
// ablation analyses each case many times, two at once.
func TestEvalMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runCmd(t, "eval", "--memory-limit", "lots", dir)
	if code != exitUsage || !strings.Contains(errs, "memory-limit") {
		t.Errorf("--memory-limit lots: exit %d, stderr %q; want a usage error naming the flag", code, errs)
	}
	if _, _, errs := runCmd(t, "eval", "--help"); !strings.Contains(errs, "-memory-limit") {
		t.Errorf("eval --help does not list --memory-limit:\n%s", errs)
	}
}
