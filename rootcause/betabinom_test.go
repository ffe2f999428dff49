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
