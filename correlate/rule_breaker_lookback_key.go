package correlate

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// ruleLookbackKey reads the failures of what a breaker is keyed by.
//
// Condition: the breaker names no dependency (not lead.named) but its
// refusal states the key it is kept for, one that is no service of the
// trace ("the circuit breaker for <key> is open": a namespace, a tenant, a
// queue; lead.key, see breakerKey). Such a breaker counts failures of the
// work of its key, wherever that work failed: a job's holder, a tenant's
// backend. The breaker's service's own records of the breakerLookbackFar
// before the refusal that name the key and tell of a failure (an error or
// warning, or a line saying the work failed, as "job 7 in <key> failed by
// its holder" does at any level), other than its refusals and the traces
// it refused in, mark the tripping
// traces. Their walks start at each trace's own first failure, not at the
// breaker's service (which only recorded what was reported to it). They
// replace the service's other failures, which are about other keys.
//
// Constants: breakerLookbackFar, keyScanCap.
// Test: TestRules/breaker_lookback_key (TestAnalyzeKeyedBreakerFollowsItsKeysFailures).
const ruleLookbackKey = "breaker_lookback_key"

// keyScanCap caps the records of the breaker's service read for one
// stretch of the key's lines: they are read at every level.
const keyScanCap = 1_000_000

func lookbackKey(ctx context.Context, st WindowStore, s *tripSearch) error {
	key := s.lead.key
	if key == "" || s.lead.named {
		return nil
	}
	from, to := s.lead.at.Add(-breakerLookbackFar), s.lead.at
	ks := s.memo.keySpan(s.lead.dep, key)
	if err := ks.cover(ctx, st, s.lead.dep, key, from, to); err != nil {
		return err
	}
	refused := map[schema.TraceID]bool{}
	var hits []traceHit
	for _, l := range ks.lines {
		if l.at.Before(from) || !l.at.Before(to) || s.seen[l.id] {
			continue
		}
		if l.refusal {
			refused[l.id] = true
			continue
		}
		hits = append(hits, traceHit{id: l.id, at: l.at, body: l.body, by: ruleLookbackKey, kind: l.kind})
	}
	hits = slices.DeleteFunc(hits, func(h traceHit) bool { return refused[h.id] })
	if len(hits) > 0 {
		s.hits = hits
	}
	return nil
}

// keySpan is the lines of a service in [from, to) that name a breaker's
// key and tell of a failure or a refusal, in time order: a breaker that
// stays open for minutes is followed from every tripQuantum of it, over
// stretches that overlap but for ten seconds, and each record is read
// once.
type keySpan struct {
	from, to time.Time
	lines    []keyLine
}

// keyLine is one line naming the key: a failure of its work, or a refusal
// of the breaker (a fast failure).
type keyLine struct {
	id      schema.TraceID
	at      time.Time
	body    string
	kind    schema.Kind
	refusal bool
}

// keySpan returns the stretch held for the key of the breaker of svc (a
// fresh one when m is nil).
func (m *storeMemo) keySpan(svc, key string) *keySpan {
	if m == nil {
		return &keySpan{}
	}
	if m.keys == nil {
		m.keys = map[[2]string]*keySpan{}
	}
	k := [2]string{svc, key}
	if m.keys[k] == nil {
		m.keys[k] = &keySpan{}
	}
	return m.keys[k]
}

// cover grows ks to hold [from, to), reading the parts it lacks.
func (ks *keySpan) cover(ctx context.Context, st WindowStore, svc, key string, from, to time.Time) error {
	if ks.to.IsZero() {
		ks.from, ks.to = from, from
	}
	if from.Before(ks.from) {
		part, err := keyLines(ctx, st, svc, key, from, ks.from)
		if err != nil {
			return err
		}
		ks.lines, ks.from = append(part, ks.lines...), from
	}
	if to.After(ks.to) {
		part, err := keyLines(ctx, st, svc, key, ks.to, to)
		if err != nil {
			return err
		}
		ks.lines, ks.to = append(ks.lines, part...), to
	}
	return nil
}

// keyLines reads the lines of svc in [from, to) that name key and tell of
// a failure of its work or of a refusal.
func keyLines(ctx context.Context, st WindowStore, svc, key string, from, to time.Time) ([]keyLine, error) {
	var out []keyLine
	q := schema.WindowQuery{From: from, To: to, Service: svc, Limit: keyScanCap, Attrs: AttrKeys}
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return nil, err
		}
		if r.TraceID == "" || !namesKey(r.Body, key) {
			continue
		}
		k, _ := classifyWithHint(&r, false)
		refusal := isFastFailure(k)
		if !refusal && k == "" && !r.IsError() && r.Severity < schema.SeverityWarn && !tellsFailure(r.Body) {
			continue
		}
		out = append(out, keyLine{id: r.TraceID, at: r.Time, body: r.Body, kind: k, refusal: refusal})
	}
	return out, nil
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

// breakerKey is the key a breaker's refusal says it is kept for: the name
// after "breaker for", "breaker of", "circuit for" ("the circuit breaker
// for data-lake is open"), or the value of the first field after "breaker
// open" ("breaker open namespace=data-lake"), lowercase; "" when it states
// none.
func breakerKey(body string) string {
	l := strings.ToLower(body)
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
		if j == 0 || j >= len(rest) || rest[j] != '=' {
			continue
		}
		rest = strings.TrimLeft(rest[j+1:], "'\"")
		j = 0
		for j < len(rest) && keyByte(rest[j]) {
			j++
		}
		if tok := strings.TrimRight(rest[:j], ".-_:"); len(tok) >= 2 {
			return tok
		}
	}
	for _, m := range [...]string{"breaker for ", "breaker of ", "circuit for ", "circuit of ", "breaker on "} {
		i := strings.Index(l, m)
		if i < 0 {
			continue
		}
		rest := l[i+len(m):]
		rest = strings.TrimLeft(rest, "'\"`[(")
		j := 0
		for j < len(rest) && keyByte(rest[j]) {
			j++
		}
		if tok := strings.TrimRight(rest[:j], ".-_:"); len(tok) >= 2 && !isStopword(tok) {
			return tok
		}
	}
	return ""
}
