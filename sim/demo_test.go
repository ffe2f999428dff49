package sim

import (
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

func TestDemo(t *testing.T) {
	inc, err := Demo()
	if err != nil {
		t.Fatal(err)
	}
	n := len(inc.Records)
	if n < 2000 || n > 20000 {
		t.Errorf("demo has %d records, want a few thousand", n)
	}
	since := time.Now().Add(-30 * time.Minute)
	if tr := inc.Truth; tr.Window.From.Before(since) || tr.Window.To.After(time.Now()) {
		t.Errorf("demo window %v is not inside the last 30 minutes", tr.Window)
	}
	if len(inc.Truth.FailedTraces) < 20 || inc.Truth.RootCause.Kind != schema.KindDependencyTimeout {
		t.Errorf("demo: %d failed traces, root cause %+v", len(inc.Truth.FailedTraces), inc.Truth.RootCause)
	}
	var opened bool
	for i := range inc.Records {
		if inc.meta[i].cause == failBreaker {
			opened = true
		}
	}
	if !opened {
		t.Error("demo: no breaker rejected a call; the story needs one")
	}
}

// TestDemoSameAtAnyTime checks that the demo differs only in its time base.
func TestDemoSameAtAnyTime(t *testing.T) {
	a := mustGenerate(t, DemoConfig(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)))
	b := mustGenerate(t, DemoConfig(time.Date(2027, 7, 9, 8, 30, 0, 0, time.UTC)))
	if len(a.Records) != len(b.Records) {
		t.Fatalf("%d records vs %d", len(a.Records), len(b.Records))
	}
	shift := b.Truth.Window.From.Sub(a.Truth.Window.From)
	for i := range a.Records {
		x, y := a.Records[i], b.Records[i]
		if x.Body != y.Body || x.TraceID != y.TraceID || !x.Time.Add(shift).Equal(y.Time) {
			t.Fatalf("record %d differs: %+v vs %+v", i, x, y)
		}
	}
}
