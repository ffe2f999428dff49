package correlate

import (
	"strings"
	"testing"
	"time"
)

// TestWriteTextOriginClock: the summary's origin is at its time on the
// trace's corrected clock, as its timeline row is, with its host's clock
// beside it when the correction moved it; the text says "once more" and
// "1 record", not "1 more times" or "1 records". The origin line used to
// print the host's clock alone: 2.2 s after the cascade it caused.
func TestWriteTextOriginClock(t *testing.T) {
	t0 := time.Date(2026, 1, 15, 1, 17, 34, 790_000_000, time.UTC)
	raw := t0.Add(2205 * time.Millisecond)
	origin := Event{Service: "auth", SpanID: "00000000000000b1", Timestamp: raw, Message: "token store timed out", Class: "timeout", Repeats: 1}
	res := &Result{
		TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", Failed: true, Events: 1, Services: []string{"auth"}, Start: t0,
		Origin: &origin,
		Timeline: []TimelineEntry{{Type: "log", Timestamp: raw, AdjustedMs: -2200, Service: "auth", SpanID: origin.SpanID,
			Severity: "ERROR", Message: origin.Message, Class: "timeout", Role: "origin"}},
	}
	var b strings.Builder
	if err := WriteText(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"1 record, 1 service,",
		"+5.0ms",
		"Origin    auth  timeout  at 01:17:34.795  (host clock 01:17:36.995, corrected by -2200.0ms)  (repeated once more)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text lacks %q:\n%s", want, out)
		}
	}

	// Not moved: the one clock; repeated twice: "2 more times".
	res.Timeline[0].AdjustedMs = 0
	origin.Repeats = 2
	b.Reset()
	if err := WriteText(&b, res); err != nil {
		t.Fatal(err)
	}
	if want := "at 01:17:36.995  (repeated 2 more times)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("the text lacks %q:\n%s", want, b.String())
	}
}

// TestTripReasonOneTrace: a breaker settled by the one latest trace says
// so in the singular.
func TestTripReasonOneTrace(t *testing.T) {
	lead := &breakerLead{dep: "auth"}
	one := (&trip{suspect: "fx-rates-api", votes: 1, of: 1, example: "3ba6488d79f4bd8dc782757edebd3e25"}).reason(lead)
	if !strings.Contains(one, ": the latest trace where auth failed points at fx-rates-api (e.g.") {
		t.Errorf("one trace: %q", one)
	}
	two := (&trip{suspect: "fx-rates-api", votes: 2, of: 3, example: "3ba6488d79f4bd8dc782757edebd3e25"}).reason(lead)
	if !strings.Contains(two, ": 2 of the latest 3 traces where auth failed point at fx-rates-api (e.g.") {
		t.Errorf("three traces: %q", two)
	}
}
