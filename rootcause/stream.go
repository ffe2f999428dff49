package rootcause

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// # Streaming: a healthy trace is learnt from and let go
//
// What the analysis learns from a healthy trace (its services' self
// times and calls, the behaviour of its operations, the versions that
// served it) it learns from the trace whole, once; nothing reads it again.
// So a period's read holds only the traces that it explains later (the
// window's failing traces, which the stores' error index names before the
// read), and gathers every other trace only while it is open: records
// arrive in time order, and a trace is closed once no record of it came
// for traceQuiet and none of its spans still runs. A closed trace is
// handed to the period's learner and its records let go. Memory is then
// the failing traces and the traces of the last traceQuiet, not the
// window: a baseline is never held at all.
//
// A healthy trace that is quiet for longer than traceQuiet between two of
// its records (a job that waited in a queue for minutes) is learnt as two
// traces; its failing counterpart, held by its id, stays whole.

// traceQuiet is how long a healthy trace may go without a record before
// it is closed. Requests and the jobs they hand over take seconds; a
// minute leaves room for retries and queue waits, and holds a minute of
// traffic, whatever the period's length.
const traceQuiet = time.Minute

// openTrace is a healthy trace still gathering records.
type openTrace struct {
	id   schema.TraceID // its own copy, which its records share
	recs []packed
	// until is when it may close: traceQuiet after its latest record or
	// the end of its latest-ending span, whichever is later.
	until time.Time
	// skim is set on a trace the sample will leave out (assembler.skim):
	// its records are not kept, only what tells a copy of its latest ones
	// (their time, at, and their fingerprints, fps), so that it closes,
	// and its copies are told, as when they were.
	skim bool
	at   time.Time
	fps  []uint64
}

// assembler gathers healthy traces as their records stream in.
type assembler struct {
	open  map[schema.TraceID]*openTrace
	swept time.Time
	ids   []schema.TraceID // scratch of sweep
	recs  []schema.Record  // scratch of sweep: a closed trace unpacked
	// in is the interner the records' strings were interned in
	// (ownStrings), which their packed form names them by.
	in *interner
	// skim, when set, tells the traces whose records need not be kept:
	// those the period's sample will leave out whatever happens (a
	// trace's hash not 0 modulo the sampler's k when it opens is not 0
	// modulo any later k, a multiple of it). A window sampled 1 in k
	// then keeps about 1 in k of its open traces' records.
	skim func(schema.TraceID) bool
	// own gives a kept record strings of its own (arena.own).
	own  func(*schema.Record)
	seed maphash.Seed
}

// add adds r, whose strings ownStrings interned in a.in as ids, to its
// open trace, or reports it a copy of a record the trace already has
// (visit's test).
func (a *assembler) add(r *schema.Record, ids internedIDs) (dup bool) {
	if a.open == nil {
		a.open, a.seed = map[schema.TraceID]*openTrace{}, maphash.MakeSeed()
	}
	t := a.open[r.TraceID]
	if t == nil {
		// Its records' slice is its own, grown to its size: a closed
		// trace's given to the next (a big trace's to a small one) held
		// 2.5 times the open records' memory.
		t = &openTrace{id: schema.TraceID(strings.Clone(string(r.TraceID)))}
		t.skim = a.skim != nil && a.skim(t.id)
		a.open[t.id] = t
	}
	r.TraceID = t.id
	if u := r.End().Add(traceQuiet); u.After(t.until) {
		t.until = u
	}
	if t.skim {
		if !r.Time.Equal(t.at) {
			t.at, t.fps = r.Time, t.fps[:0]
		}
		fp := fingerprint(a.seed, r)
		if slices.Contains(t.fps, fp) {
			return true
		}
		t.fps = append(t.fps, fp)
		return false
	}
	for j := len(t.recs) - 1; j >= 0 && t.recs[j].at().Equal(r.Time); j-- {
		if t.recs[j].same(r, a.in) {
			return true
		}
	}
	if a.own != nil {
		a.own(r)
	}
	t.recs = append(t.recs, pack(r, ids))
	return false
}

// fingerprint hashes what correlate.SameRecord compares of r.
func fingerprint(seed maphash.Seed, r *schema.Record) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var b [8 * 4]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(r.Type))
	binary.LittleEndian.PutUint64(b[8:], uint64(r.Severity))
	binary.LittleEndian.PutUint64(b[16:], uint64(r.Duration))
	binary.LittleEndian.PutUint64(b[24:], uint64(r.Status))
	h.Write(b[:])
	for _, s := range [...]string{string(r.SpanID), r.Service, r.Body, r.Name} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// sweep closes, in trace id order, the traces that may close by now
// (every one when now is zero), handing each to done with its records
// (none for a skimmed one). It runs once per
// quarter of traceQuiet of the stream's time, so that a trace is closed
// at most traceQuiet/4 late and the open traces are walked a few times a
// minute of data, not once a record.
func (a *assembler) sweep(now time.Time, done func(schema.TraceID, []schema.Record)) {
	if !now.IsZero() && now.Sub(a.swept) < traceQuiet/4 {
		return
	}
	a.swept = now
	a.ids = a.ids[:0]
	for id, t := range a.open {
		if now.IsZero() || t.until.Before(now) {
			a.ids = append(a.ids, id)
		}
	}
	slices.Sort(a.ids)
	for _, id := range a.ids {
		t := a.open[id]
		delete(a.open, id)
		a.recs = a.recs[:0]
		for i := range t.recs {
			a.recs = append(a.recs, schema.Record{})
			t.recs[i].unpack(&a.recs[i], t.id, a.in)
		}
		if len(a.recs) == 0 {
			done(t.id, nil)
		} else {
			done(t.id, a.recs)
		}
		clear(a.recs)
	}
}

// # Strings of their own
//
// A streamed record's strings are views of the store's block it was
// decoded from (the embedded store's are), and what the period keeps of it
// (a service's name as a map key, a template, an operation, a trace's id
// among the slowest) would keep the whole block, and every record of it,
// in memory. So the fields the period keeps are replaced, before it sees
// the record, by copies of their own: one per distinct value (intern),
// as services, operations and templates repeat; the trace's id by the
// open trace's copy.

// ownStrings gives r's kept fields strings of their own, and returns
// their indices in the interner (0 for "" and for one past its size).
func ownStrings(r *schema.Record, in *interner) (ids internedIDs) {
	r.Service, ids[0] = in.id(r.Service)
	r.Name, ids[1] = in.id(r.Name)
	r.SeverityText, ids[2] = in.id(r.SeverityText)
	r.Template, ids[3] = in.id(r.Template)
	var sig string
	sig, ids[4] = in.id(string(r.Signature))
	r.Signature = schema.Signature(sig)
	return ids
}

// internedIDs are the indices of a record's service, operation, severity
// text, template and signature in an interner (ownStrings).
type internedIDs [5]uint32

// interner holds one copy of each distinct string, up to maxInterned of
// them; past that, a string is copied each time (high-cardinality names).
// Each copy has an index, so that a record may name it in 4 bytes rather
// than 16 (packed).
type interner struct {
	m    map[string]uint32
	strs []string // strs[0] is ""
}

const maxInterned = 1 << 16

func (in *interner) of(s string) string { v, _ := in.id(s); return v }

// id is s's copy and its index; 0 for "" and for a string past
// maxInterned, copied each time.
func (in *interner) id(s string) (string, uint32) {
	if s == "" {
		return "", 0
	}
	if i, ok := in.m[s]; ok {
		return in.strs[i], i
	}
	v := strings.Clone(s)
	if in.m == nil {
		in.m, in.strs = map[string]uint32{}, []string{""}
	}
	if len(in.m) >= maxInterned {
		return v, 0
	}
	i := uint32(len(in.strs))
	in.m[v], in.strs = i, append(in.strs, v)
	return v, i
}

// str is the string of index i.
func (in *interner) str(i uint32) string { return in.strs[i] }

// packed is a record of an open trace as the assembler keeps it, in half
// the memory of a schema.Record: its time in nanoseconds (UTC), the
// strings that repeat by their index in the period's interner, and no
// trace id (its trace's). A record that does not fit (a time not in UTC
// or out of range, a string past the interner's size) is kept whole, in
// full.
type packed struct {
	ns, dur int64
	// text is the record's span id, parent span id and body, laid one
	// after the other (detacher.detach and arena.own lay them so): 8 bytes
	// and their lengths, not three strings' 48. Nil when all are empty.
	text    *byte
	attrs   map[string]string
	full    *schema.Record
	bodyLen uint32
	ids     internedIDs
	sev     schema.Severity
	// The fields, largest first, leave no padding: 72 bytes.
	spanLen, parentLen uint8
	typ                schema.RecordType
	status             schema.SpanStatus
}

func pack(r *schema.Record, ids internedIDs) packed {
	ns := r.Time.UnixNano()
	fits := r.Time == time.Unix(0, ns).UTC()
	for i, s := range [...]string{r.Service, r.Name, r.SeverityText, r.Template, string(r.Signature)} {
		fits = fits && (s == "") == (ids[i] == 0)
	}
	text, laid := laidOut(string(r.SpanID), string(r.ParentSpanID), r.Body)
	if !fits || !laid {
		c := *r
		return packed{full: &c}
	}
	return packed{ns: ns, dur: int64(r.Duration), text: text, bodyLen: uint32(len(r.Body)),
		spanLen: uint8(len(r.SpanID)), parentLen: uint8(len(r.ParentSpanID)),
		attrs: r.Attrs, ids: ids, sev: r.Severity, typ: r.Type, status: r.Status}
}

// laidOut returns where span, parent and body begin when they lie one
// after the other in memory (empty ones anywhere) and their lengths fit
// packed's; laid is false when not.
func laidOut(span, parent, body string) (text *byte, laid bool) {
	if len(span) > math.MaxUint8 || len(parent) > math.MaxUint8 || len(body) > math.MaxUint32 {
		return nil, false
	}
	// Compared as addresses: no pointer is made past the text.
	var base uintptr
	off := 0
	for _, s := range [...]string{span, parent, body} {
		if s == "" {
			continue
		}
		at := unsafe.StringData(s)
		if text == nil {
			text, base = at, uintptr(unsafe.Pointer(at))
		} else if uintptr(unsafe.Pointer(at)) != base+uintptr(off) {
			return nil, false
		}
		off += len(s)
	}
	return text, true
}

// strings are p's span id, parent span id and body.
func (p *packed) strings() (span, parent, body string) {
	if p.text == nil {
		return "", "", ""
	}
	at := func(off, n int) string {
		if n == 0 {
			return ""
		}
		return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(p.text), off)), n)
	}
	s, pa := int(p.spanLen), int(p.parentLen)
	return at(0, s), at(s, pa), at(s+pa, int(p.bodyLen))
}

// unpack writes p, of trace id, into r.
func (p *packed) unpack(r *schema.Record, id schema.TraceID, in *interner) {
	if p.full != nil {
		*r = *p.full
		return
	}
	span, parent, body := p.strings()
	*r = schema.Record{Type: p.typ, Time: time.Unix(0, p.ns).UTC(), TraceID: id, SpanID: schema.SpanID(span),
		ParentSpanID: schema.SpanID(parent), Service: in.str(p.ids[0]), Severity: p.sev,
		SeverityText: in.str(p.ids[2]), Body: body, Name: in.str(p.ids[1]), Duration: time.Duration(p.dur),
		Status: p.status, Template: in.str(p.ids[3]), Signature: schema.Signature(in.str(p.ids[4])), Attrs: p.attrs}
}

// at is p's time.
func (p *packed) at() time.Time {
	if p.full != nil {
		return p.full.Time
	}
	return time.Unix(0, p.ns).UTC()
}

// same is correlate.SameRecord of p and r.
func (p *packed) same(r *schema.Record, in *interner) bool {
	if p.full != nil {
		return correlate.SameRecord(p.full, r)
	}
	span, _, body := p.strings()
	return p.typ == r.Type && span == string(r.SpanID) && in.str(p.ids[0]) == r.Service && p.sev == r.Severity &&
		body == r.Body && in.str(p.ids[1]) == r.Name && p.dur == int64(r.Duration) && p.status == r.Status
}

// arena copies strings into slabs it allocates: the fields of an open
// trace's records that ownStrings leaves (its span ids and body) are
// copied there, so that an open trace keeps the bytes of its own records,
// not the store's blocks they were decoded from (every field of every
// record of them). A slab goes once every trace with a string in it has
// closed; open traces are the last traceQuiet of the stream, so the slabs
// in memory are about that much of its ids and bodies.
type arena struct{ buf []byte }

const arenaSlab = 64 << 10

// own gives r's span ids and body copies in a, laid one after the other
// (packed keeps where they begin and their lengths).
func (a *arena) own(r *schema.Record) {
	strs := [...]*string{(*string)(&r.SpanID), (*string)(&r.ParentSpanID), &r.Body}
	n := 0
	for _, p := range strs {
		n += len(*p)
	}
	if len(a.buf)+n > cap(a.buf) {
		a.buf = make([]byte, 0, max(arenaSlab, n))
	}
	for _, p := range strs {
		if *p == "" {
			continue
		}
		at := len(a.buf)
		a.buf = append(a.buf, *p...)
		*p = unsafe.String(unsafe.SliceData(a.buf[at:]), len(*p))
	}
}
