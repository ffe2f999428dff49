package correlate

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// How a failure's target was found, as reasons quote it.
const (
	viaSpanTree  = "span tree"
	viaAttribute = "attribute"
	viaText      = "message"
)

// hintFromText names the callee a message points at: the host of a URL,
// or the token after "calling", "call to", "No instances available for",
// a breaker's or bulkhead's name, ... "" when none. The result is
// lowercase.
func hintFromText(l *lowered) string {
	addr := ""
	// try reads the callee's name after marker m at its first place;
	// an address names no service, and is kept for the case that
	// nothing else does ("dial tcp 10.0.0.7:8080" after "calling
	// payment").
	try := func(m string) (string, int) {
		i := l.index(m)
		if i < 0 {
			return "", -1
		}
		rest := l.s[i+len(m):]
		if h := hostAfterScheme(rest[:min(len(rest), 200)]); h != "" && urlNear(rest) {
			return h, i
		}
		if tok := nameToken(rest); tok != "" {
			if composite(rest, tok) && strings.Contains(m, "circuit") {
				// A breaker kept for "provider:region" names no
				// dependency: it is keyed (breakerKey).
				return "", -1
			}
			if isIPv4(tok) {
				addr = cmp.Or(addr, tok)
				return "", -1
			}
			return fullName(l, tok), i
		}
		return "", -1
	}
	// A call's own wording names its callee. The first of them in the
	// text names the callee the failure is about ("failed to call
	// instances-eu: breaker open, not calling eu.instances.internal");
	// later ones add details.
	name, found := "", -1
	for _, m := range [...]string{
		"no instances available for ", "calling ", "call to ", "to call ", "request to ", "requesting ",
		"connect to ", "connecting to ", "connection to ", "invoking ", "query to ",
	} {
		if n, i := try(m); i >= 0 && (found < 0 || i < found) {
			name, found = n, i
		}
	}
	if found >= 0 {
		return name
	}
	// Else, most specific first: a breaker's or bulkhead's label, which
	// is often short for the callee's name ("calling fraud-svc:
	// CircuitBreaker 'fraud' is OPEN" names fraud-svc above), then the
	// wording of a refused connection or of an answer.
	for _, m := range [...]string{
		"circuitbreaker '", "circuit breaker '",
		"circuitbreaker \"", "circuit breaker \"", "circuitbreaker ", "circuit breaker ",
		"circuit '", "circuit \"",
		"bulkhead '", "bulkhead \"", "bulkhead ", "retry '", "retry \"", "timelimiter '", "fallback for ", "upstream ",
		"dial tcp ", "econnrefused ",
		// Python's urllib3 (under requests): "HTTPConnectionPool(host='x',
		// port=80): Read timed out", "Max retries exceeded" and the like.
		"connectionpool(host='", "connectionpool(host=\"",
		// "unexpected status 503 Service Unavailable from payment"
		"internal server error from ", "service unavailable from ", "bad gateway from ",
		"gateway timeout from ", "too many requests from ", "not found from ", "bad request from ",
	} {
		if n, i := try(m); i >= 0 {
			return n
		}
	}
	if i := l.index("://"); i >= 0 {
		if h := hostAfterScheme(l.s[i:min(len(l.s), i+200)]); h != "" && (!isIPv4(h) || addr == "") {
			return h
		}
	}
	return addr
}

// fullName prefers the host of a URL in the text to a label that is
// short for it: a breaker or a retry named "identityProvider" guarding
// calls to https://api.identity-provider.example.com. A label that says
// more than the host's name keeps: "failed to call geo-vendor-api" on
// https://api.geo-vendor.example.com names geo-vendor-api, as its callers
// know it.
func fullName(l *lowered, tok string) string {
	if i := l.index("://"); i >= 0 {
		h := hostAfterScheme(l.s[i:min(len(l.s), i+200)])
		if h != "" && h != tok && !isIPv4(h) && sameService(externalName(h), tok) &&
			len(alnum(tok)) <= len(alnum(externalName(h))) {
			return h
		}
	}
	return tok
}

// urlNear reports whether a URL starts within the first bytes of b
// ("calling http://payment:8080/..." names the URL's host).
func urlNear(b string) bool {
	i := strings.Index(b, "://")
	return i >= 0 && i < 12
}

// hostAfterScheme returns the host of the first URL in s ("" when none).
func hostAfterScheme(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return ""
	}
	h := s[i+3:]
	if at := strings.IndexByte(h, '@'); at >= 0 && at < strings.IndexAny(h+"/", "/") {
		h = h[at+1:]
	}
	end := strings.IndexAny(h, ":/?#\"' ,;)]>\n")
	if end >= 0 {
		h = h[:end]
	}
	return strings.Clone(h)
}

// composite reports whether the name tok that nameToken read from rest is
// the first part of a composite key such as "gcp:europe-west4": a colon
// and then a letter, not a port.
func composite(rest, tok string) bool {
	i := strings.Index(rest, tok)
	if i < 0 {
		return false
	}
	rest = rest[i+len(tok):]
	return len(rest) >= 2 && rest[0] == ':' && isLetter(rest[1])
}

// nameToken reads a service-like name: letters, digits, '.', '-', '_'.
// Common words that are not names give "".
func nameToken(b string) string {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\'' || b[i] == '"' || b[i] == '[' || b[i] == '(') {
		i++
	}
	j := i
	for j < len(b) && (isLetter(b[j]) || isDigit(b[j]) || b[j] == '.' || b[j] == '-' || b[j] == '_') {
		j++
	}
	tok := strings.TrimRight(b[i:j], ".-_")
	if len(tok) < 2 || isStopword(tok) {
		return ""
	}
	return strings.Clone(tok)
}

func isStopword(s string) bool {
	switch s {
	case "the", "a", "an", "remote", "server", "service", "backend", "upstream", "downstream",
		"dependency", "api", "endpoint", "host", "external", "database", "db", "it", "this",
		"that", "method", "function", "failed", "with", "for", "from", "to", "is", "was",
		"call", "calls", "request", "requests", "connection", "response", "error", "timed",
		"timeout", "of", "on", "in", "at", "and", "or", "not", "has", "had", "full", "rejected":
		return true
	}
	return false
}

// resolveHint maps a hinted name onto a service of the trace: the same
// name in any case, the same letters and digits ("paymentService" and
// "payment-service"), the first label of a DNS name, or a pod name that
// starts with the service's name. A hint that matches no service is kept
// as given: an external dependency such as a third-party API.
func resolveHint(t *Trace, hint string) string {
	if hint == "" {
		return ""
	}
	label := hint
	if i := strings.IndexByte(hint, '.'); i > 0 && !isIPv4(hint) {
		label = hint[:i]
	}
	nh, nl := alnum(hint), alnum(label)
	best := ""
	for i := range t.svcs {
		name := t.svcs[i].name
		ns := alnum(name)
		switch {
		case strings.EqualFold(name, hint), strings.EqualFold(name, label):
			return name
		case ns != "" && (ns == nh || ns == nl):
			return name
		case len(ns) >= 4 && len(nl) >= 4 && samePrefix(nl, ns):
			if len(name) > len(best) {
				best = name
			}
		}
	}
	if best != "" {
		return best
	}
	if isIPv4(hint) {
		if peer := peerAtAddress(t, hint); peer != "" {
			return resolveHint(t, peer)
		}
	}
	return externalName(hint)
}

// peerAtAddress names the peer of a client span of the trace whose error
// message gives addr ("connect ECONNREFUSED 10.1.63.206:8080" on a span to
// peer.service promotion): the service behind an address a log line
// names. Lacking such a span, the callee a failure line names beside the
// same address. "" when nothing says.
func peerAtAddress(t *Trace, addr string) string {
	if p, ok := t.peers[addr]; ok {
		return p
	}
	if t.peers == nil {
		t.peers = map[string]string{}
	}
	p := scanPeerAtAddress(t, addr)
	t.peers[addr] = p
	return p
}

// scanPeerAtAddress reads the trace for peerAtAddress.
func scanPeerAtAddress(t *Trace, addr string) string {
	named := ""
	for i := range t.recs {
		r := &t.recs[i]
		if !MentionsAddress(r.Body, addr) {
			continue
		}
		if r.Type == schema.TypeSpan {
			if p := hintFromAttrs(r); p != "" && p != addr && !isIPv4(p) {
				return p
			}
			continue
		}
		if named == "" && r.Service != "" {
			// A line that names the callee beside its address ("retrying
			// request to shipping-svc ... dial tcp 10.3.225.155:50051").
			if _, p := classifyWithHint(r, true); p != "" && p != addr && !isIPv4(p) {
				named = p
			}
		}
	}
	return named
}

// externalName names a dependency outside the trace by its host: the
// domain it is registered under for a public name ("api.stripe.com" and
// "files.stripe.com" are stripe; "api.email-provider.example.com" is
// email-provider, example.com being a documentation domain), the first
// label that is not a generic one for a cluster-internal name
// ("payment.default.svc.cluster.local" is payment). Addresses and plain
// names are kept.
func externalName(host string) string {
	if strings.IndexByte(host, '.') < 0 || isIPv4(host) {
		return host
	}
	labels := strings.Split(host, ".")
	switch labels[len(labels)-1] {
	case "local", "internal", "svc", "cluster", "lan", "corp", "intranet":
		for _, l := range labels[:len(labels)-1] {
			switch l {
			case "", "api", "www", "svc", "default", "cluster", "internal":
				continue
			}
			return l
		}
		return host
	}
	labels = labels[:len(labels)-1] // the top-level domain
	for len(labels) > 1 {
		switch labels[len(labels)-1] {
		case "example", "co", "com", "net", "org", "gov", "ac", "edu":
			labels = labels[:len(labels)-1]
			continue
		}
		break
	}
	if l := labels[len(labels)-1]; l != "" {
		return l
	}
	return host
}

// samePrefix reports whether two names, letters and digits only, name
// one service: one begins the other and what the longer adds is generic
// ("shipping" and "shipping-service", "inventory" and its pod
// "inventory-7d9f8c-x2x1"), not a name of its own ("payment" and
// "payment-provider-api" are two services).
func samePrefix(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	return strings.HasPrefix(a, b) && genericRest(a[len(b):])
}

// genericRest reports whether the rest of a name after a service's name
// says nothing of its own: words such as "service", "api", "svc" (any
// number of them), or an instance suffix with digits (a pod's hash).
func genericRest(rest string) bool {
	for rest != "" {
		if strings.ContainsAny(rest, "0123456789") {
			return true
		}
		found := false
		for _, w := range [...]string{"service", "svc", "api", "app", "server", "srv", "backend", "web", "http", "grpc", "rpc", "worker", "client"} {
			if strings.HasPrefix(rest, w) {
				rest, found = rest[len(w):], true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// NameKey is how two spellings of a service's name compare: lowercased,
// everything but letters and digits dropped ("identity-provider" and
// "IdentityProvider" are "identityprovider").
func NameKey(s string) string { return alnum(s) }

// Abbreviates reports whether label is short for name: at least two
// letters or digits that begin name's ("geo" for geo-api).
func Abbreviates(label, name string) bool {
	l := alnum(label)
	return len(l) >= 2 && strings.HasPrefix(alnum(name), l)
}

// alnum lowercases s and drops everything but letters and digits.
func alnum(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case 'a' <= c && c <= 'z', isDigit(c):
			b.WriteByte(c)
		}
	}
	return b.String()
}

// IsAddress reports whether a name is an IPv4 address rather than a
// service's or host's name.
func IsAddress(s string) bool { return isIPv4(s) }

// MentionsAddress reports whether msg gives the address addr whole, not as
// a part of a longer one (10.1.63.2 in 10.1.63.206).
func MentionsAddress(msg, addr string) bool {
	at := func(k int) byte {
		if k < 0 || k >= len(msg) {
			return 0
		}
		return msg[k]
	}
	for i := 0; ; {
		j := strings.Index(msg[i:], addr)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(addr)
		before, after := at(start-1), at(end)
		if !isDigit(before) && before != '.' && !isDigit(after) && !(after == '.' && isDigit(at(end+1))) {
			return true
		}
		i = start + 1
	}
}

func isIPv4(s string) bool {
	dots := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '.':
			dots++
		case !isDigit(s[i]):
			return false
		}
	}
	return dots == 3
}

// pointer finds the service an entry's failure points at and how:
// the callee of the failing call in the span tree (see calleeNode), else
// the callee its attributes or text name, else the peer of a failed
// outbound call of the same service under it (see localPeer). "" when
// nothing points anywhere.
func pointer(t *Trace, e int32) (string, string) {
	if c := calleeNode(t, e); c >= 0 {
		return t.svcs[t.nodes[c].svc].name, viaSpanTree
	}
	if tgt, via := t.hint(e); tgt != "" {
		return tgt, via
	}
	if tgt, via := localPeer(t, e); tgt != "" {
		return tgt, via
	}
	return earlierInSpan(t, e)
}

// earlierInSpan is the callee named by the latest earlier failure signal
// of the same service in the same span: "giving up after 3 attempts"
// names no callee, but the retries logged before it in that request did.
// An open breaker or a full bulkhead made no call and names nothing for
// what follows it (the bare 503 it answered). "" for a fast failure, and
// for a record outside any span.
func earlierInSpan(t *Trace, e int32) (string, string) {
	n := t.ents[e].node
	if n < 0 || isFastFailure(t.ents[e].class) {
		return "", ""
	}
	if t.named == nil {
		indexNamed(t)
	}
	list := t.named[spanService{n, t.ents[e].svc}]
	at := t.eventAt(e)
	// The earliest of the latest failures at or before at, e excepted.
	k, _ := slices.BinarySearchFunc(list, at, func(i int32, at time.Time) int {
		if t.eventAt(i).After(at) {
			return 1
		}
		return -1
	})
	for k > 0 {
		j := k - 1
		for j > 0 && t.eventAt(list[j-1]).Equal(t.eventAt(list[k-1])) {
			j--
		}
		for _, i := range list[j:k] {
			if i != e {
				return t.hint(i)
			}
		}
		k = j
	}
	return "", ""
}

// indexNamed fills t.named: the failures that are no fast failure and
// name a callee other than their own service, per span and service, by
// event time (ties in entry order).
func indexNamed(t *Trace) {
	t.named = map[spanService][]int32{}
	for i := range t.ents {
		o := &t.ents[i]
		if o.node < 0 || o.fail < 0 || isFastFailure(o.class) || t.fails[o.fail].target == "" ||
			t.fails[o.fail].target == t.svcs[o.svc].name {
			continue
		}
		key := spanService{o.node, o.svc}
		t.named[key] = append(t.named[key], int32(i))
	}
	for _, list := range t.named {
		slices.SortStableFunc(list, func(a, b int32) int { return t.eventAt(a).Compare(t.eventAt(b)) })
	}
}

// localPeer is the callee of a failed outbound call the service made
// while serving the request an entry belongs to: the hint of a failing
// span of the same service below the entry's span (a client span whose
// peer timed out). "" when there is none.
func localPeer(t *Trace, e int32) (string, string) {
	n := t.ents[e].node
	if n < 0 {
		return "", ""
	}
	own := t.ents[e].svc
	var walk func(int32) (string, string)
	walk = func(p int32) (string, string) {
		for c := t.nodes[p].first; c >= 0; c = t.nodes[c].next {
			cn := &t.nodes[c]
			if cn.svc != own {
				continue
			}
			if cn.ent >= 0 && cn.failed && t.ents[cn.ent].fail >= 0 {
				if tgt, via := t.hint(cn.ent); tgt != "" && tgt != t.svcs[own].name {
					return tgt, via
				}
			}
			if tgt, via := walk(c); tgt != "" {
				return tgt, via
			}
		}
		return "", ""
	}
	return walk(n)
}

// calleeNode picks the span-tree callee of an entry's failure: among the
// nearest descendants of its span on another service, the one the record's
// hint names, else one with an error, else one with a failure signal,
// else, for a timeout only, the longest. -1 when its span has no such
// descendant, when the record names a callee that is none of them, and
// for a fast failure (an open breaker, a full bulkhead), which made no
// call.
func calleeNode(t *Trace, e int32) int32 {
	n := t.ents[e].node
	if n < 0 || isFastFailure(t.ents[e].class) {
		return -1
	}
	own := t.ents[e].svc
	best, bestScore := int32(-1), -1.0
	ownFailed := false // a call of its own below the span failed, to a dependency it names
	var walk func(int32)
	walk = func(p int32) {
		for c := t.nodes[p].first; c >= 0; c = t.nodes[c].next {
			cn := &t.nodes[c]
			if cn.svc == own {
				if cn.failed && cn.first < 0 && cn.ent >= 0 && cn.ent != e {
					if tgt, _ := t.hint(cn.ent); tgt != "" && tgt != t.svcs[own].name {
						ownFailed = true
					}
				}
				walk(c)
				continue
			}
			if s := calleeScore(t, e, c); s > bestScore {
				best, bestScore = c, s
			}
		}
	}
	walk(n)
	if best >= 0 {
		// The callee a failure names itself (the peer of the failed call,
		// the host of its URL) beats the span tree, whose other calls may
		// have failed for reasons of their own.
		bn := &t.nodes[best]
		if tgt, _ := t.hint(e); tgt != "" && tgt != t.svcs[bn.svc].name {
			return -1
		}
		if !bn.subFailed && !bn.signal || answeredWell(t, best) {
			// Only a timeout blames a callee that answered: it was slow.
			// Not when a call of the service's own under the timed-out
			// span failed (a query to a database that leaves no spans):
			// that call is what the time went to.
			if k := t.ents[e].class; k != schema.KindTimeout && k != schema.KindDependencyTimeout || ownFailed {
				return -1
			}
		}
	}
	return best
}

// isFastFailure reports whether a failure kind is a refusal made without
// calling the dependency (an open breaker, a full bulkhead): the spans
// under it are other calls, and say nothing about the dependency.
func isFastFailure(k schema.Kind) bool {
	return k == schema.KindCircuitOpen || k == schema.KindBulkheadFull
}

// calleeScore ranks a candidate callee node: named by the hint, then
// failed, then signalled, then by duration (in seconds, below 1e6).
func calleeScore(t *Trace, e, c int32) float64 {
	cn := &t.nodes[c]
	s := min(float64(cn.end-cn.start)/1e9, 1e5)
	if tgt, _ := t.hint(e); tgt != "" && t.svcs[cn.svc].name == tgt {
		s += 4e6
	}
	if (cn.subFailed || cn.signal) && answeredWell(t, c) {
		// What it logged, it handled (callee_succeeded).
		if !slices.Contains(t.answered, cn.svc) {
			t.answered = append(t.answered, cn.svc)
		}
		return s
	}
	if cn.subFailed {
		s += 2e6
	} else if cn.signal {
		s += 1e6
	}
	return s
}

// NamesHost reports whether text gives a host whose name as a dependency
// outside the trace is label ("https://api.forge.example.com/repos" names
// forge).
func NamesHost(text, label string) bool { return hostNamedAs(text, label) != "" }
