package rootcause

import (
	"math"
	"testing"
)

func TestBetaBinomDecades(t *testing.T) {
	for _, c := range []struct {
		name    string
		members []member
		lo, hi  float64
	}{
		// Every sample beyond all three of the baseline's: exact, 1/C(53,3).
		{"all beyond a short baseline", []member{{n: 50, slow: 50, k: 0, m: 3}}, 4.3, 4.4},
		// Three of three: 1/20, where the binomial at 1/4 says 1.8.
		{"three of three", []member{{n: 3, slow: 3, k: 0, m: 3}}, 1.29, 1.31},
		// 38% of 1400 beyond a limit 46 of 140 baseline samples passed:
		// the baseline's share itself is uncertain by 4 points.
		{"a share the baseline allows", []member{{n: 1400, slow: 532, k: 46, m: 140}}, 0, 1},
		// A real shift stays sure.
		{"a shift", []member{{n: 100, slow: 80, k: 7, m: 140}}, 30, 200},
		// Two members pool their evidence.
		{"pooled", []member{{n: 3, slow: 3, k: 0, m: 3}, {n: 3, slow: 3, k: 0, m: 3}}, 2.5, 2.7},
		{"nothing slow", []member{{n: 30, slow: 0, k: 0, m: 30}}, 0, 0},
	} {
		slow := 0
		for _, m := range c.members {
			slow += m.slow
		}
		d := betaBinomDecades(c.members, slow)
		if math.IsNaN(d) || d < c.lo || d > c.hi {
			t.Errorf("%s: %.3f decades, want %.2f..%.2f", c.name, d, c.lo, c.hi)
		}
	}
}

// TestLogPMFMatchesLgamma checks the beta-binomial's log probabilities,
// whose log-gammas are sums of logarithms, against each computed with
// math.Lgamma, for members small and large, and that they sum to one.
func TestLogPMFMatchesLgamma(t *testing.T) {
	for _, mb := range []member{{n: 0, k: 0, m: 1}, {n: 7, k: 2, m: 9}, {n: 1400, k: 46, m: 140}, {n: 50_000, k: 3, m: 20_000}} {
		got := mb.logPMF()
		a, b := float64(mb.k+1), float64(mb.m-mb.k)
		sum := 0.0
		for x, l := range got {
			lnN, _ := math.Lgamma(float64(mb.n + 1))
			lx, _ := math.Lgamma(float64(x + 1))
			ly, _ := math.Lgamma(float64(mb.n - x + 1))
			want := lnN - lx - ly + lbeta(float64(x)+a, float64(mb.n-x)+b) - lbeta(a, b)
			if d := math.Abs(l - want); d > 1e-9*max(1, math.Abs(want)) {
				t.Fatalf("%+v: log P(%d) = %v, want %v", mb, x, l, want)
			}
			sum += math.Exp(l)
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%+v: probabilities sum to %v", mb, sum)
		}
	}
}
