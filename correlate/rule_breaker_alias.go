package correlate

import "fmt"

// ruleBreakerAlias names the suspect as its callers do.
//
// Condition: the lookbacks found calls to the dependency that name it
// differently (peer.service, a URL's host: the alias), and the suspect
// after the hop is that dependency under another spelling (sameService):
// the suspect takes the callers' name, unless it is shorter (a host's
// "geo-vendor" for "geo-vendor-api": the fuller name stays, as the
// incident analysis spells a dependency).
//
// Constants: none.
// Test: TestRules/breaker_alias (storeAlias).
const ruleBreakerAlias = "breaker_alias"

func renameByCallers(res *Result, h *hop) {
	if a := h.tr.alias; a != "" && a != res.Suspect.Service && len(a) >= len(res.Suspect.Service) && sameService(a, res.Suspect.Service) {
		res.Suspect.Reason += fmt.Sprintf("; calls to %s name it %s", res.Suspect.Service, a) + ruleTag(ruleBreakerAlias)
		res.Suspect.Service = a
	}
}
