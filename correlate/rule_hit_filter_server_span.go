package correlate

import "github.com/faultline/faultline/schema"

// ruleHitServerSpan leaves out spans that name no peer.
//
// Condition: the record is a span without a peer attribute (peer.service,
// server.address, a URL; see hintFromAttrs): the failed status of the span
// serving a request says nothing of why it failed, a client span's peer
// does.
//
// Constants: none.
// Test: TestRules/hit_filter_server_span (storeServerSpan).
const ruleHitServerSpan = "hit_filter_server_span"

func skipServerSpan(c *hitCandidate, _ *causeScan) bool {
	return c.rec.Type == schema.TypeSpan && hintFromAttrs(c.rec) == ""
}
