package correlate

import (
	"github.com/faultline/faultline/patterns"
	"github.com/faultline/faultline/schema"
)

// maxMessage caps the message an Event quotes.
const maxMessage = 500

// findOriginAndCascade takes the first error in causal order as the origin
// and every later error as cascade, each with the service it failed
// because of. An error repeated by the same service with the same
// signature (a retry) is counted on its first occurrence, not listed again.
func findOriginAndCascade(t *Trace) {
	t.origin = -1
	t.events = eventTimes(t)
	noteFirsts(t)
	if len(t.events) == 0 {
		return
	}
	groups := groupRepeats(t)
	t.origin = groups[0].first
	for _, i := range t.events {
		t.ents[i].role = roleCascade
	}
	t.ents[t.origin].role = roleOrigin
	origin := t.event(t.origin, groups[0].sig)
	origin.Repeats = groups[0].n - 1
	t.res.Origin = &origin
	t.res.Cascade = make([]Event, 0, len(groups)-1)
	for _, g := range groups[1:] {
		ev := t.event(g.first, g.sig)
		ev.Repeats = g.n - 1
		ev.CausedBy = causedBy(t, g.first)
		t.res.Cascade = append(t.res.Cascade, ev)
	}
}

// repeatGroup is the errors of one service with one signature.
type repeatGroup struct {
	first int32 // entry of the first occurrence
	svc   int32
	sig   schema.Signature
	n     int
}

// groupRepeats folds t.events into groups, in order of first occurrence.
func groupRepeats(t *Trace) []repeatGroup {
	groups := make([]repeatGroup, 0, 4)
	for _, i := range t.events {
		sig, svc := t.signature(i), t.ents[i].svc
		found := false
		for k := range groups {
			if groups[k].sig == sig && groups[k].svc == svc {
				groups[k].n++
				found = true
				break
			}
		}
		if !found {
			groups = append(groups, repeatGroup{first: i, svc: svc, sig: sig, n: 1})
		}
	}
	return groups
}

// event describes an error entry.
func (t *Trace) event(i int32, sig schema.Signature) Event {
	r := t.rec(i)
	ts := r.Time
	if r.Type == schema.TypeSpan {
		ts = r.End()
	}
	return Event{
		Service:   t.svcs[t.ents[i].svc].name,
		SpanID:    r.SpanID,
		Timestamp: ts,
		Message:   clip(messageOf(r), maxMessage),
		Class:     t.ents[i].class,
		Signature: sig,
		Operation: operationOf(t, i),
	}
}

// signature is the record's own signature, else the hash of its masked
// message.
func (t *Trace) signature(i int32) schema.Signature {
	r := t.rec(i)
	f := t.ents[i].fail
	if f < 0 {
		return signatureOf(r)
	}
	if t.fails[f].sig == "" {
		t.fails[f].sig = signatureOf(r)
	}
	return t.fails[f].sig
}

// signatureOf is the record's own signature, else the hash of its masked
// message.
func signatureOf(r *schema.Record) schema.Signature {
	if r.Signature != "" {
		return r.Signature
	}
	return patterns.SignatureOf(r.Service, patterns.Mask(messageOf(r)))
}

// messageOf is a record's text: a log's body; a span's error message, else
// its operation name.
func messageOf(r *schema.Record) string {
	if r.Body != "" || r.Type == schema.TypeLog {
		return r.Body
	}
	return r.Name + " failed"
}

// operationOf is the span operation an entry belongs to.
func operationOf(t *Trace, i int32) string {
	r := t.rec(i)
	if r.Type == schema.TypeSpan {
		return r.Name
	}
	if n := t.ents[i].node; n >= 0 && t.nodes[n].ent >= 0 {
		return t.rec(t.nodes[n].ent).Name
	}
	return ""
}

// causedBy names the service whose failure an error followed from: the
// failing callee it points at, else the nearest earlier error of another
// service that is not one of its callers (above it in the span tree, or,
// without spans, a service whose failures name it: "request to pricing
// timed out" is pricing's caller's) and failed something (not incidental:
// a locale a service falls back from fails nobody), else its own service.
func causedBy(t *Trace, i int32) string {
	own := t.ents[i].svc
	if tgt, _ := pointer(t, i); tgt != "" {
		if s := t.findService(tgt); s >= 0 && s != own &&
			(t.svcs[s].firstError >= 0 || t.svcs[s].firstSignal >= 0) {
			return tgt
		}
	}
	for k := len(t.events) - 1; k >= 0; k-- {
		j := t.events[k]
		if j == i || t.eventAt(j).After(t.eventAt(i)) {
			continue
		}
		if t.ents[j].svc != own && !isAncestor(t, t.ents[j].node, t.ents[i].node) && !callsInto(t, t.ents[j].svc, own) &&
			!incidental(t, j) {
			return t.svcs[t.ents[j].svc].name
		}
	}
	return t.svcs[own].name
}

// callsInto reports whether a failure or signal of service svc names
// service callee: svc calls it. The answers are kept per pair: every
// cascade group asks about the same services.
func callsInto(t *Trace, svc, callee int32) bool {
	k := [2]int32{svc, callee}
	if v, ok := t.callsInto[k]; ok {
		return v
	}
	found := false
	for i := range t.ents {
		if e := &t.ents[i]; e.svc == svc && e.failure != failNone {
			if tgt, _ := pointer(t, int32(i)); tgt == t.svcs[callee].name {
				found = true
				break
			}
		}
	}
	if t.callsInto == nil {
		t.callsInto = map[[2]int32]bool{}
	}
	t.callsInto[k] = found
	return found
}

// isAncestor reports whether node a is n or one of n's ancestors.
func isAncestor(t *Trace, a, n int32) bool {
	if a < 0 || n < 0 {
		return false
	}
	for ; n >= 0; n = t.nodes[n].parent {
		if n == a {
			return true
		}
	}
	return false
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 { // do not cut a UTF-8 sequence
		n--
	}
	return s[:n] + "…"
}
