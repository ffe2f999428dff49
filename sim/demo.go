package sim

import (
	"time"

	"github.com/faultline/faultline/schema"
)

// DemoConfig is the configuration of the demo incident whose window ends at
// end: a payment-style third-party API slows down, its callers time out and
// their breakers open. Twenty minutes of baseline precede a ten-minute
// window; a few thousand records.
func DemoConfig(end time.Time) Config {
	return Config{
		Seed:            demoSeed,
		Fault:           schema.KindDependencyTimeout,
		Start:           end.Add(-30 * time.Minute).Truncate(time.Second),
		Baseline:        20 * time.Minute,
		Window:          10 * time.Minute,
		TracesPerSecond: 0.2,
		Services:        8,
	}
}

// demoSeed was chosen for a clear story: the payment provider slows down behind checkout's breaker.
const demoSeed = 3

// Demo generates the demo incident with its window ending a minute ago, so
// that `--since 30m` finds it. Apart from that time base it is always the
// same incident.
func Demo() (*Incident, error) {
	return Generate(DemoConfig(time.Now().UTC().Add(-time.Minute)))
}
