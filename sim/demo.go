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

// SystemDemoConfig is the configuration of the demo incident of a seed
// system (Systems: routing, jobqueue, triage, payment) whose window ends at
// end: the system's first own fault (a provider region's API failing, a
// third-party API the holders' jobs need slowing down, the classifier's
// new label, the card gateway slowing down), twenty minutes of baseline, a
// ten-minute window, at one request a second.
func SystemDemoConfig(system string, end time.Time) (Config, bool) {
	topo, ok := SystemTopology(system)
	if !ok {
		return Config{}, false
	}
	f := seedFaults(topo)[0]
	return Config{
		Seed:            systemDemoSeeds()[topo],
		Topology:        topo,
		Fault:           f.Kind,
		FaultType:       f.Type,
		Start:           end.Add(-30 * time.Minute).Truncate(time.Second),
		Baseline:        20 * time.Minute,
		Window:          10 * time.Minute,
		TracesPerSecond: 1,
	}, true
}

// systemDemoSeeds were chosen for a clear story in each seed system.
func systemDemoSeeds() map[string]int64 {
	return map[string]int64{topoRouting: 90701, topoJobClaim: 90702, topoTriage: 90703, topoPayment: 90704}
}
