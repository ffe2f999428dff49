package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/evaluate"
	"github.com/faultline/faultline/rootcause"
)

type evalFlags struct {
	json          bool
	top           int
	baselines     bool
	ablate        bool
	rules         string
	sample        int
	sampleFailing int
	origins       int
	tune          tuneFlag
	mem           memoryLimit
}

// tuneFlag is --tune NAME=V1,V2,..., repeatable: the values of the
// ranking's chosen constants to try.
type tuneFlag []evaluate.Setting

func (t *tuneFlag) String() string { return "" }

func (t *tuneFlag) Set(v string) error {
	name, values, ok := strings.Cut(v, "=")
	if !ok || values == "" {
		return fmt.Errorf("want NAME=V1,V2,... (the constants: %s)", tunableNames())
	}
	name = strings.TrimSpace(name)
	for _, x := range strings.Split(values, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", name, x)
		}
		restore, err := rootcause.SetTunable(name, f) // checks the name and the value
		if err != nil {
			return err
		}
		restore()
		*t = append(*t, evaluate.Setting{Name: name, Value: f})
	}
	return nil
}

// tunableNames lists the chosen constants with their values.
func tunableNames() string {
	var parts []string
	for _, t := range rootcause.Tunables() {
		parts = append(parts, fmt.Sprintf("%s (%g)", t.Name, t.Value))
	}
	return strings.Join(parts, ", ")
}

// evalSet is the cases found under one DIR argument.
type evalSet struct {
	dir   string
	cases []string
}

func runEval(ctx context.Context, e *env, args []string) int {
	var f evalFlags
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	fs.BoolVar(&f.json, "json", false, "print the JSON document")
	fs.IntVar(&f.top, "top", 5, "candidates per case")
	fs.BoolVar(&f.baselines, "baselines", false,
		"also rank each case with the plain baseline methods ("+strings.Join(evaluate.BaselineMethods(), ", ")+") and score them beside the analysis")
	fs.BoolVar(&f.ablate, "ablate", false,
		"score the analysis with every rule on, then with each rule off in turn, and print what each rule is worth")
	fs.StringVar(&f.rules, "rules", "",
		"with --ablate, switch off only these rules (comma-separated), to split a long ablation")
	fs.IntVar(&f.sample, "sample-above", 0,
		"sample a period's healthy traces once they hold more than N records (0: the default, 1000000; -1: never); to see how sampling holds on small cases")
	fs.IntVar(&f.sampleFailing, "sample-failing-above", 0,
		"sample a window's failing traces once there are more than N (0: the default, 20000; -1: never); to see how sampling holds on small cases")
	fs.IntVar(&f.origins, "origins", 0,
		"check the per-trace origin of at most N of a case's failing traces, evenly spread (0: all of them; with --ablate, 30: it checks them once per variant)")
	fs.Var(&f.tune, "tune", "try these values of one of the ranking's chosen constants, NAME=V1,V2,... (repeatable), and pick each by leave-one-set-out: "+tunableNames())
	fs.Var(&f.mem, "memory-limit", memoryLimitHelp)
	dirs, err := parseFlags(fs, args)
	if err == nil && len(dirs) == 0 {
		err = badUsage("give at least one case folder (a folder with truth.json, or a folder of them)")
	}
	if err == nil && (f.baselines && f.ablate || f.baselines && len(f.tune) > 0 || f.ablate && len(f.tune) > 0) {
		err = badUsage("give one of --baselines, --ablate and --tune")
	}
	if err == nil && f.origins < 0 {
		err = badUsage("--origins is a count of failing traces per case (0: all of them), not %d", f.origins)
	}
	if err == nil && f.rules != "" && !f.ablate {
		err = badUsage("--rules goes with --ablate")
	}
	if err != nil {
		return fail(e, "eval", err)
	}
	sets := make([]evalSet, 0, len(dirs))
	for _, d := range dirs {
		cases, err := evaluate.FindCases([]string{d})
		if err != nil {
			return fail(e, "eval", badUsage("%v", err))
		}
		sets = append(sets, evalSet{dir: d, cases: cases})
	}
	// An ablation analyses a case many times over, two at once: without
	// the limit the collector (then at GOGC 400) let it grow past the machine.
	_, restore := f.mem.apply(e.Getenv)
	defer restore()
	opt := evaluate.Options{Top: f.top, Baselines: f.baselines, Origins: f.origins}
	if f.ablate && f.origins == 0 {
		opt.Origins = ablationOrigins
	}
	opt.Rootcause.SampleAbove = f.sample
	opt.Rootcause.SampleFailingAbove = f.sampleFailing
	switch {
	case f.ablate:
		err = runAblation(ctx, e, f, sets, opt)
	case len(f.tune) > 0:
		err = runTuning(ctx, e, f, sets, opt)
	default:
		err = runScoring(ctx, e, f, sets, opt)
	}
	if err != nil {
		return fail(e, "eval", err)
	}
	return exitOK
}

// runScoring scores every case once (with the baselines, when asked) and
// prints the summary.
func runScoring(ctx context.Context, e *env, f evalFlags, sets []evalSet, opt evaluate.Options) error {
	var all []evaluate.CaseResult
	perSet := make([][]evaluate.CaseResult, len(sets))
	for i, set := range sets {
		for _, dir := range set.cases {
			c, err := evaluate.LoadCase(dir)
			if err != nil {
				return badUsage("%v", err)
			}
			r, err := evaluate.RunCase(ctx, c, opt)
			if err != nil {
				return err
			}
			if !f.json {
				fmt.Fprintf(e.Stderr, "%-40s truth %-28s rank %d  kind %-20s rule %-14s top %s%s\n",
					c.Name, r.Truth, r.Rank, cmp.Or(r.TopKind, "-"), cmp.Or(r.Rule, "-"), strings.Join(r.Top, ", "), baselineRanks(r))
			}
			perSet[i] = append(perSet[i], *r)
			all = append(all, *r)
		}
	}
	s := evaluate.Summarize(all)
	if f.json {
		return writeJSON(e.Stdout, s)
	}
	var b strings.Builder
	if f.baselines && len(sets) > 1 {
		for i, set := range sets {
			ss := evaluate.Summarize(perSet[i])
			fmt.Fprintf(&b, "== %s (%d cases)\n", set.dir, ss.Cases)
			writeScoreLine(&b, "faultline", ss)
			writeBaselines(&b, ss)
		}
		fmt.Fprintf(&b, "== all sets\n")
	}
	writeSummary(&b, s)
	writeBaselines(&b, s)
	_, err := io.WriteString(e.Stdout, b.String())
	return err
}

// baselineRanks is a case line's tail: each baseline method's rank of the
// truth ("" without baselines).
func baselineRanks(r *evaluate.CaseResult) string {
	if len(r.Baselines) == 0 {
		return ""
	}
	var parts []string
	for _, m := range evaluate.BaselineMethods() {
		if b := r.Baselines[m]; b != nil {
			parts = append(parts, fmt.Sprintf("%s %d", m, b.Rank))
		}
	}
	return "  | baselines' ranks: " + strings.Join(parts, ", ")
}

func writeSummary(b *strings.Builder, s *evaluate.Summary) {
	origin := "n/a (no case labels its failing traces)"
	if s.OriginAccuracy != nil {
		origin = fmt.Sprintf("%.2f", *s.OriginAccuracy)
	}
	kind := "n/a (no case names its kind)"
	if s.KindAccuracy != nil {
		kind = fmt.Sprintf("%.2f", *s.KindAccuracy)
	}
	fmt.Fprintf(b, "%d cases: AC@1 %.2f  AC@3 %.2f  AC@5 %.2f  Avg@5 %.2f  per-trace origin accuracy %s  top kind right %s\n",
		s.Cases, s.AC["1"], s.AC["3"], s.AC["5"], s.Avg5, origin, kind)
	groups := make([]string, 0, len(s.PerFault))
	for g := range s.PerFault {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		f := s.PerFault[g]
		fmt.Fprintf(b, "  %-22s %3d cases  AC@1 %.2f  AC@3 %.2f  AC@5 %.2f\n", g, f.Cases, f.AC1, f.AC3, f.AC5)
	}
}

// writeBaselines writes one line per baseline method the summary scored.
func writeBaselines(b *strings.Builder, s *evaluate.Summary) {
	for _, m := range evaluate.BaselineMethods() {
		if bs := s.Baselines[m]; bs != nil {
			writeScoreLine(b, "baseline "+m, bs)
		}
	}
}

func writeScoreLine(b *strings.Builder, name string, s *evaluate.Summary) {
	fmt.Fprintf(b, "%-30s AC@1 %.2f  AC@3 %.2f  AC@5 %.2f  Avg@5 %.2f\n", name+":", s.AC["1"], s.AC["3"], s.AC["5"], s.Avg5)
}

// runAblation scores every case with every rule on and with each rule off
// in turn, one case (and one store) at a time, and prints the table.
func runAblation(ctx context.Context, e *env, f evalFlags, sets []evalSet, opt evaluate.Options) error {
	rules, err := ablationRules(f.rules)
	if err != nil {
		return err
	}
	var cases []evaluate.CaseAblation
	names := make([]string, len(sets))
	for i, set := range sets {
		names[i] = set.dir
		for _, dir := range set.cases {
			a, err := onCase(ctx, dir, opt, func(cs *evaluate.CaseStore) (*evaluate.CaseAblation, error) {
				return cs.Ablate(ctx, set.dir, rules)
			})
			if err != nil {
				return err
			}
			if !f.json {
				fmt.Fprintf(e.Stderr, "%-40s truth %-28s rank %d%s\n", a.All.Case, a.All.Truth, a.All.Rank, offRanks(a, rules))
			}
			cases = append(cases, *a)
		}
	}
	ab := evaluate.SummarizeAblation(names, rules, cases)
	if f.json {
		return writeJSON(e.Stdout, ab)
	}
	return writeAblation(e.Stdout, ab)
}

// runTuning scores every case with the constants as they are and with
// each --tune value, one case and one analysis at a time, and prints each
// constant's scores and its leave-one-set-out folds.
func runTuning(ctx context.Context, e *env, f evalFlags, sets []evalSet, opt evaluate.Options) error {
	var cases []evaluate.CaseTuning
	names := make([]string, len(sets))
	for i, set := range sets {
		names[i] = set.dir
		for _, dir := range set.cases {
			ct, err := onCase(ctx, dir, opt, func(cs *evaluate.CaseStore) (*evaluate.CaseTuning, error) {
				return cs.Tune(ctx, set.dir, f.tune)
			})
			if err != nil {
				return err
			}
			if !f.json {
				var ranks []string
				for j, r := range ct.With {
					if r.Rank != ct.Now.Rank {
						ranks = append(ranks, fmt.Sprintf("%s=%g %d", f.tune[j].Name, f.tune[j].Value, r.Rank))
					}
				}
				line := fmt.Sprintf("%-40s truth %-28s rank %d", ct.Now.Case, ct.Now.Truth, ct.Now.Rank)
				if len(ranks) > 0 {
					line += "  | rank with: " + strings.Join(ranks, ", ")
				}
				fmt.Fprintln(e.Stderr, line)
			}
			cases = append(cases, *ct)
		}
	}
	t := evaluate.SummarizeTuning(names, f.tune, cases)
	if f.json {
		return writeJSON(e.Stdout, t)
	}
	return writeTuning(e.Stdout, t)
}

func writeTuning(w io.Writer, t *evaluate.Tuning) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := fmt.Sprintf("constant (%d cases)\tvalue\tAC@1\tAC@3\tkind", t.Cases)
	for _, s := range t.Sets {
		head += "\tAC@1 " + filepath.Base(s)
	}
	fmt.Fprintln(tw, head)
	for _, c := range t.Constants {
		for _, v := range c.Values {
			value := fmt.Sprintf("%.4g", v.Value)
			if v.Value == c.Current {
				value += " (now)"
			}
			line := fmt.Sprintf("%s\t%s\t%.3f\t%.3f\t%s", c.Name, value, v.AC1, v.AC3, share(v.KindAccuracy))
			for _, x := range v.SetAC1 {
				line += fmt.Sprintf("\t%.3f", x)
			}
			fmt.Fprintln(tw, line)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nleave-one-set-out: each set's AC@1 at the value picked on all the other sets, and at the value now")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "constant\theld out\tpicked\tAC@1\tAC@1 now")
	for _, c := range t.Constants {
		for _, f := range c.Folds {
			fmt.Fprintf(tw, "%s\t%s\t%.4g\t%.3f\t%.3f\n", c.Name, filepath.Base(f.Set), f.Picked, f.AC1, f.CurrentAC1)
		}
		fmt.Fprintf(tw, "%s\tall, pooled\t\t%.3f\t%.3f\n", c.Name, c.HeldOutAC1, c.CurrentAC1)
	}
	return tw.Flush()
}

// ablationOrigins is how many failing traces of a case an ablation checks
// the origin of by default: each variant without a per-trace rule checks
// them again, and all of a large case's traces would cost minutes.
const ablationOrigins = 30

// ablationRules are the rules an ablation switches off in turn: every rule
// of the incident ranking and of the per-trace analysis, or those of list.
func ablationRules(list string) ([]string, error) {
	all := slices.Concat(rootcause.Rules(), correlate.Rules())
	if list == "" {
		return all, nil
	}
	var out []string
	for _, r := range strings.Split(list, ",") {
		r = strings.TrimSpace(r)
		if !slices.Contains(all, r) {
			return nil, badUsage("--rules: no rule is named %q (the rules: %s)", r, strings.Join(all, ", "))
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// onCase loads the case of dir into its own store, runs f on it and drops
// the store.
func onCase[T any](ctx context.Context, dir string, opt evaluate.Options, f func(*evaluate.CaseStore) (T, error)) (T, error) {
	var zero T
	c, err := evaluate.LoadCase(dir)
	if err != nil {
		return zero, badUsage("%v", err)
	}
	cs, err := evaluate.OpenCase(ctx, c, opt)
	if err != nil {
		return zero, err
	}
	out, err := f(cs)
	if cerr := cs.Close(); err == nil && cerr != nil {
		return zero, cerr
	}
	return out, err
}

// offRanks is an ablation case line's tail: the rules whose absence
// changed the rank of the truth, with the rank then, and those whose
// absence changed how many per-trace origins were right, with the count.
func offRanks(a *evaluate.CaseAblation, rules []string) string {
	var ranks, origins []string
	for _, r := range rules {
		off := a.Off[r]
		if off.Rank != a.All.Rank {
			ranks = append(ranks, fmt.Sprintf("%s %d", r, off.Rank))
		}
		if off.OriginsRight != a.All.OriginsRight {
			origins = append(origins, fmt.Sprintf("%s %d", r, off.OriginsRight))
		}
	}
	s := ""
	if len(ranks) > 0 {
		s += "  | rank with the rule off: " + strings.Join(ranks, ", ")
	}
	if len(origins) > 0 {
		s += fmt.Sprintf("  | origins right (%d of %d) with the rule off: %s", a.All.OriginsRight, a.All.OriginsChecked, strings.Join(origins, ", "))
	}
	return s
}

func writeAblation(w io.Writer, a *evaluate.Ablation) error {
	first := fmt.Sprintf("(none: all %d rules on, %d cases)", len(a.Rules), a.Cases)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "rule off\tAC@1\tchange\tAC@3\tchange\tkind\tchange\torigin\tchange"
	for _, s := range a.Sets {
		head += "\tAC@1 " + filepath.Base(s)
	}
	fmt.Fprintln(tw, head)
	row := func(name string, v evaluate.VariantScore, d1, d3, dk, do *float64) {
		line := fmt.Sprintf("%s\t%.3f\t%s\t%.3f\t%s\t%s\t%s\t%s\t%s", name, v.AC1, delta(d1), v.AC3, delta(d3),
			share(v.KindAccuracy), delta(dk), share(v.OriginAccuracy), delta(do))
		for _, x := range v.SetAC1 {
			line += fmt.Sprintf("\t%.3f", x)
		}
		fmt.Fprintln(tw, line)
	}
	row(first, a.All, nil, nil, nil, nil)
	for _, r := range a.Rules {
		row(r.Rule, r.VariantScore, &r.DeltaAC1, &r.DeltaAC3, r.DeltaKind, r.DeltaOrigin)
	}
	return tw.Flush()
}

// delta is a change as "-0.036", "+0.010" or "0"; "-" when unknown.
func delta(d *float64) string {
	switch {
	case d == nil:
		return "-"
	case *d > -0.0005 && *d < 0.0005:
		return "0"
	}
	return fmt.Sprintf("%+.3f", *d)
}

// share is a share as "0.955", "-" when unknown.
func share(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *v)
}
