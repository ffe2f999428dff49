package rootcause

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
)

// sampleStore is a store of records in time order that reads errors only
// when asked (memStore does not), for the sampler's tests.
type sampleStore struct{ recs []schema.Record }

func (m *sampleStore) TraceRecords(context.Context, schema.TraceID, int) iter.Seq2[schema.Record, error] {
	return func(func(schema.Record, error) bool) {}
}

func (m *sampleStore) Bounds(context.Context) (time.Time, time.Time, error) {
	return m.recs[0].Time, m.recs[len(m.recs)-1].Time, nil
}

func (m *sampleStore) WindowRecords(_ context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		for _, r := range m.recs {
			if r.Time.Before(q.From) || !r.Time.Before(q.To) || q.ErrorsOnly && !r.IsError() && r.Severity < schema.SeverityWarn {
				continue
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// TestStreamedReadKeepsTracesWhole: a period read with a small sampling
// budget holds every failing trace whole, and hands every other trace,
// whole and in order, to its learner once, or leaves it out of the
// sample; a trace taken at 1 in k weighs k (its learner is given that weight).
// Every record is profiled, and copies of records are found in traces
// held and streamed alike.
func TestStreamedReadKeepsTracesWhole(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	var recs []schema.Record
	byTrace := map[schema.TraceID][]schema.Record{}
	failing := map[schema.TraceID]bool{}
	copies := 0
	// 600 traces of 4 records each, interleaved: trace i's records are at
	// i, i+7, i+14, i+21 seconds/10, so that traces overlap in time. The
	// whole spans a minute, so traces close while others stream.
	for i := range 600 {
		id := schema.TraceID(fmt.Sprintf("%032x", i+1))
		for j := range 4 {
			r := schema.Record{Type: schema.TypeLog, Time: t0.Add(time.Duration(i*100+j*700) * time.Millisecond),
				TraceID: id, Service: fmt.Sprintf("svc-%d", j), Severity: schema.SeverityInfo, Body: fmt.Sprintf("step %d", j)}
			if j == 3 && i%10 == 0 {
				r.Severity, r.Body = schema.SeverityError, "it failed"
				failing[id] = true
			}
			recs = append(recs, r)
			byTrace[id] = append(byTrace[id], r)
			if i%50 == 7 && j == 3 || i%50 == 20 && j == 3 {
				recs = append(recs, r) // shipped twice (20: a failing trace)
				copies++
			}
		}
	}
	// One more trace whose second record comes long after its first, while
	// its span runs: it stays open, and whole.
	long := schema.TraceID(fmt.Sprintf("%032x", 9999))
	for j, at := range []time.Duration{0, 3 * traceQuiet} {
		r := schema.Record{Type: schema.TypeSpan, Time: t0.Add(at), TraceID: long, SpanID: schema.SpanID(fmt.Sprint(j + 1)),
			Service: "slow", Name: "op", Duration: time.Millisecond}
		if j == 0 {
			r.Duration = 4 * traceQuiet
		}
		recs = append(recs, r)
		byTrace[long] = append(byTrace[long], r)
	}
	slices.SortStableFunc(recs, func(a, b schema.Record) int { return a.Time.Compare(b.Time) })
	st := &sampleStore{recs: recs}
	to := recs[len(recs)-1].Time.Add(time.Second)
	hold, err := failingTraces(context.Background(), st, t0, to, 0)
	if err != nil || len(hold) != len(failing) {
		t.Fatalf("%d failing traces found (%v), want %d", len(hold), err, len(failing))
	}
	learnt := map[schema.TraceID]int{}
	smp := newSampler(300)
	l, err := readPeriod(context.Background(), st, newPeriod(t0, to), Options{}, 0, smp, hold, func(p *period, got []schema.Record, w int) {
		id := got[0].TraceID
		if failing[id] {
			t.Fatalf("failing trace %s streamed", id)
		}
		want := byTrace[id]
		if len(got) != len(want) {
			t.Fatalf("trace %s learnt with %d records, want %d", id, len(got), len(want))
		}
		for x := range got {
			if got[x].Body != want[x].Body || !got[x].Time.Equal(want[x].Time) {
				t.Fatalf("trace %s record %d is %q at %s, want %q at %s", id, x, got[x].Body, got[x].Time, want[x].Body, want[x].Time)
			}
		}
		learnt[id] += w
	})
	if err != nil {
		t.Fatal(err)
	}
	k := l.sample.k
	if k < 4 {
		t.Fatalf("a budget of 300 records for 2160 healthy ones sampled 1 in %d; want at least 1 in 4", k)
	}
	if l.n != len(recs) || l.p.records != len(recs)-copies || l.dups != copies {
		t.Fatalf("read %d records, profiled %d, found %d copies; want %d, %d, %d", l.n, l.p.records, l.dups, len(recs), len(recs)-copies, copies)
	}
	est := 0
	for id, want := range byTrace {
		got, held := l.traces.idx[id]
		if held != failing[id] {
			t.Fatalf("trace %s (failing %v) held %v", id, failing[id], held)
		}
		if !held {
			if w := learnt[id]; w != 0 && (w&(w-1) != 0 || uint64(w) > k) {
				t.Fatalf("trace %s weighs %d, want a power of two up to %d", id, w, k)
			}
			est += learnt[id]
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("trace %s holds %d records, want %d", id, len(got), len(want))
		}
		for x, i := range got {
			var r schema.Record
			if l.get(id, i, &r); r.Body != want[x].Body || !r.Time.Equal(want[x].Time) || r.TraceID != id {
				t.Fatalf("trace %s record %d is %q at %s, want %q at %s", id, x, r.Body, r.Time, want[x].Body, want[x].Time)
			}
		}
	}
	// The taken traces stand for about the 541 healthy ones.
	if est < 541*7/10 || est > 541*13/10 {
		t.Fatalf("the taken traces stand for %d traces of 541", est)
	}
	s := l.sampled()
	if s == nil || s.Traces != len(byTrace) || s.Held != len(l.traces.idx)+smp.kept || s.K != int(k) {
		t.Fatalf("sampled %+v; want %d traces, %d held, k %d", s, len(byTrace), len(l.traces.idx)+smp.kept, k)
	}
}

// TestStreamedTraceStaysOpenWhileItsSpanRuns: a trace whose records are
// further apart than traceQuiet is learnt whole while a span of it runs
// across the gap, and as two traces when none does.
func TestStreamedTraceStaysOpenWhileItsSpanRuns(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		root   time.Duration
		traces int
	}{{4 * traceQuiet, 1}, {time.Second, 2}} {
		recs := []schema.Record{
			{Type: schema.TypeSpan, Time: t0, TraceID: "t1", SpanID: "a", Service: "api", Name: "GET", Duration: tc.root},
			{Type: schema.TypeSpan, Time: t0.Add(3 * traceQuiet), TraceID: "t1", SpanID: "b", ParentSpanID: "a", Service: "job", Name: "run", Duration: time.Second},
		}
		var got [][]schema.Record
		l, err := readPeriod(context.Background(), &sampleStore{recs: recs}, newPeriod(t0, t0.Add(time.Hour)), Options{}, 0, nil, nil,
			func(_ *period, recs []schema.Record, _ int) { got = append(got, slices.Clone(recs)) })
		if err != nil || l.n != 2 {
			t.Fatalf("read %d records: %v", l.n, err)
		}
		if len(got) != tc.traces {
			t.Errorf("a root span of %s across a gap of %s: learnt as %d traces, want %d", tc.root, 3*traceQuiet, len(got), tc.traces)
		}
	}
}

// TestTraceHashSpreadsSequentialIDs: ids that differ in their last
// characters (a 64-bit counter padded to 128 bits) fall into the sample
// as often as random ones would.
func TestTraceHashSpreadsSequentialIDs(t *testing.T) {
	const n = 80_000
	for _, k := range []uint64{2, 8, 64} {
		in := 0
		for i := range n {
			if traceHash(schema.TraceID(fmt.Sprintf("%032x", i)))%k == 0 {
				in++
			}
		}
		want := float64(n) / float64(k)
		if d := float64(in) - want; d*d > 25*want { // 5 standard deviations
			t.Errorf("1 in %d: %d of %d ids sampled, want about %.0f", k, in, n, want)
		}
	}
}

// TestStreamedStringsAreOwn: what a period keeps of streamed records (its
// services' names, their templates) are strings of their own, not views of the buffer the store decoded them from, which would
// keep the buffer, and every record of it, in memory.
func TestStreamedStringsAreOwn(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	buf := strings.Clone("checkout-api|GET /cart|cart <*> loaded|")
	view := func(i, j int) string { return buf[i:j] }
	svc, op, tmpl := view(0, 12), view(13, 22), view(23, 38)
	var recs []schema.Record
	for i := range 50 {
		id := schema.TraceID(fmt.Sprintf("%032x", i+1))
		recs = append(recs, schema.Record{Type: schema.TypeSpan, Time: t0.Add(time.Duration(i) * time.Second), TraceID: id,
			SpanID: "s1", Service: svc, Name: op, Template: tmpl, Signature: schema.Signature(tmpl), Duration: time.Millisecond})
	}
	in := func(s string) bool {
		lo := uintptr(unsafe.Pointer(unsafe.StringData(buf)))
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return p >= lo && p < lo+uintptr(len(buf))
	}
	p := newPeriod(t0, t0.Add(time.Hour))
	var ids []schema.TraceID
	_, err := readPeriod(context.Background(), &sampleStore{recs: recs}, p, Options{}, 0, nil, nil, func(p *period, recs []schema.Record, _ int) {
		ids = append(ids, recs[0].TraceID)
		p.addSelfTimes(recs, nil, 1)
	})
	if err != nil || len(ids) != 50 {
		t.Fatalf("learnt %d traces of 50: %v", len(ids), err)
	}
	for name, sp := range p.services {
		if in(name) || in(sp.name) {
			t.Errorf("service %q is kept as a view of the store's buffer", name)
		}
		for tm := range sp.templates {
			if in(tm) {
				t.Errorf("template %q is kept as a view of the store's buffer", tm)
			}
		}
	}
	if len(p.services) == 0 {
		t.Fatal("no service profiled")
	}
}

// TestLateNameSettlesHosts: a healthy trace whose call to an
// uninstrumented peer names it by its host only (server.address) is
// learnt before any record gives the peer's name; a later trace's client
// span names it (peer.service). The streamed read settles the host as a
// read that knew every name from the start: both calls are the peer's.
func TestLateNameSettlesHosts(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	call := func(at time.Duration, trace string, attrs map[string]string) []schema.Record {
		return []schema.Record{
			{Type: schema.TypeSpan, Time: t0.Add(at), TraceID: schema.TraceID(trace), SpanID: "a", Service: "shop", Name: "GET /", Duration: 30 * time.Millisecond},
			{Type: schema.TypeSpan, Time: t0.Add(at + time.Millisecond), TraceID: schema.TraceID(trace), SpanID: "b", ParentSpanID: "a",
				Service: "shop", Name: "GET rates", Duration: 20 * time.Millisecond, Attrs: attrs},
		}
	}
	recs := append(call(0, "t1", map[string]string{"server.address": "api.imagery.example.com"}),
		call(10*time.Minute, "t2", map[string]string{schema.AttrPeerService: "imagery"})...)
	l, err := readBase(context.Background(), &sampleStore{recs: recs}, t0, t0.Add(time.Hour), Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if sp := l.p.services["imagery"]; sp == nil || sp.peerNs.count() != 2 {
		t.Fatalf("the peer imagery has %v calls; want both (hosts %v)", sp, l.p.hosts)
	}
	if sp := l.p.services["api.imagery.example.com"]; sp != nil {
		t.Fatalf("the host is a peer of its own: %+v", sp)
	}
}

// TestSkimmedTraceTellsItsCopies: a trace the sample will leave out is
// skimmed (its records not kept, nor given strings of their own); it
// still tells a copy of a record from a record of the same time, and
// closes when it would have, with no records, while a kept trace closes
// whole.
func TestSkimmedTraceTellsItsCopies(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	owned := 0
	in := &interner{}
	a := assembler{skim: func(id schema.TraceID) bool { return id == "b" }, own: func(*schema.Record) { owned++ }, in: in}
	rec := func(id schema.TraceID, at time.Duration, body string) *schema.Record {
		return &schema.Record{Time: t0.Add(at), TraceID: id, Service: "svc", Body: body}
	}
	var dups []string
	for _, r := range []*schema.Record{
		rec("a", 0, "x"), rec("b", 0, "x"), rec("b", 0, "y"), rec("b", 0, "x"), rec("a", 0, "x"),
		rec("b", time.Second, "x"), rec("b", time.Second, "x"), rec("a", time.Second, "z"),
	} {
		if a.add(r, ownStrings(r, in)) {
			dups = append(dups, fmt.Sprintf("%s %s %s", r.TraceID, r.Time.Sub(t0), r.Body))
		}
	}
	if want := []string{"b 0s x", "a 0s x", "b 1s x"}; !slices.Equal(dups, want) {
		t.Errorf("copies told: %q, want %q", dups, want)
	}
	if owned != 2 {
		t.Errorf("%d records given strings of their own, want the kept trace's 2", owned)
	}
	closed := map[schema.TraceID]int{}
	a.sweep(t0.Add(time.Second+traceQuiet/2), func(id schema.TraceID, recs []schema.Record) { closed[id] = -1 })
	if len(closed) != 0 {
		t.Fatalf("closed %v before traceQuiet passed", closed)
	}
	a.sweep(t0.Add(2*time.Second+traceQuiet), func(id schema.TraceID, recs []schema.Record) { closed[id] = len(recs) })
	if want := map[schema.TraceID]int{"a": 2, "b": 0}; !maps.Equal(closed, want) {
		t.Errorf("closed %v, want %v", closed, want)
	}
}

// TestPackedRecordIsTheRecord: an open trace's record, its strings owned
// as the assembler owns them, packed and unpacked, is the record it was,
// field for field, whether it fits the packed form or is kept whole (a
// time in another zone or with a monotonic reading, a zero time, a string
// the interner did not index, span ids and body not laid out together).
func TestPackedRecordIsTheRecord(t *testing.T) {
	in := &interner{}
	var ar arena
	// The slab all but full: the next record's strings go to a new one,
	// together.
	ar.buf = make([]byte, arenaSlab-3, arenaSlab)
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 123456789, time.UTC)
	recs := []schema.Record{
		{Type: schema.TypeSpan, Time: t0, TraceID: "t", SpanID: "s1", ParentSpanID: "s0", Service: "api", Severity: schema.SeverityError,
			SeverityText: "ERROR", Body: "boom", Name: "GET /x", Duration: 3 * time.Millisecond, Status: schema.StatusError,
			Template: "boom", Signature: "sig", Attrs: map[string]string{"k": "v"}},
		{Time: t0, TraceID: "t", Service: "api", Body: "a line"},
		{TraceID: "t"}, // zero time: out of the nanoseconds' range
		{Time: t0.In(time.FixedZone("CET", 3600)), TraceID: "t", Service: "api"},
		{Time: time.Now(), TraceID: "t", Service: "api"}, // a monotonic reading
	}
	for i, r := range recs {
		ids := ownStrings(&r, in)
		ar.own(&r)
		p := pack(&r, ids)
		var got schema.Record
		p.unpack(&got, "t", in)
		if got.Time != r.Time || !reflect.DeepEqual(got, r) {
			t.Errorf("record %d: packed and unpacked\n%+v\nwant\n%+v", i, got, r)
		}
		if !p.same(&r, in) || !p.at().Equal(r.Time) {
			t.Errorf("record %d: packed, it is not the same record", i)
		}
		if fits := p.full == nil; fits != (i < 2) {
			t.Errorf("record %d packed whole %v, want %v", i, !fits, i >= 2)
		}
	}
	// A string past the interner's size is kept whole.
	r := schema.Record{Time: t0, TraceID: "t", Service: "api", Name: "op"}
	ids := ownStrings(&r, in)
	ids[1] = 0
	if p := pack(&r, ids); p.full == nil {
		t.Error("a record with a string the interner did not index is packed")
	}
	// Span id and body in one buffer, the body first: not laid out.
	buf := strings.Clone("a lines1")
	r = schema.Record{Time: t0, TraceID: "t", Service: "api", SpanID: schema.SpanID(buf[6:]), Body: buf[:6]}
	ids = ownStrings(&r, in)
	p := pack(&r, ids)
	var got schema.Record
	if p.unpack(&got, "t", in); p.full == nil || !reflect.DeepEqual(got, r) {
		t.Errorf("a record whose span id lies after its body: packed whole %v, unpacked %+v", p.full != nil, got)
	}
	// A span id longer than packed counts is kept whole.
	r = schema.Record{Time: t0, TraceID: "t", Service: "api", SpanID: schema.SpanID(strings.Repeat("f", 300)), Body: "x"}
	ids = ownStrings(&r, in)
	ar.own(&r)
	if p := pack(&r, ids); p.full == nil {
		t.Error("a record with a 300-byte span id is packed")
	}
}

// TestWeightedLearningIsRepeatedLearning: a trace that stands for w
// (sample.go) is learnt once with weight w, and adds what learning it w
// times adds: the same samples, counts, operations, calls and edges. The
// weight saves the work of indexing the trace w times over, not a
// thing it tells.
func TestWeightedLearningIsRepeatedLearning(t *testing.T) {
	for i, topo := range sim.AllTopologies() {
		t.Run(topo, func(t *testing.T) {
			inc, err := sim.Generate(sim.Config{Seed: int64(11 + i), Topology: topo, Baseline: 2 * time.Minute,
				Window: 3 * time.Minute, TracesPerSecond: 3})
			if err != nil {
				t.Fatal(err)
			}
			weightedIsRepeated(t, inc)
		})
	}
}

func weightedIsRepeated(t *testing.T, inc *sim.Incident) {
	byTrace := map[schema.TraceID][]schema.Record{}
	var ids []schema.TraceID
	for _, r := range inc.Records {
		if r.TraceID == "" {
			continue
		}
		if byTrace[r.TraceID] == nil {
			ids = append(ids, r.TraceID)
		}
		byTrace[r.TraceID] = append(byTrace[r.TraceID], r)
	}
	from, to := inc.Truth.Window.From, inc.Truth.Window.To
	const w = 3
	learnt := func(weighted bool) (*period, *traceVotes) {
		p := newPeriod(from, to)
		tv := newTraceVotes(p, Options{})
		learn := tv.learner(Options{})
		for _, id := range ids {
			recs := byTrace[id]
			slices.SortStableFunc(recs, func(a, b schema.Record) int { return a.Time.Compare(b.Time) })
			if weighted {
				learn(p, recs, w)
				continue
			}
			for range w {
				learn(p, recs, 1)
			}
		}
		return p, tv
	}
	pw, tw := learnt(true)
	pr, tr := learnt(false)
	if len(ids) < 100 || len(pr.services) < 3 || len(pr.ops) == 0 || len(tr.edges) == 0 || len(pr.timing.edges)+len(pr.timing.work) == 0 {
		t.Fatalf("too little learnt to compare: %d traces, %d services, %d operations, %d edges", len(ids), len(pr.services), len(pr.ops), len(tr.edges))
	}
	// Learnt once with its weight, a sample stands for as many learnt
	// repeatedly: compared as the multisets they stand for.
	sorted := func(s *samples) []float64 {
		var out []float64
		if s != nil {
			for i, v := range s.ns {
				out = appendN(out, v, s.weight(i))
			}
		}
		slices.Sort(out)
		return out
	}
	same := func(what string, a, b any) {
		t.Helper()
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: weighted %v, repeated %v", what, a, b)
		}
	}
	same("traces", tw.traces, tr.traces)
	same("edges", tw.edges, tr.edges)
	same("callees", pw.callees, pr.callees)
	for svc, r := range pr.services {
		w := pw.services[svc]
		if w == nil {
			t.Errorf("service %s learnt only repeated", svc)
			continue
		}
		same(svc+" self times", sorted(&w.selfNs), sorted(&r.selfNs))
		same(svc+" callers' waits", sorted(&w.peerNs), sorted(&r.peerNs))
		same(svc+" callers' failed calls", w.peerErrors, r.peerErrors)
		for op, ns := range r.opSelfNs {
			same(svc+" "+op+" self times", sorted(w.opSelfNs[op]), sorted(ns))
		}
	}
	same("operations", len(pw.ops), len(pr.ops))
	for k, r := range pr.ops {
		w := pw.ops[k]
		if w == nil {
			t.Errorf("operation %v learnt only repeated", k)
			continue
		}
		same(fmt.Sprint(k, " units"), [3]int{w.units, w.traces, w.failUnits}, [3]int{r.units, r.traces, r.failUnits})
		same(fmt.Sprint(k, " events"), w.events, r.events)
		same(fmt.Sprint(k, " events in failing traces"), w.failEvents, r.failEvents)
		same(fmt.Sprint(k, " first events"), w.first, r.first)
	}
	stats := func(what string, w, r *timingStat) {
		t.Helper()
		if w == nil || r == nil {
			same(what+" present", w != nil, r != nil)
			return
		}
		same(what+" samples", sorted(&w.samples), sorted(&r.samples))
		same(what+" count", w.count(), r.count())
		same(what+" failed", w.failed, r.failed)
		var wi, ri []schema.TraceID
		for i, id := range w.ids {
			wi = appendN(wi, w.tab.id(id), w.weight(i))
		}
		for i, id := range r.ids {
			ri = appendN(ri, r.tab.id(id), r.weight(i))
		}
		slices.Sort(wi)
		slices.Sort(ri)
		same(what+" traces", wi, ri)
	}
	for k, r := range pr.timing.edges {
		stats(fmt.Sprint("wait ", k), pw.timing.edges[k], r)
	}
	for k, r := range pr.timing.work {
		stats(fmt.Sprint("work ", k), pw.timing.work[k], r)
	}
	for k, r := range pr.logSpans {
		stats("log span "+k, pw.logSpans[k], r)
	}
	for k, r := range pr.uncovered {
		stats("uncovered "+k, pw.uncovered[k], r)
	}
	same("trace durations", pw.timing.durs, pr.timing.durs)
	reached := func(rc reached) map[string][]int64 {
		out := map[string][]int64{}
		for svc, at := range rc.at {
			out[svc] = slices.Sorted(slices.Values(at))
		}
		return out
	}
	same("reached", reached(tw.reached), reached(tr.reached))
}

// appendN appends v to s n times.
func appendN[T any](s []T, v T, n int) []T {
	for range n {
		s = append(s, v)
	}
	return s
}

// TestWeightedQuantileIsRepeatedQuantile: a quantile of weighted samples
// is the quantile of the samples repeated as often as their weights, and
// sorting them keeps each weight and trace with its sample.
func TestWeightedQuantileIsRepeatedQuantile(t *testing.T) {
	for seed := range uint64(20) {
		var ws timingStat
		var flat []float64
		x := seed*2654435761 + 1
		next := func(n uint64) uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x % n }
		for i := range 1 + next(40) {
			v, w := float64(next(25)), int(1+next(6))
			ws.addN(v, schema.TraceID(fmt.Sprint(i)), true, w)
			flat = appendN(flat, v, w)
		}
		owner := map[schema.TraceID]float64{}
		for i, id := range ws.ids {
			owner[ws.tab.id(id)] = ws.ns[i]
		}
		ws.sort()
		slices.Sort(flat)
		if ws.count() != len(flat) {
			t.Fatalf("seed %d: %d samples counted, %d added", seed, ws.count(), len(flat))
		}
		for _, q := range []float64{0, 0.1, 0.5, 0.9, 0.95, 0.99, 1} {
			if got, want := ws.quantile(q), quantile(flat, q); got != want {
				t.Errorf("seed %d: quantile %.2f of weighted samples %v, of repeated %v", seed, q, got, want)
			}
		}
		for i, ref := range ws.ids {
			if id := ws.tab.id(ref); owner[id] != ws.ns[i] {
				t.Fatalf("seed %d: sorting parted trace %s from its sample", seed, id)
			}
		}
	}
}

// TestHeldTracesLetGoAsTaken: each gives every held trace as get gave it,
// and lets each record go as it is taken (its strings and attributes at
// once, its chunk with the chunk's last record), so that the failing
// traces explained first are not all in memory while the last are.
func TestHeldTracesLetGoAsTaken(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	// 1200 failing traces of 15 records, interleaved in time: 18,000 held
	// records, two chunks, each with records of every trace.
	var recs []schema.Record
	for j := range 15 {
		for i := range 1200 {
			r := schema.Record{Type: schema.TypeLog, Time: t0.Add(time.Duration(j*1200+i) * time.Millisecond),
				TraceID: schema.TraceID(fmt.Sprintf("%032x", i+1)), Service: fmt.Sprintf("svc-%d", j%3),
				Severity: schema.SeverityInfo, Body: fmt.Sprintf("step %d of %d", j, i), Attrs: map[string]string{"k": fmt.Sprint(i)}}
			if j == 14 {
				r.Severity = schema.SeverityError
			}
			recs = append(recs, r)
		}
	}
	st := &sampleStore{recs: recs}
	to := recs[len(recs)-1].Time.Add(time.Second)
	hold, err := failingTraces(context.Background(), st, t0, to, 0)
	if err != nil || len(hold) != 1200 {
		t.Fatalf("%d failing traces found (%v), want 1200", len(hold), err)
	}
	l, err := readPeriod(context.Background(), st, newPeriod(t0, to), Options{}, 0, nil, hold, func(_ *period, recs []schema.Record, _ int) {
		t.Fatalf("failing trace %s streamed", recs[0].TraceID)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.packs) != 2 {
		t.Fatalf("%d records held in %d chunks, want 2", l.held, len(l.packs))
	}
	want := map[schema.TraceID][]schema.Record{}
	for id, list := range l.traces.idx {
		for _, i := range list {
			var r schema.Record
			l.get(id, i, &r)
			want[id] = append(want[id], r)
		}
	}
	taken := 0
	l.each(func(got []schema.Record) {
		id := got[0].TraceID
		if !slices.EqualFunc(got, want[id], func(a, b schema.Record) bool {
			return correlate.SameRecord(&a, &b) && a.TraceID == b.TraceID && maps.Equal(a.Attrs, b.Attrs)
		}) {
			t.Fatalf("trace %s taken differs from what get gave", id)
		}
		for _, i := range l.traces.idx[id] {
			if c := l.packs[i/chunkLen]; c != nil && (c[i%chunkLen].text != nil || c[i%chunkLen].attrs != nil) {
				t.Fatalf("trace %s: record %d still held once taken", id, i)
			}
		}
		taken++
	})
	if taken != 1200 {
		t.Fatalf("%d traces taken, want 1200", taken)
	}
	for c, chunk := range l.packs {
		if chunk != nil {
			t.Fatalf("chunk %d still held once every record of it was taken", c)
		}
	}
}

// TestTraceTableRefs: a timing sample keeps its trace's place in the
// period's table: samples of one trace in a row share it, a trace that
// comes again gets another place with the same id, and no trace is 0.
func TestTraceTableRefs(t *testing.T) {
	var tt traceTable
	ids := []schema.TraceID{"a", "a", "", "b", "b", "a", ""}
	var refs []traceRef
	for _, id := range ids {
		refs = append(refs, tt.ref(id))
	}
	for i, id := range ids {
		if got := tt.id(refs[i]); got != id {
			t.Fatalf("sample %d: ref %d names %q, want %q", i, refs[i], got, id)
		}
	}
	if refs[0] != refs[1] || refs[3] != refs[4] || refs[2] != 0 || refs[6] != 0 || len(tt.ids) != 3 {
		t.Fatalf("refs %v over %d places; want runs to share one, 0 for no trace, 3 places", refs, len(tt.ids))
	}
	// The period's stats share its table.
	p := newPeriod(time.Time{}, time.Time{})
	p.timing.keep = true
	p.timing.work = map[opKey]*timingStat{}
	p.timing.own(&schema.Record{Service: "s", Name: "op"}, 5, "x", 1)
	p.timing.own(&schema.Record{Service: "s", Name: "op2"}, 7, "x", 1)
	if st := p.timing.work[opKey{"s", "op2"}]; st.tab != &p.timing.traces || st.tab.id(st.ids[0]) != "x" || len(p.timing.traces.ids) != 1 {
		t.Fatalf("a period's stats do not share its trace table: %d places", len(p.timing.traces.ids))
	}
}

// TestOpenTracesHoldTheirOwnSize: an open trace's records take about
// their own room, whatever traces closed before it: a big trace's
// slice, handed on to a small one, held 2.5 times the open records.
func TestOpenTracesHoldTheirOwnSize(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	var a assembler
	var in interner
	a.in = &in
	rec := func(id string, at time.Duration, n int) *schema.Record {
		return &schema.Record{Type: schema.TypeLog, Time: t0.Add(at), TraceID: schema.TraceID(id), Service: "svc",
			Severity: schema.SeverityInfo, Body: fmt.Sprint("step ", n)}
	}
	// Ten big traces close; then a hundred small ones open.
	for i := range 10 {
		for n := range 100 {
			r := rec(fmt.Sprint("big-", i), time.Duration(n)*time.Millisecond, n)
			a.add(r, ownStrings(r, &in))
		}
	}
	closed := 0
	a.sweep(t0.Add(2*traceQuiet), func(schema.TraceID, []schema.Record) { closed++ })
	if closed != 10 {
		t.Fatalf("%d big traces closed, want 10", closed)
	}
	for i := range 100 {
		for n := range 2 {
			r := rec(fmt.Sprint("small-", i), 2*traceQuiet+time.Duration(n)*time.Millisecond, n)
			a.add(r, ownStrings(r, &in))
		}
	}
	held, room := 0, 0
	for _, t := range a.open {
		held, room = held+len(t.recs), room+cap(t.recs)
	}
	if held != 200 || room > 2*held {
		t.Fatalf("the open traces hold %d records in room for %d; want 200 in at most twice that", held, room)
	}
}
