package rootcause_test

import (
	"testing"
	"time"

	"github.com/faultline/faultline/patterns"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
)

// BenchmarkAnalyzeRecords1M ranks a simulated incident of about a million
// records (window and baseline together), in memory: the analysis alone,
// without the store.
func BenchmarkAnalyzeRecords1M(b *testing.B) {
	inc, err := sim.Generate(sim.Config{Seed: 1, Fault: schema.KindDependencyTimeout,
		Baseline: 15 * time.Minute, Window: 10 * time.Minute, TracesPerSecond: 44})
	if err != nil {
		b.Fatal(err)
	}
	from, to := inc.Truth.Window.From, inc.Truth.Window.To
	var win, base []schema.Record
	for _, r := range inc.Records {
		if r.Type == schema.TypeLog && r.Template == "" {
			r.Template = patterns.Mask(r.Body) // as ingest does
		}
		if r.Time.Before(from) {
			base = append(base, r)
		} else if r.Time.Before(to) {
			win = append(win, r)
		}
	}
	b.ResetTimer()
	for range b.N {
		rep := rootcause.AnalyzeRecords(win, base, rootcause.Query{From: from, To: to},
			rootcause.Window{From: inc.Truth.Baseline.From, To: from}, rootcause.Options{})
		if len(rep.Candidates) == 0 {
			b.Fatal("no candidates")
		}
	}
	b.ReportMetric(float64(len(win)), "window-records")
	b.ReportMetric(float64(len(base)), "baseline-records")
}
