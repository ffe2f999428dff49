package rootcause

import (
	"testing"
	"time"
)

// TestBaselineSpanAtTheReadsRate: the baseline reaches back as far as
// holds about BaselineRecords at the rate the window's read met. A window
// cut at the record limit kept its newest records, over less than the
// window's length: their rate is the window's, and the baseline is sized
// by it, not by the window's whole length, which would take the rate for
// half of what it is and read twice the records the baseline is to hold.
func TestBaselineSpanAtTheReadsRate(t *testing.T) {
	const want = 15 * time.Minute
	for _, tc := range []struct {
		name    string
		covered time.Duration
		n       int
		span    time.Duration
	}{
		{"a window within the baseline's records", 10 * time.Minute, 300_000, want},
		{"a busy window read whole", 10 * time.Minute, 5_000_000, time.Minute},
		{"the newest 5M records of a window twice as busy", 5 * time.Minute, 5_000_000, 30 * time.Second},
		{"a read whose records share one instant", 0, 5_000_000, want},
	} {
		if got := baselineSpan(want, tc.covered, tc.n); got != tc.span {
			t.Errorf("%s (%d records over %s): the baseline spans %s, want %s", tc.name, tc.n, tc.covered, got, tc.span)
		}
	}
}
