package rootcause

import (
	"slices"
	"strings"
)

// ruleAboutOther: a warning or error line that names another service of the
// window as a word ("fallback cache miss for classifier, serving default
// value", "retrying request to blobvault-api") is about that service, not
// about its writer's own work. It is neither a new error of the writer's own
// (new_errors) nor a change in the writer's behaviour (behaviour): a caller
// that starts taking fallbacks because its dependency throttles it did not
// change; the dependency did, and the lines that name it are its evidence,
// which the per-trace walk and the pointers already weigh.
//
// Condition: the template's first line names, as a whole word or by its
// client class ("PricingApiClient": clientClasses), a service of the
// window other than its writer (one that wrote records, or that a call's
// peer.service, remote.service or peer attribute names), of at least
// minAboutName letters.
// Constants: minAboutName.
// Test: TestAboutOther; scenarios testdata/about_other*.txtar.
const ruleAboutOther = "about_other"

// minAboutName is the shortest service name a line is taken to name: a
// shorter one ("db", "api") is a common word as often as a name.
const minAboutName = 4

// aboutOther reports whether ts, a template of service svc, names another
// service of the period. It is computed once per template, after the
// period's services are all known.
func (p *period) aboutOther(svc string, ts *templateStat) bool {
	if p.aboutOff || ts.sample == "" {
		return false
	}
	if ts.about == 0 {
		ts.about = 1
		text := strings.ToLower(ts.sample)
		classes := clientClasses(ts.sample)
		for name := range p.seenNames {
			if name == svc || len(name) < minAboutName {
				continue
			}
			n := strings.ToLower(name)
			if namesWord(text, n) || len(classes) > 0 && slices.Contains(classes, unpunctuated.Replace(n)) {
				ts.about = 2
				break
			}
		}
	}
	return ts.about == 2
}

// unpunctuated drops what a service name has that a class name cannot.
var unpunctuated = strings.NewReplacer("-", "", "_", "", ".", "")

// clientClasses are the names a text's client classes give their
// services, lowercase, without punctuation: "PricingApiClient" names
// pricingapi (pricing-api), "LlmGatewayClient" llmgateway.
func clientClasses(text string) []string {
	var out []string
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		if base, ok := strings.CutSuffix(tok, "Client"); ok && base != "" && base[0] >= 'A' && base[0] <= 'Z' {
			out = append(out, strings.ToLower(base))
		}
	}
	return out
}

// namesWord reports whether name occurs in text as a whole word: not inside
// a longer name (letters, digits, '-', '_' or '.' on either side, a '.'
// only when a letter follows it, so that "for classifier." names it).
func namesWord(text, name string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		before := i == 0 || !nameByte(text[i-1])
		after := end == len(text) || !nameByte(text[end]) ||
			text[end] == '.' && (end+1 == len(text) || !isLetter(text[end+1]))
		if before && after {
			return true
		}
		from = i + 1
	}
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}
