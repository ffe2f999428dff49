package correlate

import (
	"context"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// ruleLookbackKey reads the failures of the work a breaker is keyed by.
//
// Condition: the breaker names no dependency (not lead.named; a caller
// quoting its callee's answer quotes the callee's breaker, see
// answeredKey) but its refusal states the key it is kept for, one that is
// no service of the trace ("the circuit breaker for <key> is open", "namespace <key> is
// paused after repeated failures": a namespace, a tenant, a queue;
// lead.key, see breakerKey). Such a breaker counts failures of the work of
// its key, wherever that work failed: a job's holder, a tenant's backend.
// The traces of the breakerLookbackFar before the refusal that name the
// key (in a line, at any level, or a span's name) and failed (an error,
// or else a line saying the work failed, as "job 7 in <key> failed by its
// holder" does at any level), other than those the breaker refused in,
// are the tripping traces, each at its first failure. Their walks start
// there, not at the breaker's service (which only recorded what was
// reported to it). They replace the service's other failures, which are
// about other keys.
//
// Constants: breakerLookbackFar, keyScanCap.
// Test: TestRules/breaker_lookback_key (TestAnalyzeKeyedBreakerFollowsItsKeysFailures).
const ruleLookbackKey = "breaker_lookback_key"

// keyScanCap caps the records read for one stretch of a key's traces:
// every service's, at every level.
const keyScanCap = 2_000_000

func lookbackKey(ctx context.Context, st WindowStore, s *tripSearch) error {
	ks, err := keyStretch(ctx, st, s)
	if ks == nil || err != nil {
		return err
	}
	if hits := ks.hits(s, func(l keyTrace) bool { return l.named }, ruleLookbackKey); len(hits) > 0 {
		s.hits = hits
	}
	return nil
}

// keyStretch returns the key's traces of the breakerLookbackFar before a
// keyed breaker's refusal, nil when the breaker is not keyed.
func keyStretch(ctx context.Context, st WindowStore, s *tripSearch) (*keySpan, error) {
	if s.lead.key == "" || s.lead.named {
		return nil, nil
	}
	ks := s.memo.keySpan(s.lead.key, s.lead.dep)
	return ks, ks.cover(ctx, st, s.lead.key, s.lead.dep, s.lead.at.Add(-breakerLookbackFar), s.lead.at)
}

// hits are the traces of ks that match, failed in the breakerLookbackFar
// before the lead, and were neither refused by the breaker nor seen by
// the search before, each at its first failure.
func (ks *keySpan) hits(s *tripSearch, match func(keyTrace) bool, by string) []traceHit {
	from, to := s.lead.at.Add(-breakerLookbackFar), s.lead.at
	refused := map[schema.TraceID]bool{} // a trace read in two stretches
	for _, l := range ks.traces {
		if l.refused {
			refused[l.id] = true
		}
	}
	var hits []traceHit
	for _, l := range ks.traces {
		if refused[l.id] || !l.failed || !match(l) || l.at.Before(from) || !l.at.Before(to) || s.seen[l.id] {
			continue
		}
		hits = append(hits, traceHit{id: l.id, at: l.at, body: l.body, by: by, kind: l.kind})
	}
	return hits
}

// keySpan is what the records of [from, to) say of the traces that name
// a breaker's key: a breaker that stays open for minutes is followed from
// every tripQuantum of it, over stretches that overlap but for ten
// seconds, and each record is read once.
type keySpan struct {
	from, to time.Time
	traces   []keyTrace
}

// keyTrace is a trace that names the key, or that the breaker's service
// served, in one stretch read: when it first failed, how, and whether the
// breaker refused in it (a fast failure naming the key, at any level, or
// of the breaker's service).
type keyTrace struct {
	id      schema.TraceID
	at      time.Time
	body    string
	kind    schema.Kind
	refused bool
	// named: a line names the key; served: the breaker's service logged
	// a line in it that is no error; failed: a line is an error, or
	// tells a failure (ownFailure: a line of the breaker's service).
	named, served, failed, ownFailure bool
}

// keySpan returns the stretch held for key and the breaker's service svc
// (a fresh one when m is nil).
func (m *storeMemo) keySpan(key, svc string) *keySpan {
	if m == nil {
		return &keySpan{}
	}
	if m.keys == nil {
		m.keys = map[string]*keySpan{}
	}
	k := key + "\x00" + svc
	if m.keys[k] == nil {
		m.keys[k] = &keySpan{}
	}
	return m.keys[k]
}

// cover grows ks to hold [from, to), reading the parts it lacks.
func (ks *keySpan) cover(ctx context.Context, st WindowStore, key, svc string, from, to time.Time) error {
	if ks.to.IsZero() {
		ks.from, ks.to = from, from
	}
	if from.Before(ks.from) {
		part, err := keyTraces(ctx, st, key, svc, from, ks.from)
		if err != nil {
			return err
		}
		ks.traces, ks.from = append(part, ks.traces...), from
	}
	if to.After(ks.to) {
		part, err := keyTraces(ctx, st, key, svc, ks.to, to)
		if err != nil {
			return err
		}
		ks.traces, ks.to = append(ks.traces, part...), to
	}
	return nil
}

// keyTraces reads every record of [from, to) and returns the traces that
// name key, or that svc (the breaker's service) served, and failed or were
// refused, in the order they were first seen.
func keyTraces(ctx context.Context, st WindowStore, key, svc string, from, to time.Time) ([]keyTrace, error) {
	type seen struct {
		keyTrace
		errored bool
	}
	byID := map[schema.TraceID]*seen{}
	var order []*seen
	q := schema.WindowQuery{From: from, To: to, Limit: keyScanCap, Attrs: AttrKeys}
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return nil, err
		}
		if r.TraceID == "" {
			continue
		}
		named := namesKey(r.Body, key) || r.Type == schema.TypeSpan && namesKey(r.Name, key)
		isErr := r.IsError()
		own := svc != "" && sameService(r.Service, svc)
		if !named && !own && !isErr && !tellsFailure(r.Body) {
			continue
		}
		t := byID[r.TraceID]
		if t == nil {
			t = &seen{keyTrace: keyTrace{id: r.TraceID}}
			byID[r.TraceID] = t
			order = append(order, t)
		}
		var k schema.Kind
		if named || isErr || own {
			k = refusalKind(&r)
		}
		if (named || own) && isFastFailure(k) {
			t.named = t.named || named
			t.refused = true
			continue
		}
		t.named = t.named || named
		t.served = t.served || own && !isErr
		// The first error; before any, the first line telling a failure.
		if isErr && !t.errored || !t.failed && (isErr || tellsFailure(r.Body)) {
			t.at, t.body, t.kind, t.failed, t.errored = r.Time, r.Body, k, true, isErr
			t.ownFailure = own
		}
	}
	var out []keyTrace
	for _, t := range order {
		if (t.named || t.served) && (t.failed || t.refused) {
			out = append(out, t.keyTrace)
		}
	}
	return out, nil
}

// refusalKind is the kind a record's text tells, at any level: a refusal
// logged at info level is one all the same.
func refusalKind(r *schema.Record) schema.Kind {
	var buf [textCap]byte
	var l lowered
	l.init(buf[:], r)
	return classifyText(&l, r)
}

// namesKey reports whether body names key (lowercase) as a word of its
// own ("jobs in data-lake failed", not "data-lakehouse"), in any case.
func namesKey(body, key string) bool {
	if wordIn(body, key) {
		return true
	}
	return hasUpper(body) && wordIn(strings.ToLower(body), key)
}

// wordIn reports whether key occurs in s with no name character on
// either side.
func wordIn(s, key string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], key)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(key)
		if (a == 0 || !keyByte(s[a-1])) && (b == len(s) || !keyByte(s[b])) {
			return true
		}
		i = a + 1
	}
}

func keyByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '-' || c == '_' || c == '.' || c == ':'
}

// tellsFailure reports whether a line that is no error says some work
// failed ("job 7 failed by its holder", "marked as FAILED").
func tellsFailure(body string) bool {
	return strings.Contains(body, "fail") || hasUpper(body) && strings.Contains(strings.ToLower(body), "fail")
}

// breakerKey is the key a breaker's refusal says it is kept for,
// lowercase, "" when it states none: the name after "breaker for",
// "breaker of", "circuit for" ("the circuit breaker for data-lake is
// open"); the value of the first field after "breaker open" ("breaker open
// namespace=data-lake"); else the name a scope word gives ("namespace
// data-lake is paused after repeated failures", "tenant=acme").
func breakerKey(body string) string {
	l := strings.ToLower(body)
	for _, m := range [...]string{"breaker for ", "breaker of ", "circuit for ", "circuit of ", "breaker on "} {
		if i := strings.Index(l, m); i >= 0 {
			if tok := keyToken(l[i+len(m):]); tok != "" {
				return tok
			}
		}
	}
	for _, m := range [...]string{"breaker open ", "circuit open ", "breaker is open "} {
		i := strings.Index(l, m)
		if i < 0 {
			continue
		}
		rest := l[i+len(m):]
		j := 0
		for j < len(rest) && (isLetter(rest[j]) || isDigit(rest[j]) || rest[j] == '_' || rest[j] == '.') {
			j++
		}
		if j > 0 && j < len(rest) && rest[j] == '=' {
			if tok := keyToken(rest[j+1:]); tok != "" {
				return tok
			}
		}
	}
	for _, w := range scopeWords {
		for i := 0; ; {
			j := strings.Index(l[i:], w)
			if j < 0 {
				break
			}
			a, b := i+j, i+j+len(w)
			i = b
			if a > 0 && keyByte(l[a-1]) || b >= len(l) || l[b] != ' ' && l[b] != '=' && l[b] != ':' {
				continue
			}
			if tok := keyToken(strings.TrimLeft(l[b:], " =:")); tok != "" {
				return tok
			}
		}
	}
	return ""
}

// scopeWords name what a breaker may be kept for, other than a
// dependency.
var scopeWords = []string{"namespace", "tenant", "queue", "partition", "shard", "region", "project", "workspace", "topic", "pool", "cluster"}

// keyToken reads the name at the start of s, past quotes: letters,
// digits, '-', '_', '.', ':'; "" when it is no name.
func keyToken(s string) string {
	s = strings.TrimLeft(s, "'\"`[(")
	j := 0
	for j < len(s) && keyByte(s[j]) {
		j++
	}
	if tok := strings.TrimRight(s[:j], ".-_:"); len(tok) >= 2 && !isStopword(tok) && !isDigit(tok[0]) {
		return tok
	}
	return ""
}

// answeredKey is the key of the breaker whose refusal a caller's error
// quotes as its callee tgt's answer ("job-broker returned 409: namespace
// docs-site is paused after repeated failures"), "" when the error quotes
// no answer or the refusal names no key but the callee.
func answeredKey(body, tgt string) string {
	l := strings.ToLower(body)
	answered := false
	for _, m := range [...]string{" returned 4", " returned 5", "status code 4", "status code 5"} {
		if strings.Contains(l, m) {
			answered = true
			break
		}
	}
	if !answered {
		return ""
	}
	if key := breakerKey(body); key != "" && !sameService(key, tgt) {
		return key
	}
	return ""
}
