package clickhouse_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/clickhouse"
	"github.com/faultline/faultline/store/sqlite"
)

// TestSampledAnalysisMatchesEmbedded: with healthy and failing traces
// sampled (budgets far below the window's), the analysis on ClickHouse,
// whose failing traces come from its errors table, holds the same traces
// and answers as on the embedded store, and says it sampled.
func TestSampledAnalysisMatchesEmbedded(t *testing.T) {
	inc, err := sim.Generate(sim.DemoConfig(time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	ch := openStore(t, front.NewDatabase(t), clickhouse.Options{})
	lite, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "f.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	for _, s := range []store.Store{ch, lite} {
		if err := s.WriteBatch(t.Context(), inc.Records); err != nil {
			t.Fatal(err)
		}
	}
	q := rootcause.Query{From: inc.Truth.Window.From, To: inc.Truth.Window.To, Top: 5}
	opt := rootcause.Options{SampleAbove: 500, SampleFailingAbove: 50}
	var reps [2]*rootcause.Report
	var docs [2]string
	for i, s := range []rootcause.Store{lite, ch} {
		rep, err := rootcause.Analyze(t.Context(), s, q, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(rep, "", " ")
		reps[i], docs[i] = rep, string(b)
	}
	if s := reps[1].Sampled; s == nil || s.K < 2 || s.Held >= s.Traces || s.FailingK < 2 || s.FailingHeld >= s.Failing {
		t.Fatalf("a window over the budget is not sampled on ClickHouse: %+v", s)
	}
	if len(reps[1].Candidates) == 0 || reps[1].Candidates[0].Service != inc.Truth.RootCause.Service {
		t.Errorf("sampled on ClickHouse, %v ranks first; the injected fault is at %s", top(reps[1]), inc.Truth.RootCause.Service)
	}
	if docs[0] != docs[1] {
		t.Errorf("sampled incident analysis on ClickHouse:\n%s\non the embedded store:\n%s", docs[1], docs[0])
	}
}

func top(rep *rootcause.Report) string {
	if len(rep.Candidates) == 0 {
		return "nothing"
	}
	return rep.Candidates[0].Service
}
