package rootcause

import (
	"fmt"
	"math"
	"slices"

	"github.com/faultline/faultline/schema"
)

// ruleWireCombined: a service on a slow network slows every call that
// crosses its wire, its callers' calls into it and its own calls out, and
// each of them is a test of its own. Against a thin baseline (a minute of
// data: twenty calls of an edge) no one of them can be sure: a share of
// 18% slow calls against none of 25 in the baseline is 2.1 decades, since
// 25 draws miss an 18% tail once in 140. The edges' baselines are
// independent draws, so their tests combine (Fisher's method: −2 Σ ln p
// is χ² with 2k degrees of freedom under chance): four edges at 2.1, 2.7,
// 1.2 and 0.8 decades are 3.9 together. A service none of whose edges is
// sure alone, whose edges together reach minDecades, is slow on the wire
// (network-delay), its calls in and out as surely as the combination
// says. Edges that did not slow count in the combination too (they weaken
// it), so that a service slow on one edge among many is not found: that
// is its callee's or its caller's, and the edge alone must show it.
//
// Condition: no edge into or out of the service is significant by itself
// (call_timing localises those), and call_timing found nothing of it.
// Scenario: testdata/wire_combined.txtar.
const ruleWireCombined = "wire_combined"

// wireCombined adds a network-delay finding to found for each service
// whose edges, each too weak alone, combine to minDecades.
func wireCombined(w *period, edges map[[2]string]*shift, found map[string]*timingFinding) {
	// Each service's edges' tests, in and out; a service with one that is
	// sure alone is call_timing's to localise.
	tests := map[string][]float64{}
	sure := map[string]bool{}
	order := sortedEdges(edges)
	for _, k := range order {
		es := edges[k]
		for _, svc := range k {
			tests[svc] = append(tests[svc], es.decades())
			sure[svc] = sure[svc] || es.significant()
		}
	}
	for _, name := range sortedKeys(tests) {
		if found[name] != nil || sure[name] || len(tests[name]) < 2 {
			continue
		}
		joint := fisherDecades(tests[name])
		if joint < minDecades {
			continue
		}
		var in, out shift
		var callers []string
		for _, k := range order {
			switch name {
			case k[1]:
				in.mergeShift(edges[k])
				if edges[k].decades() > 0 {
					callers = append(callers, k[0])
				}
			case k[0]:
				out.mergeShift(edges[k])
			}
		}
		in.joint, out.joint = joint, joint
		if in.excess() == 0 && out.excess() == 0 {
			continue
		}
		f := &timingFinding{kind: schema.KindNetworkDelay, callers: callers, strength: max(in.excess(), out.excess())}
		f.slowedOf = []*shift{&in, &out}
		what := "calls into and out of " + name
		switch {
		case w.timing.opaque[name]:
			// It leaves no spans: the calls' whole time is its own.
			f.kind = schema.KindLatency
			what = "calls to " + name + ", which leaves no spans of its own,"
		case out.n == 0:
			what = "calls into " + name
		}
		f.reason = fmt.Sprintf("%s took longer, each of its %d edges too weakly to tell alone, %.1f decades sure together (%s): ",
			what, len(tests[name]), joint, ruleWireCombined)
		if in.n > 0 {
			f.reason += fmt.Sprintf("in %.0f%% of %d (%s)", 100*in.share(), in.n, in.quantiles())
		}
		if out.n > 0 {
			if in.n > 0 {
				f.reason += ", "
			}
			f.reason += fmt.Sprintf("out %.0f%% of %d (%s)", 100*out.share(), out.n, out.quantiles())
		}
		f.reason += " slower than nearly all in the baseline"
		f.examples = exampleIDs(append(slices.Clone(in.examples), out.examples...))
		found[name] = f
	}
}

// fisherDecades combines independent tests, each given in decades
// (−log10 p), by Fisher's method: X = −2 Σ ln p = 2 ln10 Σ d is χ² with
// 2k degrees of freedom, whose tail is exp(−X/2) Σ_{j<k} (X/2)^j / j!.
func fisherDecades(decades []float64) float64 {
	sum := 0.0
	for _, d := range decades {
		sum += d
	}
	if sum <= 0 {
		return 0
	}
	h := sum * math.Ln10 // X/2
	term, tail := 1.0, 1.0
	for j := 1; j < len(decades); j++ {
		term *= h / float64(j)
		tail += term
	}
	return max(0, sum-math.Log10(tail))
}
