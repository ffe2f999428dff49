package correlate

import (
	"strings"

	"github.com/faultline/faultline/schema"
)

// ruleCalleeNamed: the callee of a failure is the name the record gives it
// explicitly, before the name of a URL's host. A caller's error line with
// remote.service=card-gateway and a URL on api.cardgateway.io is about
// card-gateway, a name that occurs in the data, not "cardgateway" made of
// the host. The names are read from the attributes, in this order:
// peer.service, remote.service, peer, server.address, net.peer.name,
// db.name, rpc.service, messaging.destination.name (see namedAttrs); then,
// in a log line's text, the same keys written key=value (a logfmt tail of
// a plain-text line); then the host of url.full or http.url. A port is
// dropped ("fx-rates-api:443"). A span is named by the semantic
// conventions' peer.service, server.address and net.peer.name only, as
// its span tree names its callee, unless no span is below it (a call to
// what leaves no spans): then every attribute names it, before its text
// (leafCallee).
//
// Left out, only the conventions' peer.service, server.address and
// net.peer.name name a callee, then a URL's host (conventionAttrs).
// Scenario: testdata/callee_named.txtar.
const ruleCalleeNamed = "callee_named"

// namedAttrs are the attributes that name a call's callee, explicit names
// first; a log line's own (remote.service, peer) as well as the semantic
// conventions'.
var namedAttrs = []string{schema.AttrPeerService, "remote.service", "peer", "server.address", "net.peer.name",
	"db.name", "rpc.service", "messaging.destination.name"}

// conventionAttrs are what names a callee without ruleCalleeNamed.
var conventionAttrs = []string{schema.AttrPeerService, "server.address", "net.peer.name"}

// calleeNaming is how a record names its callee: the attribute keys read,
// and whether a log's text is read for them written key=value.
type calleeNaming struct {
	keys []string
	text bool
}

var (
	byName       = calleeNaming{keys: namedAttrs, text: true}
	byConvention = calleeNaming{keys: conventionAttrs}
)

// naming is the callee naming of a trace's analysis.
func (o Options) naming() calleeNaming {
	if o.ruleOff(ruleCalleeNamed) {
		return byConvention
	}
	return byName
}

// hintFromAttrs names the callee a record's attributes point at by name
// (see ruleCalleeNamed), or the host of url.full / http.url. "" when none.
func hintFromAttrs(r *schema.Record) string { return hintBy(r, byName) }

// hintBy is hintFromAttrs with naming n.
func hintBy(r *schema.Record, n calleeNaming) string {
	if h := attrNamed(r, n); h != "" {
		return h
	}
	for _, k := range [...]string{"url.full", "http.url"} {
		if v := r.Attrs[k]; v != "" {
			if h := hostAfterScheme(strings.ToLower(v)); h != "" {
				return h
			}
		}
	}
	return ""
}

// attrNamed is the callee's name an attribute of n's keys gives it, else,
// for a log, its text as key=value; lowercase, without a port. "" when
// none.
func attrNamed(r *schema.Record, n calleeNaming) string {
	for _, k := range n.keys {
		if r.Type == schema.TypeSpan && k != schema.AttrPeerService && k != "server.address" && k != "net.peer.name" {
			continue
		}
		if v := dropPort(strings.ToLower(r.Attrs[k])); v != "" {
			return v
		}
	}
	if !n.text || r.Type != schema.TypeLog {
		return ""
	}
	for _, k := range n.keys {
		if v := valueInText(r.Body, k); v != "" {
			return v
		}
	}
	return ""
}

// valueInText reads "key=value" in a message (not part of a longer key:
// "peer=" is not read in "remote.peer="), the value a service-like name,
// lowercase, without a port; "" when absent.
func valueInText(body, key string) string {
	for from := 0; ; {
		i := strings.Index(body[from:], key+"=")
		if i < 0 {
			return ""
		}
		at := from + i
		from = at + len(key) + 1
		if at > 0 && (isLetter(body[at-1]) || isDigit(body[at-1]) || body[at-1] == '.' || body[at-1] == '_' || body[at-1] == '-') {
			continue
		}
		v := strings.TrimLeft(body[from:], "\"'")
		j := 0
		for j < len(v) && (isLetter(v[j]) || isDigit(v[j]) || strings.IndexByte(".-_:", v[j]) >= 0) {
			j++
		}
		if name := dropPort(strings.ToLower(strings.TrimRight(v[:j], ".-_:"))); len(name) >= 2 {
			return name
		}
	}
}

// dropPort cuts a ":port" off a name or an IPv4 address.
func dropPort(s string) string {
	if i := strings.LastIndexByte(s, ':'); i > 0 && i < len(s)-1 && strings.IndexFunc(s[i+1:], func(c rune) bool { return c < '0' || c > '9' }) < 0 {
		return s[:i]
	}
	return s
}
