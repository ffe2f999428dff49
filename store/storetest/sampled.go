package storetest

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
)

// SampledAnalysis analyses inc's window twice: from whole, unsampled, and
// from st with a sampling budget far below the window, which st is to draw
// itself (ClickHouse's server, the embedded store as it reads). Sampled,
// the injected fault ranks first as it does unsampled, every service's
// errors are counted as they are, so are the window's failing traces
// (those the sample left out too, whose ids a store may not send: their
// errors grouped), its records are estimated within the sample's noise,
// and a warning says the store sampled; it returns the sampled report.
func SampledAnalysis(t *testing.T, st, whole rootcause.Store, inc *sim.Incident) *rootcause.Report {
	t.Helper()
	q := rootcause.Query{From: inc.Truth.Window.From, To: inc.Truth.Window.To, Top: 5}
	all, err := rootcause.Analyze(t.Context(), whole, q, rootcause.Options{SampleAbove: -1, SampleFailingAbove: -1})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := rootcause.Analyze(t.Context(), st, q, rootcause.Options{SampleAbove: 2000, SampleFailingAbove: 50})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sv := range all.Services {
		n += sv.Records
	}
	s := rep.Sampled
	if s == nil || s.K < 2 || s.Sent == 0 || s.Sent >= n || s.FailingK < 2 || s.Held >= s.Traces {
		t.Fatalf("a window of %d records over the budget is not sampled by the store: %+v", n, s)
	}
	failing := map[schema.TraceID]bool{}
	for r, err := range whole.WindowRecords(t.Context(), schema.WindowQuery{From: q.From, To: q.To}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.TraceID != "" && r.IsError() {
			failing[r.TraceID] = true
		}
	}
	if s.Failing != len(failing) || s.FailingHeld >= s.Failing {
		t.Errorf("the sample counts %d failing traces, %d of them held; the window has %d", s.Failing, s.FailingHeld, len(failing))
	}
	truth := inc.Truth.RootCause.Service
	if first(rep) != truth || first(all) != truth {
		t.Errorf("sampled by the store, %s ranks first; unsampled, %s; the injected fault is at %s", first(rep), first(all), truth)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.HasPrefix(w, "sampled by the store:") }) {
		t.Errorf("no warning says the store sampled: %q", rep.Warnings)
	}
	got := map[string]rootcause.ServiceSummary{}
	for _, sv := range rep.Services {
		got[sv.Service] = sv
	}
	for _, sv := range all.Services {
		g := got[sv.Service]
		if g.Errors != sv.Errors {
			t.Errorf("%s: %d errors counted from the store's sample, %d in the window", sv.Service, g.Errors, sv.Errors)
		}
		// Records of traces drawn 1 in K, each trace a few records: well
		// within a quarter of the count for a service of hundreds.
		if sv.Records >= 400 && math.Abs(float64(g.Records-sv.Records)) > 0.25*float64(sv.Records) {
			t.Errorf("%s: %d records estimated from the store's sample, %d in the window", sv.Service, g.Records, sv.Records)
		}
	}
	return rep
}

func first(rep *rootcause.Report) string {
	if len(rep.Candidates) == 0 {
		return "nothing"
	}
	return rep.Candidates[0].Service
}

// DemoIncident is the demo's simulated incident, as the store tests load
// it.
func DemoIncident(t *testing.T) *sim.Incident {
	t.Helper()
	inc, err := sim.Generate(sim.DemoConfig(time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	return inc
}

// SampleOf is the records of all a store's sample of 1 in k traces (and of
// the failing ones, 1 in failK) is to yield, by the process's own hash
// (schema.TraceHash): every alert record and record without a trace, the
// others of the traces in the sample.
func SampleOf(all []schema.Record, k, failK uint64, failing map[schema.TraceID]bool) []schema.Record {
	var out []schema.Record
	for _, r := range all {
		h := schema.TraceHash(r.TraceID)
		if r.TraceID == "" || r.IsAlert() || h%k == 0 || failing[r.TraceID] && h%failK == 0 {
			out = append(out, r)
		}
	}
	return out
}

// SameRecord reports whether two reads gave the same record, by trace,
// span, time and message.
func SameRecord(a, b schema.Record) bool {
	return a.TraceID == b.TraceID && a.SpanID == b.SpanID && a.Time.Equal(b.Time) && a.Body == b.Body
}

// SampleOverLimit analyses inc's window from st, sampled as
// SampledAnalysis's, with a record limit of half what that sample sent
// (rep, SampledAnalysis's report): the store's sample ends past the limit
// (schema.ErrSampleOverLimit), and the window is read again, sampled by
// the process, its newest records kept and the report saying so.
func SampleOverLimit(t *testing.T, st rootcause.Store, inc *sim.Incident, rep *rootcause.Report) {
	t.Helper()
	q := rootcause.Query{From: inc.Truth.Window.From, To: inc.Truth.Window.To, Top: 5}
	cut, err := rootcause.Analyze(t.Context(), st, q, rootcause.Options{SampleAbove: 2000, SampleFailingAbove: 50, Limit: rep.Sampled.Sent / 2})
	if err != nil {
		t.Fatalf("a sample over the record limit: %v", err)
	}
	if cut.Sampled != nil && cut.Sampled.Sent != 0 {
		t.Errorf("a sample over the record limit is still the store's: %+v", cut.Sampled)
	}
	if !slices.ContainsFunc(cut.Warnings, func(w string) bool { return strings.Contains(w, "only the newest") }) {
		t.Errorf("a window read again past its limit does not say it kept the newest records: %q", cut.Warnings)
	}
}
