package correlate

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/faultline/faultline/schema"
)

// TestErrorsReadGivesWhatTheStoreGives: reads of errors and warnings
// through one errorsRead, of overlapping stretches in any order, with and
// without a service and with limits, give the records the store gives, in
// its order; and its caps send reads to the store.
func TestErrorsReadGivesWhatTheStoreGives(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	st := &windowStore{}
	sevs := []schema.Severity{schema.SeverityInfo, schema.SeverityWarn, schema.SeverityError}
	for i := range 1000 {
		svc := []string{"a", "b", "c"}[rng.IntN(3)]
		ms := rng.IntN(90 * 60_000)
		if i%2 == 0 {
			ms = rng.IntN(90) * 60_000 // records that share their time
		}
		r := logAt("", svc, ms, sevs[rng.IntN(3)], fmt.Sprintf("line %d", i))
		r.TraceID = schema.TraceID(fmt.Sprintf("%032x", rng.IntN(400)))
		st.recs = append(st.recs, r)
	}
	read := func(s WindowStore, q schema.WindowQuery) []schema.Record {
		var out []schema.Record
		for r, err := range s.WindowRecords(ctx, q) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	counted := &countedStore{windowStore: st}
	for _, mode := range []string{"held", "capped", "off"} {
		e := newErrorsRead(counted)
		switch mode {
		case "capped":
			e.held = errorsHeldCap - 100 // nearly full: most reads go to the store
		case "off": // every service's stretch too large to hold: reads are kept
			for _, svc := range []string{"", "a", "b", "c"} {
				e.spans[svc] = &errorSpan{off: true}
			}
		}
		counted.reads = 0
		for range 120 {
			from := at(rng.IntN(80 * 60_000))
			q := schema.WindowQuery{From: from, To: from.Add(time.Duration(1+rng.IntN(70*60)) * time.Second),
				ErrorsOnly: true, Limit: 1 + rng.IntN(300)}
			if rng.IntN(2) == 0 {
				q.Service = []string{"a", "b", "c"}[rng.IntN(3)]
			}
			want, got := read(st, q), read(e, q)
			if !slices.EqualFunc(want, got, func(a, b schema.Record) bool { return a.Body == b.Body && a.Time.Equal(b.Time) }) {
				t.Fatalf("%s: %+v: errorsRead gives %d records, the store %d (or another order)", mode, q, len(got), len(want))
			}
			// The same read again, and one of its first records, go to no store.
			reads := counted.reads
			if again := read(e, q); len(again) != len(got) {
				t.Fatalf("%s: %+v: read again gives %d records, %d before", mode, q, len(again), len(got))
			}
			if len(got) > 1 {
				q.Limit = 1 + rng.IntN(len(got)-1)
				if again := read(e, q); !again[len(again)-1].Time.Equal(got[len(again)-1].Time) {
					t.Fatalf("%s: %+v: a shorter read gives another record", mode, q)
				}
			}
			if mode != "capped" && counted.reads != reads {
				t.Errorf("%s: %+v: read again from the store", mode, q)
			}
		}
	}
}

// countedStore counts the window reads that reach its store.
type countedStore struct {
	*windowStore
	reads int
}

func (c *countedStore) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	c.reads++
	return c.windowStore.WindowRecords(ctx, q)
}

// TestErrorsReadFirstRecord: a read of a window's first record gives the
// time of the store's first record there, for windows in any order, and
// reaches the store only when what earlier reads found does not answer it:
// windows that begin before the store's first record are all answered by
// the first read, which asks from the beginning of time.
func TestErrorsReadFirstRecord(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	ws := &windowStore{}
	for i := range 200 {
		ws.recs = append(ws.recs, logAt("", "a", 600_000+rng.IntN(3_600_000), schema.SeverityInfo, fmt.Sprint(i)))
	}
	slices.SortFunc(ws.recs, func(a, b schema.Record) int { return a.Time.Compare(b.Time) })
	st := &countedStore{windowStore: ws}
	e := newErrorsRead(st)
	first := func(s WindowStore, from, to time.Time) (time.Time, bool) {
		for r, err := range s.WindowRecords(ctx, schema.WindowQuery{From: from, To: to, Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			return r.Time, true
		}
		return time.Time{}, false
	}
	before := 0 // windows that begin before the store's first record
	for i := range 300 {
		from := at(rng.IntN(4_800_000))
		if i%2 == 0 {
			from = at(rng.IntN(600_000)) // an hour before a quantum: before the store's first record
			before++
		}
		to := from.Add(time.Duration(rng.IntN(3_600_000)) * time.Millisecond)
		reads := st.reads
		got, gotOK := first(e, from, to)
		st.reads = reads // the reference read is not counted
		want, wantOK := first(ws, from, to)
		if gotOK != wantOK || !got.Equal(want) {
			t.Fatalf("first record of [%v, %v) = %v %v, the store's %v %v", from, to, got, gotOK, want, wantOK)
		}
	}
	if st.reads > 300-before+1 {
		t.Errorf("the store was read %d times for 300 windows, %d of them beginning before its first record", st.reads, before)
	}
	asked := st.reads
	first(e, at(0), at(7_200_000)) // asked before, in effect: no read
	if st.reads != asked {
		t.Errorf("a window that begins before the store's first record was read again")
	}
}

// tallyStore is a store that counts records (recordCounter) as if service
// busy logged more errors than errorsRead holds, and notes the reads of
// the stretches errorsRead would hold.
type tallyStore struct {
	*windowStore
	busy  string
	parts []schema.WindowQuery
}

func (c *tallyStore) CountRecords(_ context.Context, q schema.WindowQuery) (int, error) {
	if q.Service == c.busy {
		return errorsPartCap + 1, nil
	}
	n := 0
	for _, err := range c.windowStore.WindowRecords(context.Background(), schema.WindowQuery{From: q.From, To: q.To, Service: q.Service, ErrorsOnly: q.ErrorsOnly}) {
		if err == nil {
			n++
		}
	}
	return n, nil
}

func (c *tallyStore) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	if q.Limit == errorsPartCap+1 {
		c.parts = append(c.parts, q)
	}
	return c.windowStore.WindowRecords(ctx, q)
}

// TestErrorsReadCountsBeforeItHolds: of a store that counts records, the
// stretch of a service with more errors than errorsRead holds is not read
// to be held (its reads still give the store's records), and the others
// are.
func TestErrorsReadCountsBeforeItHolds(t *testing.T) {
	ctx := context.Background()
	ws := &windowStore{}
	for i := range 300 {
		ws.recs = append(ws.recs, logAt("", []string{"a", "b"}[i%2], i*1000, schema.SeverityError, fmt.Sprint(i)))
	}
	st := &tallyStore{windowStore: ws, busy: "a"}
	e := newErrorsRead(st)
	for _, svc := range []string{"a", "b"} {
		q := schema.WindowQuery{From: at(0), To: at(300_000), Service: svc, ErrorsOnly: true, Limit: 1000}
		n := 0
		for _, err := range e.WindowRecords(ctx, q) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 150 {
			t.Errorf("%s: %d errors read, the store holds 150", svc, n)
		}
	}
	if len(st.parts) != 1 || st.parts[0].Service != "b" {
		t.Errorf("the stretches read to be held: %+v; want b's alone", st.parts)
	}
	if s := e.spans["a"]; s == nil || !s.off {
		t.Errorf("the busy service's stretch is held: %+v", s)
	}
}

// TestErrorsReadHoldsItsOwnStrings: a held record keeps none of the
// store's memory (its strings, empty ones too, may be views of the
// record's whole encoding, every attribute of it), and the strings that
// repeat are held once: the records it gives are the store's, field for
// field.
func TestErrorsReadHoldsItsOwnStrings(t *testing.T) {
	ctx := context.Background()
	st := &windowStore{}
	var encs []string
	for i := range 50 {
		// The record's encoding: its fields, then attributes the rules do
		// not read; the record's strings are views of it, its operation
		// an empty one.
		enc := fmt.Sprintf("%032x|%016x|api|ERROR|failed to call db %d|%s", i, i, i, strings.Repeat("attr=value;", 40))
		f := strings.Split(enc, "|")
		r := schema.Record{Type: schema.TypeLog, Time: at(i * 1000), TraceID: schema.TraceID(f[0]), SpanID: schema.SpanID(f[1]),
			Service: f[2], SeverityText: f[3], Name: enc[5:5], Severity: schema.SeverityError, Body: f[4]}
		st.recs = append(st.recs, r)
		encs = append(encs, enc)
	}
	e := newErrorsRead(st)
	q := schema.WindowQuery{From: at(0), To: at(60_000), Service: "api", ErrorsOnly: true, Limit: 100}
	var got []schema.Record
	for r, err := range e.WindowRecords(ctx, q) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if !slices.EqualFunc(got, st.recs, func(a, b schema.Record) bool { return reflect.DeepEqual(a, b) }) {
		t.Fatalf("errorsRead gives %d records, not the store's %d as they are", len(got), len(st.recs))
	}
	within := func(s, enc string) bool {
		p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(enc)))
		return p >= lo && p <= lo+uintptr(len(enc))
	}
	held := e.spans["api"].recs
	for i := range held {
		if held[i].full != nil {
			t.Fatalf("held record %d is kept whole", i)
		}
		r := held[i].record()
		for _, s := range []string{string(r.TraceID), string(r.SpanID), r.Service, r.SeverityText, r.Name, r.Body} {
			if within(s, encs[i]) {
				t.Fatalf("held record %d keeps %q, a view of the store's encoding", i, s)
			}
		}
		if held[i].names != held[0].names {
			t.Fatalf("held record %d has its own copy of the names its neighbours have", i)
		}
	}
	if size := unsafe.Sizeof(heldRec{}); size > 72 {
		t.Errorf("a held record takes %d bytes, more than 72", size)
	}
}

// TestHeldRecordsOutOfTheWay: a record that does not fit a heldRec (a
// time not in UTC, an id longer than 255 bytes) is held whole, its
// strings its own, and given as the store gave it.
func TestHeldRecordsOutOfTheWay(t *testing.T) {
	e := newErrorsRead(&windowStore{})
	enc := strings.Repeat("s", 300) + "|body"
	odd := []schema.Record{
		{Type: schema.TypeLog, Time: at(1000).In(time.FixedZone("X", 3600)), Service: "a", Body: "not in UTC", Severity: schema.SeverityError},
		{Type: schema.TypeSpan, Time: at(2000), Service: "a", SpanID: schema.SpanID(enc[:300]), Body: enc[301:], Status: schema.StatusError},
	}
	for i := range odd {
		h := e.holdRecord(&odd[i])
		if h.full == nil {
			t.Fatalf("record %d fits a heldRec", i)
		}
		if got := h.record(); !reflect.DeepEqual(got, odd[i]) {
			t.Fatalf("record %d held whole is given as %+v, not %+v", i, got, odd[i])
		}
	}
	h := e.holdRecord(&odd[1])
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(string(h.full.SpanID)))), uintptr(unsafe.Pointer(unsafe.StringData(enc)))
	if p >= lo && p < lo+uintptr(len(enc)) {
		t.Fatal("a record held whole keeps a view of the store's encoding")
	}
	// One that fits comes back field for field, its time in UTC.
	fit := schema.Record{Type: schema.TypeSpan, Count: 3, Time: at(3000), TraceID: "t1", SpanID: "s1", ParentSpanID: "p1",
		Service: "a", Severity: schema.SeverityWarn, SeverityText: "WARN", Body: "slow", Name: "GET /", Duration: time.Second,
		Status: schema.StatusError, Template: "slow", Signature: "sig", Attrs: map[string]string{"k": "v"}}
	if h := e.holdRecord(&fit); h.full != nil || !reflect.DeepEqual(h.record(), fit) {
		t.Fatalf("a record that fits is given as %+v, not %+v", h.record(), fit)
	}
}
