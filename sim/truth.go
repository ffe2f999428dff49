package sim

import (
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
)

// Truth is the answer key of an incident, as truth.json holds it.
type Truth struct {
	Scenario  string    `json:"scenario"`
	Source    string    `json:"source"`
	Seed      int64     `json:"seed"`
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
		Scenario:     fmt.Sprintf("sim-%s-%d", s.p.kind, s.cfg.Seed),
		Source:       "faultline/sim",
		Seed:         s.cfg.Seed,
		Window:       Span{From: from, To: from.Add(s.cfg.Window)},
		Baseline:     Span{From: s.cfg.Start, To: from},
		Onset:        s.p.onset.Truncate(time.Millisecond),
		RootCause:    RootCause{Service: s.p.target.name, Kind: s.p.kind, FaultType: s.p.faultType},
		FailedTraces: make(map[schema.TraceID]TraceTruth, len(s.failed)),
		ExtraFiles:   []string{},
		Services:     map[string]string{},
	}
	for id := range s.failed {
		t.FailedTraces[id] = TraceTruth{OriginService: s.p.target.name}
	}
	for _, n := range s.g.services() {
		t.Services[n.name] = n.format.String()
	}
	return t
}
