package clickhouse_test

import (
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/clickhouse"
)

// failingByRead is what the server's selection of failing traces stands
// for: the ids of the traces with an error record among the newest limit
// alert records a read of the window yields, sorted.
func failingByRead(t *testing.T, s *clickhouse.Store, from, to time.Time, limit int) []schema.TraceID {
	t.Helper()
	seen := map[schema.TraceID]bool{}
	for _, r := range collect(t, s.WindowRecords(t.Context(), schema.WindowQuery{From: from, To: to, ErrorsOnly: true, Newest: true, Limit: limit})) {
		if r.TraceID != "" && r.IsError() {
			seen[r.TraceID] = true
		}
	}
	var out []schema.TraceID
	for id := range seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// checkFailing compares Store.FailingTraces with failingByRead.
func checkFailing(t *testing.T, s *clickhouse.Store, from, to time.Time, limit int) []schema.TraceID {
	t.Helper()
	got, err := s.FailingTraces(t.Context(), from, to, limit)
	if err != nil {
		t.Fatal(err)
	}
	if want := failingByRead(t, s, from, to, limit); !slices.Equal(got, want) {
		t.Errorf("failing traces of [%s, %s), newest %d alert records: the server selects %d %v, a read names %d %v",
			from.Format(time.TimeOnly), to.Format(time.TimeOnly), limit, len(got), got, len(want), want)
	}
	return got
}

// TestFailingTracesSelectedByTheServer: the failing traces the server
// selects (FailingTraces, what an analysis holds) are the ones a read of
// the window's alert records names, on faultline's errors table over a
// simulated incident, whole and cut to its newest alert records.
func TestFailingTracesSelectedByTheServer(t *testing.T) {
	s, inc := demoStore(t)
	from, to := inc.Truth.Window.From, inc.Truth.Window.To
	all := checkFailing(t, s, from, to, 0)
	if len(all) < 20 {
		t.Fatalf("%d failing traces in the incident's window; want 20 or more", len(all))
	}
	if cut := checkFailing(t, s, from, to, 40); len(cut) == 0 || len(cut) >= len(all) {
		t.Errorf("cut to the newest 40 alert records, %d of the %d failing traces", len(cut), len(all))
	}
}
