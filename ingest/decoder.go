package ingest

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// ErrMalformed is returned by a decoder for a body it cannot read at all
// (not JSON, not protobuf, not the expected document). Records of a body it
// can read but that are bad one by one are rejected through the sink instead.
var ErrMalformed = errors.New("malformed body")

// DecoderConfig configures a Decoder.
type DecoderConfig struct {
	Limits Limits
	// Text finds fields in plain text lines; nil means the built-in patterns only.
	Text *TextMatcher
	// Now gives the time of records that carry none; nil means time.Now.
	Now func() time.Time
	// UnknownService is the service given to records that nothing names
	// (no field, label, resource attribute, text pattern or file name),
	// e.g. UnknownService; "" leaves them unnamed, which the analysis
	// reads as "no service" (it then looks for one in the message).
	UnknownService string
}

// Decoder turns bodies and lines of every input format into records. It is
// pure (no I/O) and safe for concurrent use; each decoder method hands
// records to the given sink in input order.
type Decoder struct {
	lim     Limits
	text    *TextMatcher
	now     func() time.Time
	unnamed string // DecoderConfig.UnknownService
}

// NewDecoder returns a decoder for cfg.
func NewDecoder(cfg DecoderConfig) *Decoder {
	d := &Decoder{lim: cfg.Limits.Normalize(), text: cfg.Text, now: cfg.Now, unnamed: strings.TrimSpace(cfg.UnknownService)}
	if d.text == nil {
		d.text, _ = NewTextMatcher(nil) // built-in patterns always compile
	}
	if d.now == nil {
		d.now = time.Now
	}
	return d
}

// Limits are the limits the decoder enforces.
func (dc *Decoder) Limits() Limits { return dc.lim }

// JSONLines decodes newline-separated JSON objects as application loggers
// write them. Blank lines are skipped; a line that is not a JSON object is
// rejected as bad_json.
func (dc *Decoder) JSONLines(data []byte, sink RecordSink) {
	eachLine(trimBOM(data), func(line []byte) { dc.JSONLine(line, sink) })
}

// TextLines decodes newline-separated plain text lines; a line that is
// itself a JSON object is read as a structured record.
func (dc *Decoder) TextLines(data []byte, sink RecordSink) {
	eachLine(trimBOM(data), func(line []byte) { dc.TextLine(line, sink) })
}

// JSONLine decodes one JSON object line.
func (dc *Decoder) JSONLine(line []byte, sink RecordSink) { dc.jsonLine(line, "", sink) }

// jsonLine decodes one JSON object line; service names the service when
// the record names none ("" = no fallback).
func (dc *Decoder) jsonLine(line []byte, service string, sink RecordSink) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if len(line) > dc.lim.MaxLineBytes {
		sink.Reject(ReasonLineTooLong)
		return
	}
	var d detected
	if err := detectJSON(line, dc.lim.MaxDepth, &d); err != nil {
		sink.Reject(ReasonBadJSON)
		return
	}
	if !d.has[fieldMessage] {
		d.setIfAbsent(fieldMessage, "message", string(line))
	} else {
		dc.messageText(&d)
	}
	d.fillService("service", service)
	dc.emit(&d, time.Time{}, sink)
}

// TextLine decodes one plain text line (or a JSON object line).
func (dc *Decoder) TextLine(line []byte, sink RecordSink) { dc.textLine(line, "", sink) }

// textLine decodes one plain text line; service names the service when
// the record names none ("" = no fallback).
func (dc *Decoder) textLine(line []byte, service string, sink RecordSink) {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if len(line) > dc.lim.MaxLineBytes {
		sink.Reject(ReasonLineTooLong)
		return
	}
	var d detected
	dc.detectLine(string(line), &d)
	d.fillService("service", service)
	dc.emit(&d, time.Time{}, sink)
}

// detectLine fills d from a log line of unknown shape: a JSON object, a
// logfmt line, or text searched with the text patterns. The message is the
// JSON or logfmt message field, else the line without the header parsed
// into fields (see header.go).
func (dc *Decoder) detectLine(line string, d *detected) {
	if t := strings.TrimSpace(line); len(t) > 1 && t[0] == '{' && t[len(t)-1] == '}' {
		var j detected
		if detectJSON([]byte(t), dc.lim.MaxDepth, &j) == nil {
			*d = j
			if d.has[fieldMessage] {
				dc.messageText(d)
			}
			d.setIfAbsent(fieldMessage, "message", line)
			return
		}
	}
	if parseLogfmt(line, d.set) {
		d.setIfAbsent(fieldMessage, "message", line)
		return
	}
	dc.text.detect(line, d)
	d.text = line
	if !d.has[fieldMessage] {
		d.setIfAbsent(fieldMessage, "message", stripHeader(line, d))
	}
	if !d.has[fieldTime] {
		if ts := leadingTime(line); ts != "" {
			d.setIfAbsent(fieldTime, "time", ts)
		}
	}
}

// emit builds d into a record and hands it to sink, or rejects it.
func (dc *Decoder) emit(d *detected, shipped time.Time, sink RecordSink) {
	r, reason := d.build(shipped, time.Time{}, dc.now())
	if reason != "" {
		sink.Reject(reason)
		return
	}
	dc.add(r, sink)
}

// add is add with DecoderConfig.UnknownService for a log record without a
// service (a blank one counts as none).
func (dc *Decoder) add(r schema.Record, sink RecordSink) {
	if dc.unnamed != "" && strings.TrimSpace(r.Service) == "" {
		r.Service = dc.unnamed
	}
	add(r, sink)
}

// UnknownService is the placeholder service for DecoderConfig.UnknownService.
const UnknownService = "unknown"

// add hands a finished record to sink, rejecting an empty log record and
// a record whose time no store can hold (schema.TimeInRange).
func add(r schema.Record, sink RecordSink) {
	if !schema.TimeInRange(r.Time) {
		sink.Reject(ReasonBadTime)
		return
	}
	if r.Type == schema.TypeLog && r.Body == "" {
		sink.Reject(ReasonEmpty)
		return
	}
	sink.Add(r)
}

func eachLine(data []byte, fn func([]byte)) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			fn(data)
			return
		}
		fn(data[:i])
		data = data[i+1:]
	}
}

// leadingTime returns the timestamp a text line starts with: one field
// (RFC 3339 or unix digits) or a date and a time as two fields; else "".
func leadingTime(line string) string {
	if line == "" || line[0] < '0' || line[0] > '9' {
		return ""
	}
	f1, rest, _ := strings.Cut(line, " ")
	switch {
	case len(f1) >= 19 && f1[10] == 'T', len(f1) >= 10 && isDigits(f1):
		if _, ok := parseTime(f1); ok {
			return f1
		}
	case len(f1) == 10 && (f1[4] == '-' || f1[4] == '/'):
		f2, _, _ := strings.Cut(rest, " ")
		if len(f2) >= 8 { // a line of one field has no rest (and no second field to slice)
			two := line[:len(f1)+1+len(f2)]
			if _, ok := parseTime(two); ok {
				return two
			}
		}
	}
	return ""
}

// messageText reads the message of a structured record (a JSON line, a Loki
// line that is JSON, an OTLP map body) as the plain text line it often is:
// syslog-ng, Vector and the Collector's filelog receiver wrap raw lines as
// {"msg":"<line>"}. The text is detected as a text line is (the text
// patterns, the header it starts with) and fills what the record lacks,
// the record's own fields always winning:
//   - trace, span and parent span id, only when the record has no trace id;
//   - the time, when the record has none (a header time it does not use is
//     kept as log.time);
//   - the level, when the record has none, or only a generic one
//     (genericLevel: a shipper's syslog notice/info default) and the text
//     states one at its start (levelAtStart), which then wins and the
//     record's own is kept as an attribute under its key;
//   - logger, service (syslog's program) and the header's attributes.
//
// The header is cut from the body as for text lines, unless it names a
// trace id other than the record's own. Of a record with its own trace id
// and time only the level is looked for.
func (dc *Decoder) messageText(d *detected) {
	msg := d.vals[fieldMessage]
	d.text = msg
	if strings.TrimSpace(msg) == "" {
		return
	}
	if d.has[fieldTrace] && d.has[fieldTime] { // the text could add only a level, a logger or attributes
		d.statedLevel(msg)
		return
	}
	var t detected
	dc.text.detect(msg, &t)
	body := stripHeader(msg, &t)
	if !t.has[fieldTime] {
		if ts := leadingTime(msg); ts != "" {
			t.setIfAbsent(fieldTime, "time", ts)
		}
	}
	if !d.has[fieldTrace] {
		for _, f := range [...]field{fieldTrace, fieldSpan, fieldParent} {
			d.take(&t, f)
		}
	} else if t.has[fieldTrace] && !strings.EqualFold(t.vals[fieldTrace], strings.TrimSpace(d.vals[fieldTrace])) {
		body = msg
	}
	if d.has[fieldTime] && t.has[fieldTime] && body != msg && d.attrs["log.time"] == "" {
		d.attr("log.time", t.vals[fieldTime])
	}
	d.take(&t, fieldTime)
	if !d.has[fieldLevel] && !d.has[fieldSeverityNumber] {
		d.take(&t, fieldLevel)
	} else {
		d.statedLevel(msg)
	}
	d.take(&t, fieldName)
	d.take(&t, fieldService)
	for k, v := range t.attrs {
		if _, ok := d.attrs[k]; !ok {
			d.attr(k, v)
		}
	}
	if body != msg {
		d.vals[fieldMessage] = body
	}
}

// statedLevel replaces a generic level of d (genericLevel) with the one
// text states at its start (levelAtStart), if any, keeping the generic one
// as an attribute under its key.
func (d *detected) statedLevel(text string) {
	if !d.genericLevel() {
		return
	}
	if lv := levelAtStart(text); lv != "" {
		d.displace(fieldLevel)
		d.displace(fieldSeverityNumber)
		d.setIfAbsent(fieldLevel, "level", lv)
	}
}

// levelAtStart is the level a line states at its start: the level word of
// its header (see header.go: ERROR, [warn], klog's E1130, Python's
// "ERROR:name:", after a timestamp, pid or thread), or a first word
// level=…, lvl=…, severity=… or loglevel=… with a known level; else "".
// A level word later in the text does not count.
func levelAtStart(line string) string {
	if !mayStateLevel(line) {
		return ""
	}
	var none detected
	if h, _ := scanHeader(line, &none); h.level != "" {
		return h.level
	}
	first, _, _ := strings.Cut(strings.TrimSpace(line[:min(len(line), 64)]), " ")
	if k, v, ok := strings.Cut(first, "="); ok {
		switch lowerASCII(k) {
		case "level", "lvl", "severity", "loglevel":
			v = strings.Trim(v, `"',;`)
			if _, ok := levelWord(lowerASCII(v)); ok {
				return v
			}
		}
	}
	return ""
}

// mayStateLevel is a quick check for levelAtStart: the start of line holds
// three upper-case letters in a row, a '[' or an '=', or line starts as
// klog's E1130 does.
func mayStateLevel(line string) bool {
	if len(line) > 5 && strings.IndexByte("IWEF", line[0]) >= 0 && isDigits(line[1:5]) {
		return true
	}
	run := 0
	for i := 0; i < len(line) && i < 160; i++ {
		switch c := line[i]; {
		case c >= 'A' && c <= 'Z':
			if run++; run >= 3 {
				return true
			}
		case c == '[' || c == '=':
			return true
		default:
			run = 0
		}
	}
	return false
}
