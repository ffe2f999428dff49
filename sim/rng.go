package sim

import (
	"math"
	"math/rand/v2"
	"time"
)

// rng is the one source of randomness of a simulation, seeded from Config.Seed.
type rng struct{ *rand.Rand }

func newRNG(seed int64) rng {
	return rng{rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15))}
}

// chance is true with probability p.
func (r rng) chance(p float64) bool { return r.Float64() < p }

// between is a uniform integer in [lo, hi].
func (r rng) between(lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// dur is a uniform duration in [lo, hi).
func (r rng) dur(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(r.Int64N(int64(hi-lo)))
}

// latency is a log-normal duration around median with a long right tail.
func (r rng) latency(median time.Duration) time.Duration {
	return time.Duration(float64(median) * math.Exp(r.NormFloat64()*0.45))
}

// pick returns one element of xs.
func pick[T any](r rng, xs []T) T { return xs[r.IntN(len(xs))] }

// shuffled returns a shuffled copy of xs.
func shuffled[T any](r rng, xs []T) []T {
	out := append([]T(nil), xs...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// hexID writes n random bytes as lowercase hex.
func (r rng) hexID(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 2*n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			c := byte(v >> (8 * j))
			b[2*(i+j)] = digits[c>>4]
			b[2*(i+j)+1] = digits[c&15]
		}
	}
	return string(b)
}
