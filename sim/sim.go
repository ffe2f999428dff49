package sim

import (
	"math"
	"time"

	"github.com/faultline/faultline/schema"
)

// sim is the state of one simulation run.
type sim struct {
	cfg    Config
	r      rng
	g      *graph
	p      *plan
	recs   []schema.Record
	meta   []recMeta
	failed map[schema.TraceID]bool
	first  map[schema.TraceID]firstError
	nsb    map[string]*nsBreaker // jobclaim: the breakers by namespace
	later  []delivery            // payment: redeliveries not yet due, by time
}

// firstError is the earliest (true time) fault-caused error of a trace and
// the service that wrote it.
type firstError struct {
	at  time.Time
	svc string
}

// traceCtx is one trace being simulated.
type traceCtx struct {
	id     schema.TraceID
	spans  bool // its spans are exported
	failed bool
	ns     string // the namespace of a holder's job (jobclaim)
}

// scope is where a record is written: a pod of a service, within a trace
// and span (both empty for records outside any request).
type scope struct {
	tc   *traceCtx
	n    *node
	p    *pod
	span schema.SpanID
}

func newSim(cfg Config, r rng, g *graph, p *plan) *sim {
	est := int(cfg.TracesPerSecond*(cfg.Baseline+cfg.Window).Seconds()) * 32
	return &sim{cfg: cfg, r: r, g: g, p: p, failed: map[schema.TraceID]bool{}, first: map[schema.TraceID]firstError{},
		recs: make([]schema.Record, 0, est), meta: make([]recMeta, 0, est)}
}

// run plays the whole timeline: requests at the entry points and the
// records written outside requests.
func (s *sim) run() {
	end := s.cfg.Start.Add(s.cfg.Baseline + s.cfg.Window)
	s.background(s.cfg.Start, end)
	if s.cfg.TracesPerSecond == 0 {
		return
	}
	mean := float64(time.Second) / s.cfg.TracesPerSecond
	for t := s.cfg.Start; ; {
		t = t.Add(time.Duration(-math.Log(1-s.r.Float64()) * mean))
		if !t.Before(end) {
			s.redeliver(end)
			return
		}
		s.redeliver(t)
		s.request(t)
	}
}

// request simulates one trace entering at an entry point at t.
func (s *sim) request(t time.Time) {
	tc := &traceCtx{id: s.traceID(), spans: !s.r.chance(s.cfg.SpanlessShare)}
	n := pick(s.r, s.g.entries)
	o := pick(s.r, n.ops)
	tc.ns = o.ns
	s.serve(tc, n, o, t, "")
}

func (s *sim) traceID() schema.TraceID {
	if s.g.ids64 {
		return schema.TraceID("0000000000000000" + s.r.hexID(8))
	}
	return schema.TraceID(s.r.hexID(16))
}

func (s *sim) spanID() schema.SpanID { return schema.SpanID(s.r.hexID(8)) }

// markFailed records that the fault made trace tc fail with an error n
// wrote, known at true time at; written tells whether the error is a
// record of the incident (a span may be left unexported).
func (s *sim) markFailed(tc *traceCtx, n *node, at time.Time, written bool) {
	if tc == nil {
		return
	}
	if f, ok := s.first[tc.id]; written && (!ok || at.Before(f.at)) {
		s.first[tc.id] = firstError{at, n.name}
	}
	if tc.failed {
		return
	}
	tc.failed = true
	s.failed[tc.id] = true
}
