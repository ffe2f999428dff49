package runbookgen

import (
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// fixedReport is the incident every golden file is written for: one
// candidate of kind k in "payment", called by "checkout" from a web route.
func fixedReport(k schema.Kind) *rootcause.Report {
	from := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	return &rootcause.Report{
		Window:       rootcause.Window{From: from, To: from.Add(30 * time.Minute)},
		Traces:       1200,
		FailedTraces: 240,
		Candidates: []rootcause.Candidate{{
			ID: "cand-1", Rank: 1, Service: "payment", Operation: "POST /charge",
			Kind: k, Signature: "9f86d081884c7d65",
			Template: sampleTemplate(k),
			Score:    0.87, Traces: 180,
			FirstSeen: from.Add(4*time.Minute + 12*time.Second),
			Evidence:  []string{"explains 85% of the window's anomalous requests, each weighed by how unusual it is (failing traces that begin here 85%) [explained]", "first error 40s before any other service", "no failing downstream of its own"},
			ExampleTraces: []schema.TraceID{
				"4bf92f3577b34da6a3ce929d0e0e4736", "0af7651916cd43dd8448eb211c80319c",
				"b7ad6b7169203331b7ad6b7169203331", "ffffffffffffffffffffffffffffff01"},
			PointedFrom: []string{"checkout", "api-gateway"},
			EntryPoints: []string{"GET /api/cart/checkout"},
		}},
		Edges: []rootcause.Edge{
			{From: "checkout", To: "payment", Calls: 900, Errors: 180},
			{From: "payment", To: "payment-db", Calls: 900, Errors: 12},
		},
	}
}

// sampleTemplate is an error template typical of kind k.
func sampleTemplate(k schema.Kind) string {
	switch k {
	case schema.KindDBPoolExhaustion:
		return "timeout acquiring connection from pool after <*> ms (active=<*>, idle=<*>)"
	case schema.KindPoisonMessage:
		return "cannot process message <*>: unexpected field <*> (attempt <*> of 5)"
	case schema.KindRateLimit:
		return "gateway answered 429 Too Many Requests, retry after <*> s"
	case schema.KindResourceGC, schema.KindOOM:
		return "GC overhead limit exceeded: heap <*> MB of <*> MB"
	case schema.KindCircuitOpen:
		return "circuit breaker is OPEN for <*>"
	case schema.KindBadDeploy, schema.KindDeterministic:
		return "nil pointer dereference in <*> (version <*>)"
	default:
		return "call to gateway <*> exceeded <*> ms"
	}
}
