package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/faultline/faultline/schema"
)

// Config describes one simulated incident. A zero field takes its default.
type Config struct {
	// Seed makes the incident: the same Config gives byte-identical output.
	Seed int64
	// Fault is the kind of fault to inject, one of FaultKinds; empty picks one from the seed.
	Fault schema.Kind
	// FaultType picks a variant of the fault, one of the Type values of
	// Faults (e.g. "silent-db" of dependency-timeout); empty is the kind's
	// first variant. With Fault empty it also sets the kind.
	FaultType string
	// Topology is the shape of the system, one of AllTopologies: "shop"
	// (the default), "jobqueue" or "edge", or a seed system (SeedTopologies).
	Topology string
	// Start is when the baseline begins; zero is 2026-01-15T09:00:00Z.
	Start time.Time
	// Baseline is the fault-free traffic before the window; default 15m.
	Baseline time.Duration
	// Window is the incident window, which the fault starts inside; default 10m.
	Window time.Duration
	// TracesPerSecond is the rate of requests at the entry points; default 4.
	TracesPerSecond float64
	// Services is the number of business services (3 to 40); 0 picks 7 to 13 from the seed.
	Services int
	// SpanlessShare is the share of traces exported without spans; default
	// 0.2, negative means none.
	SpanlessShare float64
	// MaxSkew bounds the clock offset of a host; default 1.5s.
	MaxSkew time.Duration
}

// FaultKinds lists the faults the simulator can inject, as failure kinds.
// Kinds are appended, never reordered: an index keeps its meaning.
func FaultKinds() []schema.Kind {
	return []schema.Kind{
		schema.KindDependencyTimeout, schema.KindDBPoolExhaustion, schema.KindResourceGC,
		schema.KindBadDeploy, schema.KindRateLimit, schema.KindPoisonMessage,
		schema.KindConnectionRefused, schema.KindOOM,
		schema.KindNetworkDelay, schema.KindCPUStarvation,
	}
}

// Fault is one fault the simulator can inject: a kind and the variant
// (truth.json's root_cause.fault_type).
type Fault struct {
	Kind schema.Kind
	Type string
}

// Faults lists every variant of every kind: first the first variant of
// each of FaultKinds in order, then the further variants. Entries are
// appended, never reordered.
func Faults() []Fault {
	var out []Fault
	for _, k := range FaultKinds() {
		out = append(out, Fault{k, faultTypes(k)[0]})
	}
	for _, k := range FaultKinds() {
		for _, t := range faultTypes(k)[1:] {
			out = append(out, Fault{k, t})
		}
	}
	return out
}

// faultTypes are the variants of kind k, the first the default.
func faultTypes(k schema.Kind) []string {
	switch k {
	case schema.KindDependencyTimeout:
		return []string{"third-party-slow", typeSilentDB, typeSilentAPI}
	case schema.KindDBPoolExhaustion:
		return []string{"connection-pool-exhaustion"}
	case schema.KindResourceGC:
		return []string{"gc-pressure"}
	case schema.KindBadDeploy:
		return []string{"regression-after-deploy", typeSilentDeploy}
	case schema.KindRateLimit:
		return []string{"rate-limit-retry-storm"}
	case schema.KindPoisonMessage:
		return []string{"poison-message"}
	case schema.KindConnectionRefused:
		return []string{"crash-loop"}
	case schema.KindOOM:
		return []string{"oom-kill"}
	case schema.KindNetworkDelay:
		return []string{"network-delay"}
	case schema.KindCPUStarvation:
		return []string{"cpu-starvation"}
	}
	return []string{""}
}

// The fault types of the silent variants of existing kinds.
const (
	typeSilentDB     = "silent-db"
	typeSilentAPI    = "silent-api"
	typeSilentDeploy = "silent-deploy"
)

// Topologies lists the system shapes: an online shop (the default), a job
// queue with workers, an edge router with caches in front of backends.
func Topologies() []string { return []string{topoShop, topoJobQueue, topoEdge} }

const (
	topoShop     = "shop"
	topoJobQueue = "jobqueue"
	topoEdge     = "edge"
)

// FaultNamed returns the fault a name stands for: a kind (its first
// variant) or a fault type, a seed system's included.
func FaultNamed(name string) (Fault, bool) {
	for _, f := range Faults() {
		if string(f.Kind) == name && f.Type == faultTypes(f.Kind)[0] || f.Type == name {
			return f, true
		}
	}
	if f, _, ok := seedFaultNamed(name); ok {
		return f, true
	}
	return Fault{}, false
}

// withDefaults fills in zero fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.Start.IsZero() {
		c.Start = time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	}
	c.Start = c.Start.UTC()
	if c.Baseline == 0 {
		c.Baseline = 15 * time.Minute
	}
	if c.Window == 0 {
		c.Window = 10 * time.Minute
	}
	if c.TracesPerSecond == 0 {
		c.TracesPerSecond = 4
	}
	if c.SpanlessShare == 0 {
		c.SpanlessShare = 0.2
	}
	if c.MaxSkew == 0 {
		c.MaxSkew = 1500 * time.Millisecond
	}
	if c.Topology == "" {
		c.Topology = topoShop
	}
	if c.Fault == "" && c.FaultType != "" {
		if f, ok := FaultNamed(c.FaultType); ok {
			c.Fault = f.Kind
		}
	}
	return c, c.check()
}

func (c Config) check() error {
	switch {
	case c.Baseline < 0 || c.Window < 3*time.Minute:
		return fmt.Errorf("window must be at least 3m and baseline not negative (got %v, %v)", c.Window, c.Baseline)
	case c.TracesPerSecond < 0 || c.TracesPerSecond > 5000:
		return fmt.Errorf("traces per second must be between 0 and 5000 (got %g)", c.TracesPerSecond)
	case c.Services != 0 && (c.Services < 3 || c.Services > 40):
		return fmt.Errorf("services must be between 3 and 40, or 0 for a choice from the seed (got %d)", c.Services)
	case c.Fault != "" && !isFaultKind(c.Fault):
		return fmt.Errorf("fault %q is not one of %v", truncate(string(c.Fault), 40), FaultKinds())
	case !slices.Contains(AllTopologies(), c.Topology):
		return fmt.Errorf("topology %q is not one of %v", truncate(c.Topology, 40), AllTopologies())
	}
	if c.FaultType == "" || c.Fault != "" && slices.Contains(faultTypes(c.Fault), c.FaultType) {
		return nil
	}
	f, topo, ok := seedFaultNamed(c.FaultType)
	switch {
	case !ok || f.Kind != c.Fault:
		return fmt.Errorf("fault type %q is not a variant of fault %q (see Faults)", truncate(c.FaultType, 40), c.Fault)
	case topo != c.Topology:
		return fmt.Errorf("fault type %q is a fault of the %s system, not of %s", c.FaultType, topo, c.Topology)
	}
	return nil
}

func isFaultKind(k schema.Kind) bool {
	for _, f := range FaultKinds() {
		if f == k {
			return true
		}
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
