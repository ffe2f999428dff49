package clickhouse_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// TestAnalysisMatchesEmbedded writes the demo incident into ClickHouse and
// into the embedded store, runs the incident and trace analyses on both,
// and wants the same answers: the analysis does not depend on the backend.
func TestAnalysisMatchesEmbedded(t *testing.T) {
	ch, lite, inc := demoStores(t)
	q := rootcause.Query{From: inc.Truth.Window.From, To: inc.Truth.Window.To, Top: 5}
	want, got := incident(t, lite, q), incident(t, ch, q)
	if got != want {
		t.Errorf("incident analysis on ClickHouse:\n%s\non the embedded store:\n%s", got, want)
	}
	traces := slices.Sorted(func(yield func(schema.TraceID) bool) {
		for id := range inc.Truth.FailedTraces {
			if !yield(id) {
				return
			}
		}
	})
	if len(traces) == 0 {
		t.Fatal("the demo incident has no failed traces")
	}
	for _, id := range traces[:min(5, len(traces))] {
		if got, want := trace(t, ch, id), trace(t, lite, id); got != want {
			t.Errorf("trace %s on ClickHouse:\n%s\non the embedded store:\n%s", id, got, want)
		}
	}
}

func incident(t *testing.T, s rootcause.Store, q rootcause.Query) string {
	t.Helper()
	rep, err := rootcause.Analyze(t.Context(), s, q, rootcause.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Candidates) == 0 {
		t.Error("no candidates")
	}
	b, _ := json.MarshalIndent(rep, "", " ")
	return string(b)
}

func trace(t *testing.T, s correlate.Store, id schema.TraceID) string {
	t.Helper()
	res, err := correlate.Analyze(t.Context(), s, id, correlate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The contract's fields only: the order of sibling spans in the
	// timeline follows the order the store yields them in, which the
	// correlate.Store interface leaves open.
	res.Timeline = nil
	b, _ := json.MarshalIndent(res, "", " ")
	return string(b)
}
