package sim

import (
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
)

// Config describes one simulated incident. A zero field takes its default.
type Config struct {
	// Seed makes the incident: the same Config gives byte-identical output.
	Seed int64
	// Fault is the kind of fault to inject, one of FaultKinds; empty picks one from the seed.
	Fault schema.Kind
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
func FaultKinds() []schema.Kind {
	return []schema.Kind{
		schema.KindDependencyTimeout, schema.KindDBPoolExhaustion, schema.KindResourceGC,
		schema.KindBadDeploy, schema.KindRateLimit, schema.KindPoisonMessage,
		schema.KindConnectionRefused, schema.KindOOM,
	}
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
