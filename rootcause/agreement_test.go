package rootcause

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store/sqlite"
)

// TestTraceAndIncidentAgree checks that `analyze trace` and `analyze
// incident` name the same suspect for every failing trace of simulated
// incidents whose breakers open: the seed systems' per-region and
// namespace breakers and a payment timeout cascade, and the generic shapes'
// breakers in front of a slow or refusing dependency. The incident's
// suspect for a trace is the one its vote starts from (traceSuspect);
// `analyze trace` is correlate.Analyze on the same store. A trace with
// records outside the window is left out: the incident reads only the
// window's part of it.
func TestTraceAndIncidentAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates and analyses 5 incidents; skipped with -short")
	}
	cases := []sim.Config{
		{Seed: 90501, Topology: "routing", Fault: schema.KindDependencyTimeout, FaultType: "region-api-outage"},
		{Seed: 90502, Topology: "jobclaim", Fault: schema.KindDependencyTimeout, FaultType: "holder-api-slow"},
		{Seed: 90503, Topology: "payment", Fault: schema.KindDependencyTimeout, FaultType: "gateway-timeout"},
		{Seed: 90504, Topology: "shop", Fault: schema.KindDependencyTimeout, FaultType: "third-party-slow"},
		{Seed: 90505, Topology: "jobqueue", Fault: schema.KindConnectionRefused},
	}
	followed := 0
	for _, cfg := range cases {
		cfg.Baseline, cfg.Window, cfg.TracesPerSecond = 4*time.Minute, 6*time.Minute, 2
		name := cmp.Or(cfg.FaultType, string(cfg.Fault))
		t.Run(fmt.Sprintf("%s-%s-%d", cfg.Topology, name, cfg.Seed), func(t *testing.T) {
			followed += agreeOn(t, cfg)
		})
	}
	if followed == 0 {
		t.Error("no trace's suspect came from an open breaker followed across traces: the test checks nothing of it")
	}
}

// agreeOn simulates cfg, analyses its window as an incident and every
// failing trace wholly inside it as `analyze trace` does, and reports how
// many of those traces' suspects came from a breaker followed.
func agreeOn(t *testing.T, cfg sim.Config) int {
	ctx := context.Background()
	inc, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.WriteBatch(ctx, inc.Records); err != nil {
		t.Fatal(err)
	}
	q := Query{From: inc.Truth.Window.From, To: inc.Truth.Window.To}
	inside := map[schema.TraceID]bool{}
	for i := range inc.Records {
		r := &inc.Records[i]
		if r.TraceID == "" {
			continue
		}
		in := !r.Time.Before(q.From) && r.Time.Before(q.To)
		if ok, seen := inside[r.TraceID]; !seen || ok {
			inside[r.TraceID] = in
		}
	}
	_, tv, err := analyzeStore(ctx, st, q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checked, followed, partial := 0, 0, 0
	for _, v := range tv.votes {
		if !inside[v.trace] {
			partial++
			continue
		}
		res, err := correlate.Analyze(ctx, st, v.trace, correlate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if !res.Failed {
			t.Errorf("trace %s: the incident explains it as failing (suspect %s), analyze trace does not", v.trace, v.suspect)
			continue
		}
		got, _ := traceSuspect(res)
		if got != v.suspect {
			reason := ""
			if res.Suspect != nil {
				reason = res.Suspect.Reason
			}
			t.Errorf("trace %s: analyze trace names %s, the incident %s (%s)", v.trace, got, v.suspect, reason)
		}
		if res.Suspect != nil && strings.Contains(res.Suspect.Reason, "the breaker opened on earlier failures") {
			followed++
		}
	}
	if checked == 0 {
		t.Fatal("no failing trace to compare")
	}
	t.Logf("%d failing traces agree (%d through a breaker followed); %d with records outside the window left out",
		checked, followed, partial)
	return followed
}
