package rootcause

import "math"

// member is one edge's or operation's part of a timing test: of its n
// window samples, slow exceeded a limit that k of its m baseline samples
// exceeded.
//
// When the window's samples come from the baseline's distribution, the
// share of draws beyond a limit set among m baseline samples, k of them
// beyond it, is itself uncertain: Beta(k+1, m−k). The count of the
// window's samples beyond it is then beta-binomial, not binomial at a
// known share: a baseline of 140 samples, 46 beyond a limit, allows a
// window of 1400 with 38% beyond it (the binomial at 33% would call
// that 3 decades sure), while 50 of 50 beyond all 3 of a baseline's
// samples stays 5 decades sure.
type member struct{ n, slow, k, m int }

// logPMF is the beta-binomial's log probabilities of 0..n of the
// member's window samples being beyond its limit:
//
//	log C(n, x) + log B(x+a, n−x+b) − log B(a, b),  a = k+1, b = m−k
//
// Its log-gammas, at arguments a unit apart, are each the one before plus
// a logarithm (lgammaRun), not five math.Lgamma per x: a window's edges of
// tens of thousands of samples had their tests take most of a second.
func (mb member) logPMF() []float64 {
	a, b := float64(mb.k+1), float64(mb.m-mb.k)
	n := mb.n
	fact := lgammaRun(1, n+1) // log x!
	ga := lgammaRun(a, n+1)   // log Γ(x+a)
	gb := lgammaRun(b, n+1)   // log Γ(y+b)
	lnN := fact[n]
	lnAB, _ := math.Lgamma(float64(n) + a + b)
	lnBab := lbeta(a, b)
	out := make([]float64, n+1)
	for x := 0; x <= n; x++ {
		out[x] = lnN - fact[x] - fact[n-x] + ga[x] + gb[n-x] - lnAB - lnBab
	}
	return out
}

// lgammaRunAnchor is how many steps lgammaRun takes by adding a logarithm
// before it computes a log-gamma afresh, so that the sums' rounding stays
// that of a few hundred additions.
const lgammaRunAnchor = 256

// lgammaRun is log Γ(v), log Γ(v+1), ..., n values: Γ(v+1) = v·Γ(v).
func lgammaRun(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		if i%lgammaRunAnchor == 0 {
			out[i], _ = math.Lgamma(v + float64(i))
			continue
		}
		out[i] = out[i-1] + math.Log(v+float64(i-1))
	}
	return out
}

func lbeta(a, b float64) float64 {
	x, _ := math.Lgamma(a)
	y, _ := math.Lgamma(b)
	z, _ := math.Lgamma(a + b)
	return x + y - z
}

// betaBinomDecades is how surely (−log10 of the p-value) the members'
// slow samples, slow in all, exceed what their baselines allow: one
// member's exact beta-binomial tail; of several, the Chernoff bound of the
// sum of their counts, min over t ≥ 0 of Σ log E[exp(tX)] − t·slow, which
// is exact when every sample is slow and otherwise errs on the side of
// less sure.
func betaBinomDecades(members []member, slow int) float64 {
	var pmfs [][]float64
	total, fixed := 0, 0
	for _, mb := range members {
		if mb.n == 0 {
			continue
		}
		if mb.k >= mb.m {
			// Every baseline sample was beyond: so is every window one.
			fixed += mb.n
			total += mb.n
			continue
		}
		pmfs = append(pmfs, mb.logPMF())
		total += mb.n
	}
	s := slow - fixed
	if s <= 0 || len(pmfs) == 0 {
		return 0
	}
	if len(pmfs) == 1 {
		// One member: its exact tail.
		p := pmfs[0]
		hi := math.Inf(-1)
		for _, l := range p[s:] {
			hi = max(hi, l)
		}
		z := 0.0
		for _, l := range p[s:] {
			z += math.Exp(l - hi)
		}
		return max(0, -(hi+math.Log(z))/math.Ln10)
	}
	if slow >= total {
		lp := 0.0
		for _, p := range pmfs {
			lp += p[len(p)-1]
		}
		return -lp / math.Ln10
	}
	// tilted is, at t, Σ log M_i(t) and the tilted mean and variance
	// Σ E_t[X_i], Σ Var_t[X_i].
	tilted := func(t float64) (logM, mean, vari float64) {
		for _, p := range pmfs {
			hi := math.Inf(-1)
			for x, l := range p {
				hi = max(hi, l+t*float64(x))
			}
			z, m, m2 := 0.0, 0.0, 0.0
			for x, l := range p {
				e := math.Exp(l + t*float64(x) - hi)
				z += e
				m += e * float64(x)
				m2 += e * float64(x) * float64(x)
			}
			logM += hi + math.Log(z)
			mean += m / z
			vari += max(0, m2/z-(m/z)*(m/z))
		}
		return logM, mean, vari
	}
	// Newton's method on the tilted mean, kept inside the bracket that
	// bisection would narrow: any t gives a bound, the best t the
	// tightest.
	target := float64(s)
	lo, hi, t := 0.0, math.Inf(1), 0.0
	logM, mean, vari := tilted(0)
	if target <= mean {
		return 0
	}
	for range 60 {
		if mean < target {
			lo = t
		} else {
			hi = t
		}
		if math.Abs(mean-target) < 1e-6*target+1e-9 {
			break
		}
		next := t + (target-mean)/max(vari, 1e-12)
		if !(next > lo && next < hi) {
			if math.IsInf(hi, 1) {
				next = max(2*t, t+1)
			} else {
				next = (lo + hi) / 2
			}
		}
		t = next
		logM, mean, vari = tilted(t)
	}
	return max(0, -(logM-t*target)/math.Ln10)
}
