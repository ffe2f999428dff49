package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/faultline/faultline/evaluate"
)

type evalFlags struct {
	json bool
	top  int
}

func runEval(ctx context.Context, e *env, args []string) int {
	var f evalFlags
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	fs.BoolVar(&f.json, "json", false, "print the JSON document")
	fs.IntVar(&f.top, "top", 5, "candidates per case")
	dirs, err := parseFlags(fs, args)
	if err == nil && len(dirs) == 0 {
		err = badUsage("give at least one case folder (a folder with truth.json, or a folder of them)")
	}
	if err != nil {
		return fail(e, "eval", err)
	}
	cases, err := evaluate.FindCases(dirs)
	if err != nil {
		return fail(e, "eval", badUsage("%v", err))
	}
	var results []evaluate.CaseResult
	for _, dir := range cases {
		c, err := evaluate.LoadCase(dir)
		if err != nil {
			return fail(e, "eval", badUsage("%v", err))
		}
		r, err := evaluate.RunCase(ctx, c, evaluate.Options{Top: f.top})
		if err != nil {
			return fail(e, "eval", err)
		}
		if !f.json {
			fmt.Fprintf(e.Stderr, "%-40s truth %-28s rank %d  kind %-20s rule %-14s top %s\n",
				c.Name, r.Truth, r.Rank, cmp.Or(r.TopKind, "-"), cmp.Or(r.Rule, "-"), strings.Join(r.Top, ", "))
		}
		results = append(results, *r)
	}
	s := evaluate.Summarize(results)
	if f.json {
		err = writeJSON(e.Stdout, s)
	} else {
		err = writeSummary(e.Stdout, s)
	}
	if err != nil {
		return fail(e, "eval", err)
	}
	return exitOK
}

func writeSummary(w io.Writer, s *evaluate.Summary) error {
	var b strings.Builder
	origin := "n/a (no case labels its failing traces)"
	if s.OriginAccuracy != nil {
		origin = fmt.Sprintf("%.2f", *s.OriginAccuracy)
	}
	kind := "n/a (no case names its kind)"
	if s.KindAccuracy != nil {
		kind = fmt.Sprintf("%.2f", *s.KindAccuracy)
	}
	fmt.Fprintf(&b, "%d cases: AC@1 %.2f  AC@3 %.2f  AC@5 %.2f  Avg@5 %.2f  per-trace origin accuracy %s  top kind right %s\n",
		s.Cases, s.AC["1"], s.AC["3"], s.AC["5"], s.Avg5, origin, kind)
	groups := make([]string, 0, len(s.PerFault))
	for g := range s.PerFault {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		f := s.PerFault[g]
		fmt.Fprintf(&b, "  %-22s %3d cases  AC@1 %.2f  AC@3 %.2f  AC@5 %.2f\n", g, f.Cases, f.AC1, f.AC3, f.AC5)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
