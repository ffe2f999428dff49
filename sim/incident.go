package sim

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/faultline/faultline/schema"
)

// Incident is one simulated incident: every record written from the start of
// the baseline to the end of the window, and the truth about it.
type Incident struct {
	// Config is the configuration it was generated from, defaults filled in
	// and the fault chosen.
	Config Config
	// Records are the log records and spans, ordered by Time as the hosts
	// wrote it (clock skew included). Attrs maps may be shared between
	// records: treat them as read-only.
	Records []schema.Record
	// Truth is what truth.json holds.
	Truth Truth

	g    *graph
	p    *plan
	meta []recMeta // parallel to Records
}

// recMeta is what the simulator knows about a record beyond the Record:
// for writing it (who wrote it, span kind) and for checking the truth.
type recMeta struct {
	at    time.Time // true time (no skew)
	node  *node
	pod   *pod
	kind  spanKind
	fault bool    // the fault caused it
	cause failure // logs: the failed call the record reports, if any
}

// spanKind is the OpenTelemetry span kind.
type spanKind uint8

const (
	kindServer spanKind = iota
	kindClient
	kindProducer
	kindConsumer
	kindInternal
)

// Generate simulates one incident. The same Config always gives the same
// incident.
func Generate(cfg Config) (*Incident, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("cannot simulate: %w", err)
	}
	r := newRNG(cfg.Seed)
	if own := seedFaults(cfg.Topology); cfg.Fault == "" && own != nil {
		f := pick(r, own)
		cfg.Fault, cfg.FaultType = f.Kind, f.Type
	}
	if cfg.Fault == "" {
		cfg.Fault = pick(r, FaultKinds())
	}
	if cfg.FaultType == "" {
		cfg.FaultType = faultTypes(cfg.Fault)[0]
	}
	g := buildGraph(r, cfg)
	s := newSim(cfg, r, g, planFault(r, g, cfg, cfg.Fault))
	s.run()
	inc := &Incident{Config: cfg, g: g, p: s.p}
	inc.Records, inc.meta = sortRecords(s.recs, s.meta)
	inc.Truth = s.truth()
	return inc, nil
}

// sortRecords orders records by logged time, ties in generation order.
func sortRecords(recs []schema.Record, meta []recMeta) ([]schema.Record, []recMeta) {
	type key struct {
		ns int64
		i  int32
	}
	keys := make([]key, len(recs))
	for i := range recs {
		keys[i] = key{recs[i].Time.UnixNano(), int32(i)}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.ns != b.ns {
			return cmp.Compare(a.ns, b.ns)
		}
		return cmp.Compare(a.i, b.i)
	})
	outR := make([]schema.Record, len(recs))
	outM := make([]recMeta, len(recs))
	for i, k := range keys {
		outR[i], outM[i] = recs[k.i], meta[k.i]
	}
	return outR, outM
}

// ServiceFormat names the log format of each service that logs, for
// documentation and tests: service name → format name.
func (inc *Incident) ServiceFormat() map[string]string {
	out := map[string]string{}
	for _, n := range inc.g.services() {
		out[n.name] = n.format.String()
	}
	return out
}
