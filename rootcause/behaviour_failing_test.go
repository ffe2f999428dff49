package rootcause

import (
	"math"
	"testing"
)

// TestBehaviourChangeInFailingTraces: a change seen only in executions of
// traces that failed (a queue that stopped writing its usual line in the
// claims it refused) changes none of the traces that did not fail; the
// same change spread over traces that did not fail counts them.
func TestBehaviourChangeInFailingTraces(t *testing.T) {
	bs := &opStat{units: 100, traces: 100, events: map[string]int{"claimed": 100}}
	for _, c := range []struct {
		name             string
		ws               *opStat
		wantOK, wantSome bool
	}{
		{"in the refused claims only", &opStat{units: 100, traces: 100, events: map[string]int{"claimed": 30},
			failUnits: 70, failEvents: map[string]int{}}, false, true},
		{"in claims that went through", &opStat{units: 100, traces: 100, events: map[string]int{"claimed": 30}}, true, true},
	} {
		sh, ok := compareShares(c.ws, bs, "claimed")
		if !ok {
			t.Fatalf("%s: the change from 100%% to 30%% is not significant", c.name)
		}
		sh.strength, sh.traces = math.Abs(sh.pw-sh.pb), c.ws.traces
		sh.z = max(sh.z, fullShiftZ)
		if got := sh.changed(); (got > 0) != c.wantSome {
			t.Errorf("%s: changed = %.1f", c.name, got)
		}
		got := sh.changedOK()
		if (got > 0) != c.wantOK {
			t.Errorf("%s: changedOK = %.1f, want > 0: %v", c.name, got, c.wantOK)
		}
		if c.wantOK && math.Abs(got-sh.changed()) > 1e-9 {
			t.Errorf("%s: with no failing trace changedOK = %.1f, changed = %.1f", c.name, got, sh.changed())
		}
	}
	tv := &traceVotes{services: map[string]*serviceVotes{}}
	tv.service("gitapi").via["queue"] = 50
	if n := tv.passedThrough("queue"); n != 50 {
		t.Errorf("passedThrough(queue) = %d, want 50", n)
	}
}
