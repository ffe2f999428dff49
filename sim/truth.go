package sim

import (
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
)

// Truth is the answer key of an incident, as truth.json holds it.
type Truth struct {
	Scenario string `json:"scenario"`
	Source   string `json:"source"`
	Seed     int64  `json:"seed"`
	// Topology is the shape of the simulated system, one of Topologies.
	Topology  string    `json:"topology"`
	Window    Span      `json:"window"`
	Baseline  Span      `json:"baseline"`
	Onset     time.Time `json:"onset"`
	RootCause RootCause `json:"root_cause"`
	// FailedTraces maps every trace the fault made fail to its origin.
	FailedTraces map[schema.TraceID]TraceTruth `json:"failed_traces"`
	// ExtraFiles is empty: the baseline is in the case's own files.
	ExtraFiles []string `json:"extra_files"`
	// Services maps each service that logs to its log format.
	Services map[string]string `json:"services"`
}

// Span is a time range, From inclusive, To exclusive.
type Span struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// RootCause is where and what the fault was.
type RootCause struct {
	Service   string      `json:"service"`
	Kind      schema.Kind `json:"kind"`
	FaultType string      `json:"fault_type"`
}

// TraceTruth is the truth about one failed trace.
type TraceTruth struct {
	OriginService string `json:"origin_service"`
}

func (s *sim) truth() Truth {
	from := s.cfg.Start.Add(s.cfg.Baseline)
	t := Truth{
		Scenario:     scenarioName(s.cfg, s.p),
		Source:       "faultline/sim",
		Seed:         s.cfg.Seed,
		Topology:     s.cfg.Topology,
		Window:       Span{From: from, To: from.Add(s.cfg.Window)},
		Baseline:     Span{From: s.cfg.Start, To: from},
		Onset:        s.p.onset.Truncate(time.Millisecond),
		RootCause:    RootCause{Service: s.p.target.name, Kind: s.p.kind, FaultType: s.p.faultType},
		FailedTraces: make(map[schema.TraceID]TraceTruth, len(s.failed)),
		ExtraFiles:   []string{},
		Services:     map[string]string{},
	}
	for id := range s.failed {
		if s.p.kind == schema.KindNetworkDelay || s.p.kind == schema.KindCPUStarvation {
			if _, ok := s.first[id]; !ok {
				continue // its only error is a span left unexported: none appears in the data
			}
		}
		// The trace failed because of the fault, so the fault's target is
		// its origin, even when the target wrote no error of its own (a
		// delayed network, a starved CPU, a silent database): a caller's
		// timeout points at it.
		t.FailedTraces[id] = TraceTruth{OriginService: s.p.target.name}
	}
	for _, n := range s.g.services() {
		t.Services[n.name] = n.format.String()
	}
	return t
}

// scenarioName is sim-<kind>-<seed> for the first variant of a kind in the
// shop, the fault type for another variant, prefixed with the topology
// outside the shop: sim-edge-silent-db-12.
func scenarioName(cfg Config, p *plan) string {
	name := string(p.kind)
	if p.faultType != faultTypes(p.kind)[0] {
		name = p.faultType
	}
	if cfg.Topology != topoShop {
		name = cfg.Topology + "-" + name
	}
	return fmt.Sprintf("sim-%s-%d", name, cfg.Seed)
}
