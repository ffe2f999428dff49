package clickhouse_test

import (
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/store/clickhouse"
)

// TestTenMillionRowIncident analyses a window of 10M spans (2.5M traces;
// $FAULTLINE_BIG_TRACES traces to change it) that the Collector's
// otel_traces holds, written by plain SQL (testdata/big_incident.sql),
// after a minute of healthy traces: the server samples the window's
// traces, the injected fault ranks first, and the analysis holds well
// under a gigabyte.
func TestTenMillionRowIncident(t *testing.T) {
	front.Need(t)
	traces := 2_500_000
	if n, err := strconv.Atoi(os.Getenv("FAULTLINE_BIG_TRACES")); err == nil && n > 0 {
		traces = n
	}
	u := front.NewDatabase(t)
	execFile(t, "collector_v2.sql", u, "Error")
	b, err := os.ReadFile("testdata/big_incident.sql")
	if err != nil {
		t.Fatal(err)
	}
	window := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	db := u[strings.LastIndex(u, "/")+1:]
	if i := strings.IndexByte(db, '?'); i >= 0 {
		db = db[:i]
	}
	sql := strings.NewReplacer("DB.", db+".", "WINDOW_NS", strconv.FormatInt(window.UnixNano(), 10),
		"BASE_TRACES", strconv.Itoa(traces/10), "TRACES", strconv.Itoa(traces)).Replace(string(b))
	t0 := time.Now()
	if err := front.Exec(t.Context(), sql); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d spans in %v", 4*(traces+traces/10), time.Since(t0).Round(time.Millisecond))

	s := openStore(t, u, clickhouse.Options{ReadOnly: true})
	// The peak of the live heap (what the last collection kept), read
	// every 50 ms: the memory the analysis holds, not the garbage the
	// collector has yet to take, nor what the rest of the binary's tests
	// left.
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	before := sample[0].Value.Uint64()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	t0 = time.Now()
	rep, err := rootcause.Analyze(t.Context(), s, rootcause.Query{From: window, To: window.Add(10 * time.Minute), Top: 5}, rootcause.Options{})
	took := time.Since(t0)
	close(stop)
	<-done
	held := (peak.Load() - min(before, peak.Load())) >> 20
	if err != nil {
		t.Fatal(err)
	}
	sm := rep.Sampled
	t.Logf("analysed in %v, holding at most %d MB of live heap; sampled %+v", took.Round(time.Millisecond), held, sm)
	// Every alert record is sent (three per failing trace, a sixth of
	// the window's traces), and the other records of 1 in K traces.
	if sm == nil || sm.K < 2 || sm.Sent == 0 || sm.Sent > 4*traces/2 {
		t.Errorf("the server did not sample the window of %d spans: %+v", 4*traces, sm)
	}
	if top(rep) != "payments" {
		t.Errorf("%s ranks first; the injected fault is at payments (candidates: %+v)", top(rep), rep.Candidates)
	}
	// At 10M rows the live heap peaks about 380 MB (docs/memory.md): the
	// held failing traces, the open ones and the block being decoded. A
	// read that held the window, or a sampled trace learnt or voted as
	// many times over as its weight (955 MB, then 602 MB), would pass
	// this bound.
	if held > 560 {
		t.Errorf("the analysis held %d MB of live heap; the window's sample takes about 380 MB", held)
	}
}
