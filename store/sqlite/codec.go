package sqlite

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// A record is encoded whole, in a block (block.go), or in the rec column
// of a row in files of schema version 1 (legacy.go). Layout:
//
//	version byte (recV1)
//	type byte, status byte
//	time                               varint Unix nanoseconds (zeroTime for a zero Time)
//	trace id, span id, parent span id  strings, as given (hex text: reading
//	                                   them is then free, for 32 bytes more)
//	service, severity text, body, name strings
//	severity                           varint
//	duration                           varint nanoseconds
//	template, signature                strings
//	attrs: uvarint count, then count (key, value) string pairs sorted by key
//	nil-attrs marker byte: 1 when Attrs was nil, 0 when non-nil (even empty)
//
// A string is a uvarint length and the bytes.
const recV1 = 1

// corrupt is errCorrupt caused by err (a decompressor's words, kept for
// logs and errors.As, out of the sentence).
func corrupt(err error) error {
	return &storeError{class: backend.ErrCorrupt, msg: errCorrupt.Error(), cause: err}
}

// errCorrupt is a record whose encoding cannot be read: the file is damaged.
var errCorrupt error = &storeError{class: backend.ErrCorrupt, msg: "a block of records in the store cannot be decoded: its bytes changed after they were written " +
	"(SQLite's own checks pass, so `sqlite3 .recover` cannot help); restore the file from a backup, or move it aside (with its -wal and -shm files) and ingest again"}

// encodeRecord appends the encoding of r, whose time is ts, to b.
func encodeRecord(b []byte, r *schema.Record, ts int64) []byte {
	b = append(b, recV1, byte(r.Type), byte(r.Status))
	b = binary.AppendVarint(b, ts)
	for _, s := range [...]string{string(r.TraceID), string(r.SpanID), string(r.ParentSpanID),
		r.Service, r.SeverityText, r.Body, r.Name} {
		b = appendString(b, s)
	}
	b = binary.AppendVarint(b, int64(r.Severity))
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

// decodeRecord decodes s into r. Its string fields share s's memory. Only
// the attributes that keep accepts are kept (all when keep is nil).
func decodeRecord(s string, r *schema.Record, keep *attrFilter) error {
	d := decoder{s: s}
	if d.byte1() != recV1 {
		return fmt.Errorf("%w: unknown version", errCorrupt)
	}
	r.Type = schema.RecordType(d.byte1())
	r.Status = schema.SpanStatus(d.byte1())
	r.Time = nanosToTime(d.varint())
	r.TraceID = schema.TraceID(d.str())
	r.SpanID = schema.SpanID(d.str())
	r.ParentSpanID = schema.SpanID(d.str())
	r.Service = d.str()
	r.SeverityText = d.str()
	r.Body = d.str()
	r.Name = d.str()
	r.Severity = schema.Severity(d.varint())
	r.Duration = time.Duration(d.varint())
	r.Template = d.str()
	r.Signature = schema.Signature(d.str())
	r.Attrs = d.attrs(keep)
	if d.byte1() == 1 && len(r.Attrs) == 0 {
		r.Attrs = nil
	}
	if d.err == nil && len(d.s) != 0 {
		d.fail()
	}
	return d.err
}

// decoder reads the encoding from a string, so that every decoded string
// field is a substring of it: a record costs one copy of its bytes, not
// one allocation per field. The first error sticks.
type decoder struct {
	s   string
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.s = ""
}

func (d *decoder) byte1() byte {
	if len(d.s) < 1 {
		d.fail()
		return 0
	}
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

// uvarint reads an unsigned LEB128 varint as encoding/binary writes it.
func (d *decoder) uvarint() uint64 {
	var v uint64
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		c := d.s[i]
		if i == binary.MaxVarintLen64-1 && c > 1 {
			break // overflow
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			d.s = d.s[i+1:]
			return v
		}
	}
	d.fail()
	return 0
}

// varint reads a zig-zag signed varint as encoding/binary writes it.
func (d *decoder) varint() int64 {
	u := d.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (d *decoder) take(n uint64) string {
	if uint64(len(d.s)) < n {
		d.fail()
		return ""
	}
	if n == 0 {
		// "", not a view of none of the encoding: an empty view points into
		// it all the same, and a record kept with an empty field kept its
		// block (or its copy of its encoding) alive.
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

func (d *decoder) str() string { return d.take(d.uvarint()) }

func (d *decoder) attrs(keep *attrFilter) map[string]string {
	n := d.uvarint()
	if n > uint64(len(d.s)) { // every pair takes at least two bytes
		d.fail()
		return nil
	}
	if keep != nil {
		return keep.project(d, n)
	}
	m := make(map[string]string, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		k := d.str()
		m[k] = d.str()
	}
	return m
}

// attrFilter is the set of attribute keys a query reads
// (schema.WindowQuery.Attrs), indexed by length: most keys are rejected by
// their length alone, the rest by a comparison or two, without hashing.
type attrFilter struct {
	byLen [64][]string
	long  []string // keys of 64 bytes or more
	n     int
	// Records repeat the same few projected sets (a pod, its version,
	// a status code): each distinct set is built once and shared, keyed
	// by its encoding. Bounded, so a high-cardinality attribute costs a
	// map per record as without sharing, and no more memory.
	shared  map[string]map[string]string
	scratch []byte
	pairs   []string
}

// maxShared bounds the distinct attribute sets an attrFilter shares.
const maxShared = 1 << 14

// project decodes n attribute pairs, keeping those f accepts. Records with
// the same kept pairs share one map.
func (f *attrFilter) project(d *decoder, n uint64) map[string]string {
	f.scratch, f.pairs = f.scratch[:0], f.pairs[:0]
	for i := uint64(0); i < n && d.err == nil; i++ {
		k, v := d.str(), d.str()
		if f.has(k) {
			f.pairs = append(f.pairs, k, v)
			f.scratch = binary.AppendUvarint(f.scratch, uint64(len(k)))
			f.scratch = append(f.scratch, k...)
			f.scratch = binary.AppendUvarint(f.scratch, uint64(len(v)))
			f.scratch = append(f.scratch, v...)
		}
	}
	if d.err != nil {
		return nil
	}
	if m, ok := f.shared[string(f.scratch)]; ok {
		return m
	}
	share := len(f.shared) < maxShared
	m := make(map[string]string, len(f.pairs)/2)
	for i := 0; i < len(f.pairs); i += 2 {
		k, v := f.pairs[i], f.pairs[i+1]
		if share {
			// Strings of its own: a view would keep its record's whole
			// block in memory as long as any record shares the map.
			k, v = strings.Clone(k), strings.Clone(v)
		}
		m[k] = v
	}
	if f.shared == nil {
		f.shared = map[string]map[string]string{}
	}
	if share {
		f.shared[string(f.scratch)] = m
	}
	return m
}

// newAttrFilter returns nil for nil keys: every attribute is kept.
func newAttrFilter(keys []string) *attrFilter {
	if keys == nil {
		return nil
	}
	f := &attrFilter{n: len(keys)}
	for _, k := range keys {
		if len(k) < len(f.byLen) {
			f.byLen[len(k)] = append(f.byLen[len(k)], k)
		} else {
			f.long = append(f.long, k)
		}
	}
	return f
}

func (f *attrFilter) has(k string) bool {
	cands := f.long
	if len(k) < len(f.byLen) {
		cands = f.byLen[len(k)]
	}
	for _, c := range cands {
		if c == k {
			return true
		}
	}
	return false
}
