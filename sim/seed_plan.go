package sim

import (
	"time"
)

// planSeed plans a seed system's own fault, as its seed tells it; it
// reports false for any other fault type.
func planSeed(r rng, g *graph, p *plan, faultType string) bool {
	sys := g.sys
	if sys == nil {
		return false
	}
	p.faultType = faultType
	switch faultType {
	case typeRegionAPI: // a provider's regional API fails: retries, then the provider:region breaker opens
		p.target = pick(r, sys.regionAPIs)
		p.share = 0.6 + 0.35*r.Float64()
	case typeD1Down: // D1 times out: the router logs it and falls back to the Durable Object
		p.target = sys.d1
		p.share = 0.5 + 0.4*r.Float64()
	case typeInstanceDown: // a region's instances stop answering; the health monitor marks them unhealthy
		p.target = pick(r, sys.instances)
		p.share = 0.8 + 0.2*r.Float64()
		for t, back := p.onset, 20*time.Second; t.Before(p.end); back = min(2*back, 4*time.Minute) {
			p.down = append(p.down, interval{t, t.Add(back)})
			t = t.Add(back + r.dur(3*time.Second, 10*time.Second))
		}
	case typeHolderAPI: // a third-party API some namespaces' jobs need slows down; holders fail their jobs
		p.target = pick(r, sys.holderDeps)
		p.share = 0.7 + 0.25*r.Float64()
	case typeHolderStage: // a stage service some namespaces' jobs need deploys a regression
		var used []*node
		for _, n := range sys.stages {
			if len(g.callers(n)) > 0 {
				used = append(used, n)
			}
		}
		p.target = pick(r, used)
		p.badOp = p.target.ops[0]
		p.share, p.ramp = 0.5+0.5*r.Float64(), 0
		deployPods(r, p)
	case typeNewLabel: // the classifier's new version answers a label the workflow never had
		p.target = sys.classifier
		p.newLabel = pick(r, []string{"issue_refund", "refund_request", "issue refund", "REFUND"})
		p.share, p.ramp = 0.25+0.45*r.Float64(), 0
		if r.chance(0.5) {
			rollOut(r, p, p.onset.Add(-r.dur(2*time.Second, 8*time.Second)))
			p.end = p.end.Add(time.Hour)
		} else {
			deployPods(r, p)
		}
	case typeModelSlow: // the model API slows down; the classifier and the drafter time out
		p.target = sys.model
		p.share = 0.6 + 0.35*r.Float64()
	case typeGatewayTimeout: // the card gateway slows down; payments time out, retry, dead-letter
		p.target = sys.gateway
		p.share = 0.7 + 0.25*r.Float64()
	case typePaymentPool: // the payment service's connection pool runs dry
		p.target = sys.payments
		p.poolTimeout = pick(r, []time.Duration{1000, 1500, 2000}) * time.Millisecond
		p.target.poolTimeout = p.poolTimeout
		for _, e := range g.callers(p.target) {
			e.timeout = max(e.timeout, p.poolTimeout+time.Second)
		}
	default:
		return false
	}
	if p.target == nil {
		panic("sim: seed fault " + faultType + " has no target in its system") // a builder's bug
	}
	return true
}

// deployPods switches the target's pods to the new version one by one,
// from a few seconds before onset, restarting each in place.
func deployPods(r rng, p *plan) {
	at := p.onset.Add(-r.dur(2*time.Second, 8*time.Second))
	for _, pd := range p.target.pods {
		pd.deployAt = at
		at = at.Add(r.dur(15*time.Second, 40*time.Second))
	}
	p.end = p.end.Add(time.Hour) // no rollback inside the window
}
