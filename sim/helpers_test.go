package sim

import (
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// small is a quick configuration for tests: 5 minutes of baseline, a
// 5-minute window, 2 requests a second.
func small(seed int64, k schema.Kind) Config {
	return Config{Seed: seed, Fault: k, Baseline: 5 * time.Minute, Window: 5 * time.Minute, TracesPerSecond: 2}
}

func mustGenerate(t testing.TB, cfg Config) *Incident {
	t.Helper()
	inc, err := Generate(cfg)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", cfg, err)
	}
	return inc
}

// byTrace groups record indexes by trace id, in true-time order.
func byTrace(inc *Incident) map[schema.TraceID][]int {
	out := map[schema.TraceID][]int{}
	for i := range inc.Records {
		if id := inc.Records[i].TraceID; id != "" {
			out[id] = append(out[id], i)
		}
	}
	for _, idx := range out {
		sortByTrueTime(inc, idx)
	}
	return out
}

func sortByTrueTime(inc *Incident, idx []int) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && known(inc, idx[j]).Before(known(inc, idx[j-1])); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// upstream is the set of nodes that depend on n, directly or not, plus n.
func upstream(g *graph, n *node) map[string]bool {
	out := map[string]bool{n.name: true}
	for changed := true; changed; {
		changed = false
		for _, m := range g.nodes {
			for _, d := range m.deps {
				if out[d.name] && !out[m.name] {
					out[m.name], changed = true, true
				}
			}
		}
	}
	return out
}

// isProblem reports whether a record is an error or warning: a log at WARN
// or above, or a span with error status.
func isProblem(r *schema.Record) bool {
	return r.IsError() || (r.Type == schema.TypeLog && r.Severity >= schema.SeverityWarn)
}

func nodeNamed(t testing.TB, g *graph, name string) *node {
	t.Helper()
	for _, n := range g.nodes {
		if n.name == name {
			return n
		}
	}
	t.Fatalf("no node %q", name)
	return nil
}

// known is when a record's content became known (true time): a log when
// written, a span when it ended.
func known(inc *Incident, i int) time.Time {
	return inc.meta[i].at.Add(inc.Records[i].Duration)
}
