package sim

import (
	"time"

	"github.com/faultline/faultline/schema"
)

// plan is the injected fault: where, when, how strong, and the schedules
// (pauses, down times, kills) that some kinds follow.
type plan struct {
	kind       schema.Kind
	faultType  string
	target     *node
	onset, end time.Time // true times; the fault acts in [onset, end)
	ramp       time.Duration
	share      float64 // share of affected requests at full strength

	badOp       *op           // bad-deploy: the operation the regression breaks
	poolTimeout time.Duration // db-pool-exhaustion: the pool's acquire timeout
	retryAfter  time.Duration // rate-limit
	visibility  time.Duration // poison-message: redelivery delay
	maxReceive  int           // poison-message: receives before the DLQ
	pauses      []interval    // resource-gc and oom: stop-the-world pauses
	down        []interval    // connection-refused: the service is down (crash loop)
	kills       [][]time.Time // oom: per pod, the OOM kills
	restart     time.Duration // oom: how long a killed pod takes to serve again

	delay    time.Duration // network-delay: the extra round trip at full strength
	delayPod int           // network-delay: the slowed pod's index; -1 every pod
	slowdown float64       // cpu-starvation: the factor on the service's own work at full strength
	badEdge  *edge         // silent bad deploy: the call the new version gets wrong
	badField string        // silent bad deploy: the field it leaves out
	oldPods  []*pod        // silent bad deploy: the pods the new ones replace
	newLabel string        // classifier-new-label: the answer the new version gives
}

type interval struct{ from, to time.Time }

// intensity is the probability that a request at t is affected.
func (p *plan) intensity(t time.Time) float64 {
	if t.Before(p.onset) || !t.Before(p.end) {
		return 0
	}
	f := 1.0
	if d := t.Sub(p.onset); p.ramp > 0 && d < p.ramp {
		f = 0.2 + 0.8*float64(d)/float64(p.ramp)
	}
	return f * p.share
}

// active reports whether the fault acts at t.
func (p *plan) active(t time.Time) bool { return !t.Before(p.onset) && t.Before(p.end) }

// is reports whether the fault is of kind k at node n.
func (p *plan) is(k schema.Kind, n *node) bool { return p.kind == k && p.target == n }

// pauseAt returns how long a request arriving at n at t waits for a pause to end.
func (p *plan) pauseAt(n *node, t time.Time) time.Duration {
	if p.target != n {
		return 0
	}
	for _, iv := range p.pauses {
		if !t.Before(iv.from) && t.Before(iv.to) {
			return iv.to.Sub(t)
		}
		if iv.from.After(t) {
			break
		}
	}
	return 0
}

// isDown reports whether the whole service is down at t (crash loop).
func (p *plan) isDown(n *node, t time.Time) bool {
	if p.target != n {
		return false
	}
	for _, iv := range p.down {
		if !t.Before(iv.from) && t.Before(iv.to) {
			return true
		}
	}
	return false
}

// podState tells whether pod i of the target refuses connections at t
// (killed, and still in the endpoints for drain), is gone from the
// endpoints (restarting), or is killed within the next horizon (the request
// in flight is reset at that time).
func (p *plan) podState(n *node, i int, t time.Time, horizon time.Duration) (refuses, gone bool, killAt time.Time) {
	if p.target != n || p.kills == nil {
		return false, false, time.Time{}
	}
	const drain = 4 * time.Second
	for _, k := range p.kills[i] {
		switch {
		case !t.Before(k) && t.Before(k.Add(drain)):
			return true, false, time.Time{}
		case !t.Before(k) && t.Before(k.Add(p.restart)):
			return false, true, time.Time{}
		case k.After(t) && k.Sub(t) < horizon:
			return false, false, k
		}
	}
	return false, false, time.Time{}
}
