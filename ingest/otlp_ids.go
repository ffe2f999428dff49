package ingest

import (
	"bytes"
)

// pdata's JSON unmarshalling fails a whole OTLP/JSON body on one record
// whose traceId or spanId is not hex of the right length. scrubOTLPIDs
// finds such ids before pdata sees the body, blanks them, and names the
// records they belong to, so that only those records are rejected.
//
// A body without a suspicious id (the common case) is checked by a few
// bytes.Index passes and handed on unchanged; only a body with one is
// walked by idWalker, which knows just enough of the OTLP/JSON layout to
// tell which record (in document order, the order pdata iterates) an id
// belongs to.

// otlpIDKeys are the id fields pdata reads, in both spellings it accepts,
// with the hex length each needs.
var otlpIDKeys = []struct {
	key    string
	hexLen int
	reason Reason
}{
	{"traceId", 32, ReasonBadTraceID}, {"trace_id", 32, ReasonBadTraceID},
	{"spanId", 16, ReasonBadSpanID}, {"span_id", 16, ReasonBadSpanID},
	{"parentSpanId", 16, ReasonBadSpanID}, {"parent_span_id", 16, ReasonBadSpanID},
}

// scrubOTLPIDs returns body with every bad id of a record (or a span link)
// replaced by "" and, by record ordinal in document order, why each record
// with one must be rejected. recordsKey names the record arrays: "logs" for
// logRecords, "spans" for spans. A body that is not valid JSON is returned
// unchanged, for pdata to refuse.
func scrubOTLPIDs(body []byte, kind string) ([]byte, map[int]Reason) {
	if !hasSuspectID(body) {
		return body, nil
	}
	w := idWalker{s: body, kind: kind}
	if !w.value(ctxOther) {
		return body, nil
	}
	if len(w.cuts) == 0 {
		return body, w.bad
	}
	out := make([]byte, 0, len(body))
	last := 0
	for _, c := range w.cuts {
		out = append(out, body[last:c[0]]...)
		out = append(out, `""`...)
		last = c[1]
	}
	return append(out, body[last:]...), w.bad
}

// hasSuspectID reports whether an id key of body is followed by anything
// but an empty string or a hex string of the right length.
func hasSuspectID(body []byte) bool {
	for _, k := range otlpIDKeys {
		pat := []byte(`"` + k.key + `"`)
		for rest := body; ; {
			i := bytes.Index(rest, pat)
			if i < 0 {
				break
			}
			rest = rest[i+len(pat):]
			j := skipWS(rest, 0)
			if j >= len(rest) || rest[j] != ':' {
				continue // a string value, not a key
			}
			j = skipWS(rest, j+1)
			end, ok := stringEnd(rest, j)
			if !ok || !validHexID(rest[j+1:end], k.hexLen) {
				return true
			}
		}
	}
	return false
}

// validHexID: empty (no id) or exactly n hex digits.
func validHexID(v []byte, n int) bool {
	if len(v) == 0 {
		return true
	}
	if len(v) != n {
		return false
	}
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func skipWS(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index of the closing quote of the string at s[i];
// false when s[i] is not a string or it is not closed.
func stringEnd(s []byte, i int) (int, bool) {
	if i >= len(s) || s[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j, true
		}
	}
	return 0, false
}

type idCtx int

const (
	ctxOther  idCtx = iota
	ctxRecord       // a log record or a span: its ids are checked
	ctxLink         // a span link: bad ids are blanked, the span kept
)

// idWalker walks a JSON document, finding bad ids of records and links.
// Every method returns false on malformed JSON.
type idWalker struct {
	s    []byte
	i    int
	kind string
	ord  int // ordinal of the next record
	bad  map[int]Reason
	cuts [][2]int // byte ranges of bad id values, in order
}

func (w *idWalker) value(ctx idCtx) bool {
	w.i = skipWS(w.s, w.i)
	if w.i >= len(w.s) {
		return false
	}
	switch w.s[w.i] {
	case '{':
		return w.object(ctx)
	case '[':
		return w.array(ctxOther)
	case '"':
		end, ok := stringEnd(w.s, w.i)
		w.i = end + 1
		return ok
	}
	for w.i < len(w.s) && bytes.IndexByte([]byte(",}] \t\r\n"), w.s[w.i]) < 0 {
		w.i++ // number, true, false, null
	}
	return true
}

func (w *idWalker) array(elem idCtx) bool {
	w.i++ // [
	for {
		w.i = skipWS(w.s, w.i)
		if w.i < len(w.s) && w.s[w.i] == ']' {
			w.i++
			return true
		}
		if !w.value(elem) {
			return false
		}
		if !w.next(']') {
			return false
		}
	}
}

// next steps over the comma after a member or element; false when neither
// a comma nor the closing bracket follows.
func (w *idWalker) next(closing byte) bool {
	w.i = skipWS(w.s, w.i)
	switch {
	case w.i >= len(w.s):
		return false
	case w.s[w.i] == ',':
		w.i++
		return true
	}
	return w.s[w.i] == closing
}

func (w *idWalker) object(ctx idCtx) bool {
	ord := -1
	if ctx == ctxRecord {
		ord, w.ord = w.ord, w.ord+1
	}
	w.i++ // {
	for {
		w.i = skipWS(w.s, w.i)
		if w.i < len(w.s) && w.s[w.i] == '}' {
			w.i++
			return true
		}
		end, ok := stringEnd(w.s, w.i)
		if !ok {
			return false
		}
		key := string(w.s[w.i+1 : end])
		w.i = skipWS(w.s, end+1)
		if w.i >= len(w.s) || w.s[w.i] != ':' {
			return false
		}
		w.i = skipWS(w.s, w.i+1)
		if !w.member(ctx, ord, key) {
			return false
		}
		if !w.next('}') {
			return false
		}
	}
}

// member reads the value of key in an object of context ctx.
func (w *idWalker) member(ctx idCtx, ord int, key string) bool {
	if ctx == ctxRecord || ctx == ctxLink {
		for _, k := range otlpIDKeys {
			if k.key == key {
				return w.id(ctx, ord, k.hexLen, k.reason)
			}
		}
	}
	if w.i < len(w.s) && w.s[w.i] == '[' {
		switch {
		case ctx == ctxOther && w.kind == "logs" && (key == "logRecords" || key == "log_records"),
			ctx == ctxOther && w.kind == "spans" && key == "spans":
			return w.array(ctxRecord)
		case ctx == ctxRecord && w.kind == "spans" && key == "links":
			return w.array(ctxLink)
		}
	}
	return w.value(ctxOther)
}

// id checks one id value; a bad one is cut and, in a record, rejects it.
func (w *idWalker) id(ctx idCtx, ord, hexLen int, reason Reason) bool {
	start := w.i
	if end, ok := stringEnd(w.s, w.i); ok && validHexID(w.s[w.i+1:end], hexLen) {
		w.i = end + 1
		return true
	}
	if !w.value(ctxOther) {
		return false
	}
	w.cuts = append(w.cuts, [2]int{start, w.i})
	if ctx == ctxRecord {
		if w.bad == nil {
			w.bad = map[int]Reason{}
		}
		if _, seen := w.bad[ord]; !seen {
			w.bad[ord] = reason
		}
	}
	return true
}
