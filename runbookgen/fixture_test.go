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
			Template:  "call to gateway <*> exceeded <*> ms",
			Score:     0.87, Traces: 180,
			FirstSeen: from.Add(4*time.Minute + 12*time.Second),
			Evidence:  []string{"first error 40s before any other service", "no failing downstream of its own"},
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
