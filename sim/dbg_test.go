package sim

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

func TestDbgSummary(t *testing.T) {
	cfg := DemoConfig(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	if s := os.Getenv("SEED"); s != "" {
		v, _ := strconv.Atoi(s)
		cfg = Config{Seed: int64(v), Fault: schema.Kind(os.Getenv("KIND"))}
	}
	inc := mustGenerate(t, cfg)
	fmt.Println(inc.Truth.RootCause, inc.Truth.Onset, "records", len(inc.Records), "failed", len(inc.Truth.FailedTraces))
	type c struct{ base, win, winFault int }
	counts := map[string]*c{}
	for i := range inc.Records {
		r := &inc.Records[i]
		if !r.IsError() || r.Type != schema.TypeLog {
			continue
		}
		x := counts[r.Service]
		if x == nil {
			x = &c{}
			counts[r.Service] = x
		}
		if inc.meta[i].at.Before(inc.Truth.Window.From) {
			x.base++
		} else {
			x.win++
			if inc.meta[i].fault {
				x.winFault++
			}
		}
	}
	var names []string
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Printf("  %-22s %-16s base=%d window=%d (fault %d)\n", n, inc.Truth.Services[n], counts[n].base, counts[n].win, counts[n].winFault)
	}
	for _, n := range inc.g.nodes {
		if os.Getenv("NODES") == "" {
			break
		}
		var deps []string
		for _, d := range n.deps {
			deps = append(deps, d.name)
		}
		fmt.Printf("  node %-22s role=%d lvl=%d noisy=%v traced=%v -> %v\n", n.name, n.role, n.level, n.noisy, n.traced, deps)
	}
}
