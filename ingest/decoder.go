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
}

// Decoder turns bodies and lines of every input format into records. It is
// pure (no I/O) and safe for concurrent use; each decoder method hands
// records to the given sink in input order.
type Decoder struct {
	lim  Limits
	text *TextMatcher
	now  func() time.Time
}

// NewDecoder returns a decoder for cfg.
func NewDecoder(cfg DecoderConfig) *Decoder {
	d := &Decoder{lim: cfg.Limits.Normalize(), text: cfg.Text, now: cfg.Now}
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
	}
	d.setIfAbsent(fieldService, "service", service)
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
	d.setIfAbsent(fieldService, "service", service)
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
			d.setIfAbsent(fieldMessage, "message", line)
			return
		}
	}
	if parseLogfmt(line, d.set) {
		d.setIfAbsent(fieldMessage, "message", line)
		return
	}
	dc.text.detect(line, d)
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
	r, reason := d.build(shipped, dc.now())
	if reason != "" {
		sink.Reject(reason)
		return
	}
	add(r, sink)
}

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
