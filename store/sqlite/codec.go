package sqlite

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// The rest column holds the fields of a record that no query filters on,
// in this order:
//
//	version byte (restV1)
//	type byte, status byte
//	span id, parent span id         (id encoding below)
//	severity text, name             (uvarint length + bytes)
//	duration                        (varint nanoseconds)
//	template, signature             (uvarint length + bytes)
//	attrs: uvarint count, then count (key, value) pairs sorted by key
//	nil-attrs marker byte: 1 when Attrs was nil, 0 when non-nil (even empty)
//
// An id is one tag byte: 0 empty; 1 canonical lowercase hex, followed by its
// bytes; 2 anything else, followed by uvarint length + the text as given.
const restV1 = 1

// zeroTime is the ts stored for a record with a zero Time.
const zeroTime = math.MinInt64

var errCorrupt = errors.New("corrupt record encoding")

// timeToNanos encodes t; times outside what int64 nanoseconds can hold
// (before 1678 or after 2262) are refused.
func timeToNanos(t time.Time) (int64, error) {
	if t.IsZero() {
		return zeroTime, nil
	}
	if t.Before(time.Unix(0, math.MinInt64+1)) || t.After(time.Unix(0, math.MaxInt64)) {
		return 0, fmt.Errorf("%w: time %s is out of range", backend.ErrBadRecord, t.Format(time.RFC3339))
	}
	return t.UnixNano(), nil
}

func nanosToTime(ns int64) time.Time {
	if ns == zeroTime {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// traceKey is the value of the trace column: nil when empty, 16 bytes when
// canonical, else the text as given.
func traceKey(id schema.TraceID) any {
	switch {
	case id == "":
		return nil
	case isLowerHex(string(id), 32):
		b := id.Bytes16()
		return b[:]
	default:
		return string(id)
	}
}

// traceFromColumn inverts traceKey.
func traceFromColumn(v any) (schema.TraceID, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case []byte:
		if len(x) != 16 {
			return "", errCorrupt
		}
		return schema.TraceID(hex.EncodeToString(x)), nil
	case string:
		return schema.TraceID(x), nil
	}
	return "", errCorrupt
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// encodeRest appends the rest encoding of r to b.
func encodeRest(b []byte, r *schema.Record) []byte {
	b = append(b, restV1, byte(r.Type), byte(r.Status))
	b = appendID(b, string(r.SpanID), 16)
	b = appendID(b, string(r.ParentSpanID), 16)
	b = appendString(b, r.SeverityText)
	b = appendString(b, r.Name)
	b = binary.AppendVarint(b, int64(r.Duration))
	b = appendString(b, r.Template)
	b = appendString(b, string(r.Signature))
	b = appendAttrs(b, r.Attrs)
	if r.Attrs == nil {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendID(b []byte, s string, n int) []byte {
	switch {
	case s == "":
		return append(b, 0)
	case isLowerHex(s, n):
		b, _ = hex.AppendDecode(append(b, 1), []byte(s)) // valid: checked above
		return b
	default:
		return appendString(append(b, 2), s)
	}
}

func appendAttrs(b []byte, m map[string]string) []byte {
	b = binary.AppendUvarint(b, uint64(len(m)))
	if len(m) == 0 {
		return b
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = appendString(b, k)
		b = appendString(b, m[k])
	}
	return b
}

// decoder reads the rest encoding; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.b = nil
}

func (d *decoder) byte1() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytesN(n uint64) []byte {
	if uint64(len(d.b)) < n {
		d.fail()
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) str() string { return string(d.bytesN(d.uvarint())) }

func (d *decoder) id(n int) string {
	switch d.byte1() {
	case 0:
		return ""
	case 1:
		return hex.EncodeToString(d.bytesN(uint64(n / 2)))
	case 2:
		return d.str()
	}
	d.fail()
	return ""
}

func (d *decoder) attrs() map[string]string {
	n := d.uvarint()
	if n > uint64(len(d.b)) { // every pair takes at least two bytes
		d.fail()
		return nil
	}
	m := make(map[string]string, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		k := d.str()
		m[k] = d.str()
	}
	return m
}

// decodeRest fills the rest fields of r from b.
func decodeRest(b []byte, r *schema.Record) error {
	d := decoder{b: b}
	if d.byte1() != restV1 {
		return fmt.Errorf("%w: unknown version", errCorrupt)
	}
	r.Type = schema.RecordType(d.byte1())
	r.Status = schema.SpanStatus(d.byte1())
	r.SpanID = schema.SpanID(d.id(16))
	r.ParentSpanID = schema.SpanID(d.id(16))
	r.SeverityText = d.str()
	r.Name = d.str()
	r.Duration = time.Duration(d.varint())
	r.Template = d.str()
	r.Signature = schema.Signature(d.str())
	r.Attrs = d.attrs()
	if d.byte1() == 1 && len(r.Attrs) == 0 {
		r.Attrs = nil
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	return d.err
}
