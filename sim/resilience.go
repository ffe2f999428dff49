package sim

import (
	"time"
)

// policy sets the timeout, retries, breaker, bulkhead and fallback of a new
// edge by the kind of its target. Edges between the same two nodes share
// one breaker and one bulkhead.
func (b *builder) policy(e *edge) {
	r := b.r
	switch e.to.role {
	case roleDatabase:
		e.timeout, e.attempts = r.dur(1500*time.Millisecond, 3*time.Second).Round(500*time.Millisecond), 1
	case roleCache:
		e.timeout, e.attempts, e.fallback = pick(r, []time.Duration{50, 100, 100, 200})*time.Millisecond, 1, "database"
	case roleQueue:
		e.timeout, e.attempts, e.jitter = pick(r, []time.Duration{300, 500, 500, 1000})*time.Millisecond, r.between(2, 3), true
	case roleExternal:
		e.timeout, e.attempts = pick(r, []time.Duration{2, 3, 3, 5})*time.Second, r.between(1, 3)
	default:
		e.timeout, e.attempts = pick(r, []time.Duration{1000, 2000, 3000, 3000, 5000})*time.Millisecond, r.between(1, 3)
	}
	e.backoff = pick(r, []time.Duration{50, 100, 200, 500}) * time.Millisecond
	if e.to.role == roleExternal || e.to.role == roleService {
		e.jitter = r.chance(0.5)
		b.protect(e)
	}
}

// protect gives an edge to a service or third-party API its breaker,
// bulkhead and fallback, shared with the other edges between the same nodes.
func (b *builder) protect(e *edge) {
	key := [2]*node{e.from, e.to}
	p, ok := b.policies[key]
	if !ok {
		p = &edgePolicy{}
		pb, pk := 0.5, 0.2
		if e.to.role == roleExternal {
			pb, pk = 0.8, 0.4
		}
		if b.r.chance(pb) {
			p.breaker = newBreaker(camel(baseName(e.to)), b.r)
		}
		if b.r.chance(pk) {
			p.bulkhead = &bulkhead{name: camel(baseName(e.to)), size: b.r.between(3, 8) * max(1, int(b.cfg.TracesPerSecond/4))}
		}
		b.policies[key] = p
	}
	e.policy, e.breaker, e.bulkhead = p, p.breaker, p.bulkhead
	if e.from.role != roleEntry && b.r.chance(0.15) {
		e.fallback = pick(b.r, []string{"cached response", "default value", "empty result", "stale cached value"})
	}
}

// breakerState is a circuit breaker's state.
type breakerState uint8

const (
	closed breakerState = iota
	open
	halfOpen
)

func (s breakerState) String() string {
	return [...]string{"CLOSED", "OPEN", "HALF_OPEN"}[s]
}

// breaker is a count-based circuit breaker: it opens when at least half of
// the last ten calls failed (at least minCalls calls), stays open openFor,
// then lets probes through half-open.
type breaker struct {
	name      string
	keyed     bool // named by a key (provider:region), not by the dependency
	state     breakerState
	last      [10]bool // ring of recent outcomes, true = failure
	n, next   int
	minCalls  int
	openFor   time.Duration
	openedAt  time.Time
	probes    int
	faulty    bool // the failures that opened it came from the fault
	lastFault bool
}

func newBreaker(name string, r rng) *breaker {
	return &breaker{name: name, minCalls: r.between(5, 10), openFor: r.dur(20*time.Second, 40*time.Second).Round(time.Second)}
}

// transition is a state change a breaker logs.
type transition struct {
	from, to breakerState
}

// allow reports whether a call at t may go through, and the transition it caused.
func (b *breaker) allow(t time.Time) (bool, *transition) {
	if b.state != open {
		return true, nil
	}
	if t.Sub(b.openedAt) < b.openFor {
		return false, nil
	}
	b.state, b.probes = halfOpen, 0
	return true, &transition{open, halfOpen}
}

// record counts a call's result; it returns the transition it caused.
func (b *breaker) record(t time.Time, failed, fault bool) *transition {
	if failed {
		b.lastFault = fault
	}
	if b.state == halfOpen {
		return b.probe(t, failed)
	}
	b.last[b.next] = failed
	b.next = (b.next + 1) % len(b.last)
	b.n = min(b.n+1, len(b.last))
	if b.n < b.minCalls || b.failures()*2 < b.n {
		return nil
	}
	b.trip(t)
	return &transition{closed, open}
}

func (b *breaker) probe(t time.Time, failed bool) *transition {
	if failed {
		b.trip(t)
		return &transition{halfOpen, open}
	}
	b.probes++
	if b.probes < 3 {
		return nil
	}
	b.state, b.n, b.next = closed, 0, 0
	return &transition{halfOpen, closed}
}

func (b *breaker) trip(t time.Time) {
	b.state, b.openedAt, b.faulty = open, t, b.lastFault
}

func (b *breaker) failures() int {
	k := 0
	for i := 0; i < b.n; i++ {
		if b.last[i] {
			k++
		}
	}
	return k
}

// bulkhead caps the concurrent calls to one dependency.
type bulkhead struct {
	name     string
	size     int
	inflight []call
}

type call struct {
	end   time.Time
	fault bool
}

// full reports whether the bulkhead has no room at t, and whether the calls
// that fill it are the fault's.
func (b *bulkhead) full(t time.Time) (bool, bool) {
	live := b.inflight[:0]
	faulty := false
	for _, c := range b.inflight {
		if c.end.After(t) {
			live = append(live, c)
			faulty = faulty || c.fault
		}
	}
	b.inflight = live
	return len(live) >= b.size, faulty
}

// hold records a call that occupies the bulkhead until end.
func (b *bulkhead) hold(end time.Time, fault bool) {
	b.inflight = append(b.inflight, call{end, fault})
}
