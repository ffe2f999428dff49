package rootcause

import (
	"math"
	"testing"
)

// TestShareZExact: shareZ is Fisher's exact test read as a z score. On a
// thin baseline it is surer of nothing than the data allow (3 of 4 against
// 14 of 89 executions: p = 0.0185 by the hypergeometric tail, where the
// normal approximation claims z 3.0); on large counts it agrees with the
// two-proportion z test; no change, or no event at all, is 0.
func TestShareZExact(t *testing.T) {
	// P(X >= 3), X hypergeometric: 93 executions, 17 with the event, 4
	// in the baseline: (C(17,3)·C(76,1) + C(17,4)) / C(93,4).
	wantP := (680.0*76 + 2380) / 2919735
	wantZ := math.Sqrt2 * math.Erfcinv(2*wantP)
	if got := shareZ(3, 14, 4, 89); math.Abs(got-wantZ) > 1e-6 || got >= minShiftZ {
		t.Errorf("shareZ(3 of 4, 14 of 89) = %.4f, want %.4f (p %.4f), below %v", got, wantZ, wantP, minShiftZ)
	}
	// Large counts: 300 of 1000 against 450 of 1000; the normal
	// approximation says 6.96.
	p := 750.0 / 2000
	normal := 0.15 / math.Sqrt(p*(1-p)*2.0/1000)
	if got := shareZ(300, 450, 1000, 1000); math.Abs(got-normal) > 0.25 {
		t.Errorf("shareZ(300 of 1000, 450 of 1000) = %.3f, want about the normal approximation's %.3f", got, normal)
	}
	// The direction does not matter, only the size and the counts.
	if a, b := shareZ(450, 300, 1000, 1000), shareZ(300, 450, 1000, 1000); math.Abs(a-b) > 1e-9 {
		t.Errorf("shareZ is not symmetric: %.6f and %.6f", a, b)
	}
	for _, c := range [][4]int{{5, 50, 10, 100}, {0, 0, 10, 100}, {10, 100, 10, 100}} {
		if got := shareZ(c[0], c[1], c[2], c[3]); got != 0 {
			t.Errorf("shareZ%v = %v, want 0: no change", c, got)
		}
	}
	// An overwhelming change stays finite.
	if got := shareZ(0, 5000, 5000, 5000); got <= 30 || math.IsInf(got, 0) || math.IsNaN(got) {
		t.Errorf("shareZ(0 of 5000, 5000 of 5000) = %v, want a large finite z", got)
	}
}
