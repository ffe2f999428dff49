package ingest

import (
	"bytes"
	"strconv"
)

// pdata's JSON unmarshalling fails a whole OTLP/JSON body on one record
// whose traceId or spanId is not hex of the right length, or whose time
// (timeUnixNano, startTimeUnixNano, ..., also of a span event) is not an
// unsigned 64-bit integer ("18446744073709551616", "-1", "1e18"); and
// encoding/json refuses a body nested deeper than 10,000 levels, which
// one record's attributes can reach. scrubOTLPIDs finds such ids and times
// before pdata sees the body, blanks them (an id becomes "", a time "0"),
// cuts what a record nests deeper than maxOTLPRecordNesting to {} or [],
// and names the records they belong to, so that only those records are
// rejected (bad_trace_id, bad_span_id, bad_timestamp, bad_json).
//
// A body without a suspicious id or time and not nested deeper than
// maxOTLPRecordNesting (the common case) is checked by a few bytes.Index
// passes and one scan and handed on unchanged; only a body with one is
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

// otlpTimeKeys are the time fields of log records, spans and span events,
// in both spellings pdata accepts; pdata reads each as a uint64.
var otlpTimeKeys = []string{
	"timeUnixNano", "time_unix_nano", "observedTimeUnixNano", "observed_time_unix_nano",
	"startTimeUnixNano", "start_time_unix_nano", "endTimeUnixNano", "end_time_unix_nano",
}

// scrubOTLPIDs returns body with every bad id of a record (or a span link)
// replaced by "", every bad time of a record by "0", what a record nests
// too deep by {} or [], and, by record ordinal in document order, why each
// record with one must be rejected. kind names the record arrays: "logs"
// for logRecords, "spans" for spans. A body that is not valid JSON is
// returned unchanged, for the caller to refuse.
func scrubOTLPIDs(body []byte, kind string) ([]byte, map[int]Reason) {
	if !hasSuspectID(body) && !hasSuspectTime(body) && !nestedDeeper(body, maxOTLPRecordNesting) {
		return body, nil
	}
	w := idWalker{s: body, kind: kind, cur: -1}
	if !w.value(ctxOther) {
		return body, nil
	}
	if len(w.cuts) == 0 {
		return body, w.bad
	}
	out := make([]byte, 0, len(body))
	last := 0
	for _, c := range w.cuts {
		out = append(out, body[last:c.start]...)
		out = append(out, c.repl...)
		last = c.end
	}
	return append(out, body[last:]...), w.bad
}

// hasSuspectTime reports whether a time key of body is followed by
// anything but an unsigned 64-bit integer, as a string or a number.
func hasSuspectTime(body []byte) bool {
	for _, k := range otlpTimeKeys {
		if anyValue(body, k, func(rest []byte, j int) bool {
			_, ok := unixNanoEnd(rest, j)
			return !ok
		}) {
			return true
		}
	}
	return false
}

// anyValue reports whether bad is true of the value of some occurrence of
// key in body as a key; bad gets the text after the colon and the index
// of the value in it.
func anyValue(body []byte, key string, bad func(rest []byte, j int) bool) bool {
	pat := []byte(`"` + key + `"`)
	for rest := body; ; {
		i := bytes.Index(rest, pat)
		if i < 0 {
			return false
		}
		rest = rest[i+len(pat):]
		j := skipWS(rest, 0)
		if j >= len(rest) || rest[j] != ':' {
			continue // a string value, not a key
		}
		if bad(rest, skipWS(rest, j+1)) {
			return true
		}
	}
}

// unixNanoEnd returns the end of the time value at s[i] when it is one
// pdata reads: an unsigned 64-bit decimal integer, quoted or not.
func unixNanoEnd(s []byte, i int) (int, bool) {
	if end, ok := stringEnd(s, i); ok {
		return end + 1, validUnixNano(s[i+1 : end])
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j < len(s) && bytes.IndexByte([]byte(",}] \t\r\n"), s[j]) < 0 {
		return 0, false // 1e18, 1.5
	}
	return j, validUnixNano(s[i:j])
}

func validUnixNano(v []byte) bool {
	if len(v) == 0 || len(v) > 20 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	_, err := strconv.ParseUint(string(v), 10, 64)
	return err == nil
}

// nestedDeeper reports whether objects and arrays of body nest deeper
// than max levels anywhere (strings skipped).
func nestedDeeper(body []byte, max int) bool {
	depth := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			end, ok := stringEnd(body, i)
			if !ok {
				return false
			}
			i = end
		case '{', '[':
			if depth++; depth > max {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// hasSuspectID reports whether an id key of body is followed by anything
// but an empty string or a hex string of the right length.
func hasSuspectID(body []byte) bool {
	for _, k := range otlpIDKeys {
		if anyValue(body, k.key, func(rest []byte, j int) bool {
			end, ok := stringEnd(rest, j)
			return !ok || !validHexID(rest[j+1:end], k.hexLen)
		}) {
			return true
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
	s        []byte
	i        int
	kind     string
	ord      int // ordinal of the next record
	cur      int // ordinal of the record being walked, -1 outside records
	depth    int // objects and arrays open at w.i
	recDepth int // depth outside the record being walked
	bad      map[int]Reason
	cuts     []cut // bad values, in order
}

// cut is a byte range of the body to replace by repl.
type cut struct {
	start, end int
	repl       string
}

// enter checks the object or array at w.i against the nesting limits:
// one too deep in a record is cut whole (and the record rejected); one
// deeper than encoding/json reads at all fails the walk. done tells that
// the value was dealt with (ok: the walk goes on).
func (w *idWalker) enter() (done, ok bool) {
	switch {
	case w.cur >= 0 && w.depth-w.recDepth >= maxOTLPRecordNesting:
		return true, w.skipDeep()
	case w.depth >= maxJSONNesting:
		return true, false
	}
	w.depth++
	return false, false
}

// skipDeep steps over the object or array at w.i without reading it (its
// brackets only), cuts it to an empty one and rejects the record.
func (w *idWalker) skipDeep() bool {
	start, depth := w.i, 0
	for ; w.i < len(w.s); w.i++ {
		switch w.s[w.i] {
		case '"':
			end, ok := stringEnd(w.s, w.i)
			if !ok {
				return false
			}
			w.i = end
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				w.i++
				repl := "{}"
				if w.s[start] == '[' {
					repl = "[]"
				}
				w.reject(cut{start, w.i, repl}, ReasonBadJSON)
				return true
			}
		}
	}
	return false
}

// reject cuts c and rejects the record being walked (the first reason
// found wins); outside a record only the cut is made.
func (w *idWalker) reject(c cut, reason Reason) {
	w.cuts = append(w.cuts, c)
	if w.cur < 0 {
		return
	}
	if w.bad == nil {
		w.bad = map[int]Reason{}
	}
	if _, seen := w.bad[w.cur]; !seen {
		w.bad[w.cur] = reason
	}
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
	if done, ok := w.enter(); done {
		return ok
	}
	defer func() { w.depth-- }()
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
	if done, ok := w.enter(); done {
		return ok
	}
	defer func() { w.depth-- }()
	ord := -1
	if ctx == ctxRecord {
		ord, w.ord = w.ord, w.ord+1
		prevCur, prevDepth := w.cur, w.recDepth
		w.cur, w.recDepth = ord, w.depth-1
		defer func() { w.cur, w.recDepth = prevCur, prevDepth }()
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
	if w.cur >= 0 {
		for _, k := range otlpTimeKeys {
			if k == key {
				return w.time()
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
	w.cuts = append(w.cuts, cut{start, w.i, `""`})
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

// time checks one time value of the record being walked (its own or a
// span event's); a bad one is cut to "0" and rejects the record.
func (w *idWalker) time() bool {
	start := w.i
	if end, ok := unixNanoEnd(w.s, w.i); ok {
		w.i = end
		return true
	}
	if !w.value(ctxOther) {
		return false
	}
	w.reject(cut{start, w.i, `"0"`}, ReasonBadTime)
	return true
}
