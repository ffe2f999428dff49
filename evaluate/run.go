package evaluate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// CaseResult is the score of one case.
type CaseResult struct {
	Case      string `json:"case"`
	Truth     string `json:"truth"`
	Kind      string `json:"kind,omitempty"`
	FaultType string `json:"fault_type,omitempty"`
	// Rank of the true service among the candidates (1 = first); 0 = absent.
	Rank int      `json:"rank"`
	Top  []string `json:"top"`
	// TopKind is the first candidate's kind; KindRight is set when the
	// truth names a kind and the first candidate is the truth with it.
	TopKind   string `json:"top_kind,omitempty"`
	KindRight bool   `json:"kind_right,omitempty"`
	// Rule is the named signal that weighed most in the true service's
	// score (its rank's deciding rule), or, when it is absent, in the
	// first candidate's: which rule won or lost the case.
	Rule string `json:"rule,omitempty"`
	// Origins: failing traces of the truth checked, and how many the
	// per-trace analysis pointed at the true origin service.
	OriginsChecked int     `json:"origins_checked,omitempty"`
	OriginsRight   int     `json:"origins_right,omitempty"`
	Records        int64   `json:"records"`
	Seconds        float64 `json:"analysis_seconds"`
	// Baselines are, when Options.Baselines is set, each baseline
	// method's result on the case, keyed by method (BaselineMethods);
	// Summarize scores them beside the analysis.
	Baselines map[string]*CaseResult `json:"-"`
}

// Options tune a run.
type Options struct {
	// WorkDir holds the temporary stores; "" means the system's temp dir.
	WorkDir string
	// Top is how many candidates to keep; 0 means 5.
	Top       int
	Rootcause rootcause.Options
	Logger    *slog.Logger
	// Now is the clock of the analysis timing; nil means time.Now.
	Now func() time.Time
	// Baselines also ranks the case with each baseline method
	// (BaselineMethods) on the same store.
	Baselines bool
	// Origins is how many of a case's failing traces to check the origin
	// of, evenly spread over them in trace id order; 0 means all.
	Origins int
}

// RunCase loads one case into a fresh embedded store and scores the
// analysis, and with Options.Baselines the baseline methods too.
func RunCase(ctx context.Context, c *Case, opt Options) (res *CaseResult, err error) {
	cs, err := OpenCase(ctx, c, opt)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, cs.Close()) }()
	if res, err = cs.Score(ctx, opt.Rootcause); err != nil {
		return nil, err
	}
	if err := cs.CheckOrigins(ctx, res, opt.Rootcause.Off); err != nil {
		return nil, err
	}
	if opt.Baselines {
		if res.Baselines, err = cs.Baselines(ctx); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// CaseStore is a case loaded into its own embedded store, to be scored as
// many times as wanted (an ablation's variants): loading is the slow part.
// Close removes the store.
type CaseStore struct {
	c   *Case
	st  store.Store
	dir string
	opt Options
}

// OpenCase loads c's files into a fresh embedded store under opt.WorkDir.
func OpenCase(ctx context.Context, c *Case, opt Options) (*CaseStore, error) {
	dir, err := os.MkdirTemp(opt.WorkDir, "faultline-eval-")
	if err != nil {
		return nil, fmt.Errorf("cannot make a work folder: %w", err)
	}
	st, err := store.Open(ctx, filepath.Join(dir, "case.db"), store.Options{Logger: opt.Logger})
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	cs := &CaseStore{c: c, st: st, dir: dir, opt: opt}
	if err := LoadFiles(ctx, st, c.Files, opt.Logger); err != nil {
		return nil, errors.Join(err, cs.Close())
	}
	return cs, nil
}

// Close closes and removes the case's store.
func (cs *CaseStore) Close() error { return errors.Join(cs.st.Close(), os.RemoveAll(cs.dir)) }

// Score runs the incident analysis with ro on the case's window and scores
// its ranking and the first candidate's kind (not the per-trace origins).
func (cs *CaseStore) Score(ctx context.Context, ro rootcause.Options) (*CaseResult, error) {
	return score(ctx, cs.st, cs.c, cs.opt, ro)
}

// LoadFiles loads files, in order, into st through the ingest loader (the
// format detected per file, as `ingest load` does).
func LoadFiles(ctx context.Context, st store.Store, files []string, log *slog.Logger) error {
	l := ingest.NewLoader(ingest.NewDecoder(ingest.DecoderConfig{Limits: ingest.DefaultLimits()}), st, log)
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return fmt.Errorf("cannot open %q: %w", f, err)
		}
		_, _, err = l.Load(ctx, f, fh)
		fh.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func score(ctx context.Context, st store.Store, c *Case, opt Options, ro rootcause.Options) (*CaseResult, error) {
	top := topOf(opt)
	t := c.Truth
	res := &CaseResult{Case: c.Name, Truth: t.RootCause.Service, Kind: t.RootCause.Kind, FaultType: t.RootCause.FaultType}
	if s, err := st.Stats(ctx); err == nil {
		res.Records = s.Records
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	rep, err := rootcause.Analyze(ctx, st, rootcause.Query{From: t.Window.From, To: t.Window.To, Top: top}, ro)
	res.Seconds = now().Sub(start).Seconds()
	if err != nil {
		return nil, fmt.Errorf("cannot analyse case %q: %w", c.Name, err)
	}
	for i, cand := range rep.Candidates {
		res.Top = append(res.Top, cand.Service)
		if res.Rank == 0 && cand.Service == t.RootCause.Service {
			res.Rank = i + 1
			res.Rule = strongestSignal(cand)
		}
	}
	if len(rep.Candidates) > 0 {
		first := rep.Candidates[0]
		res.TopKind = string(first.Kind)
		res.KindRight = t.RootCause.Kind != "" && res.Rank == 1 && res.TopKind == t.RootCause.Kind
		if res.Rank == 0 {
			res.Rule = strongestSignal(first)
		}
	}
	return res, nil
}

// topOf is how many candidates a run keeps.
func topOf(opt Options) int {
	if opt.Top <= 0 {
		return 5
	}
	return opt.Top
}

// CheckOrigins runs the per-trace analysis, with the rules of off switched
// off, on the truth's failing traces and counts in res those whose suspect
// (or, lacking one, origin) is the truth's origin. A store failure is an
// error, not a miss.
func (cs *CaseStore) CheckOrigins(ctx context.Context, res *CaseResult, off map[string]bool) error {
	st, c := cs.st, cs.c
	res.OriginsChecked, res.OriginsRight = 0, 0
	for _, id := range spread(slices.Sorted(maps.Keys(c.Truth.FailedTraces)), cs.opt.Origins) {
		ft := c.Truth.FailedTraces[id]
		tid, err := schema.ParseTraceID(id)
		if err != nil {
			continue
		}
		r, err := correlate.Analyze(ctx, st, tid, correlate.Options{SkipTimeline: true, Off: off})
		res.OriginsChecked++
		if errors.Is(err, schema.ErrNotFound) {
			continue // a labelled trace the files do not hold counts as a miss
		}
		if err != nil {
			return fmt.Errorf("cannot check the origin of trace %s in case %q: %w", tid, c.Name, err)
		}
		got := ""
		if r.Suspect != nil {
			got = r.Suspect.Service
		} else if r.Origin != nil {
			got = r.Origin.Service
		}
		if got == ft.OriginService {
			res.OriginsRight++
		}
	}
	return nil
}

// spread is n of ids evenly spaced, the first included; all of them when n
// is 0 or no less than their count.
func spread(ids []string, n int) []string {
	if n <= 0 || n >= len(ids) {
		return ids
	}
	out := make([]string, n)
	for i := range out {
		out[i] = ids[i*len(ids)/n]
	}
	return out
}

// strongestSignal is the name of the candidate's signal of largest value.
func strongestSignal(c rootcause.Candidate) string {
	best, v := "", 0.0
	for _, g := range c.Signals {
		if g.Value > v {
			best, v = g.Name, g.Value
		}
	}
	return best
}
