package correlate

import "fmt"

// ruleBreakerAddress names an address by the breaker that guards it.
//
// Condition: the hop settled on an address (the tripping traces failed
// connecting to 10.1.113.13:8080, which no span or line names), and the
// breaker's service's own breaker lines of the lookback name one
// dependency only (lead.guards: "circuit 'indexerSrv' opened"): the
// breaker that opened on failures at the address guards it, so the
// address is that dependency's. The suspect takes its name.
//
// The incident analysis (rootcause) names addresses its votes give the
// same way, through AddressGuard.
//
// Constants: none.
// Test: TestRules/breaker_address (storeBreakerAddress).
const ruleBreakerAddress = "breaker_address"

func nameAddressByGuard(res *Result, h *hop) {
	if !isIPv4(h.tr.suspect) || res.Suspect.Service != h.tr.suspect {
		return
	}
	if g := AddressGuard(h.lead.guards); g != "" {
		res.Suspect.Reason += fmt.Sprintf("; %s's breaker lines name %s (%d of them), whose calls failed at %s",
			h.lead.dep, g, h.lead.guards[g], h.tr.suspect) + ruleTag(ruleBreakerAddress)
		res.Suspect.Service = g
	}
}

// AddressGuard is the condition of breaker_address on counts already
// made: of the dependencies a service's breaker lines name (with how many
// lines), the one an address it failed at belongs to, when they name one
// only; "" otherwise.
func AddressGuard(guards map[string]int) string {
	if len(guards) != 1 {
		return ""
	}
	for g := range guards {
		if !isIPv4(g) {
			return g
		}
	}
	return ""
}
