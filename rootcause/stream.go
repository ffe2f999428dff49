package rootcause

import (
	"encoding/binary"
	"hash/maphash"
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
	recs []schema.Record
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
	free  [][]schema.Record // record slices of closed traces, reused
	ids   []schema.TraceID  // scratch of sweep
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

// add adds r to its open trace, or reports it a copy of a record the
// trace already has (visit's test).
func (a *assembler) add(r *schema.Record) (dup bool) {
	if a.open == nil {
		a.open, a.seed = map[schema.TraceID]*openTrace{}, maphash.MakeSeed()
	}
	t := a.open[r.TraceID]
	if t == nil {
		t = &openTrace{id: schema.TraceID(strings.Clone(string(r.TraceID)))}
		t.skim = a.skim != nil && a.skim(t.id)
		if n := len(a.free); n > 0 && !t.skim {
			t.recs, a.free = a.free[n-1], a.free[:n-1]
		}
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
	for j := len(t.recs) - 1; j >= 0 && t.recs[j].Time.Equal(r.Time); j-- {
		if correlate.SameRecord(&t.recs[j], r) {
			return true
		}
	}
	if a.own != nil {
		a.own(r)
	}
	t.recs = append(t.recs, *r)
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
		done(t.id, t.recs)
		clear(t.recs) // its strings may go
		if cap(t.recs) > 0 && cap(t.recs) <= 256 {
			a.free = append(a.free, t.recs[:0])
		}
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

// ownStrings gives r's kept fields strings of their own.
func ownStrings(r *schema.Record, in *interner) {
	r.Service = in.of(r.Service)
	r.Name = in.of(r.Name)
	r.SeverityText = in.of(r.SeverityText)
	r.Template = in.of(r.Template)
	r.Signature = schema.Signature(in.of(string(r.Signature)))
}

// interner holds one copy of each distinct string, up to maxInterned of
// them; past that, a string is copied each time (high-cardinality names).
type interner struct{ m map[string]string }

const maxInterned = 1 << 16

func (in *interner) of(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in.m[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if in.m == nil {
		in.m = map[string]string{}
	}
	if len(in.m) < maxInterned {
		in.m[v] = v
	}
	return v
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

func (a *arena) of(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(a.buf)+len(s) > cap(a.buf) {
		a.buf = make([]byte, 0, max(arenaSlab, len(s)))
	}
	at := len(a.buf)
	a.buf = append(a.buf, s...)
	return unsafe.String(unsafe.SliceData(a.buf[at:]), len(s))
}

// own gives r's span ids and body copies in a.
func (a *arena) own(r *schema.Record) {
	r.SpanID = schema.SpanID(a.of(string(r.SpanID)))
	r.ParentSpanID = schema.SpanID(a.of(string(r.ParentSpanID)))
	r.Body = a.of(r.Body)
}
