package rootcause

import (
	"cmp"
	"slices"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// traceVotes is what the window's failing traces say about the services.
type traceVotes struct {
	traces, failed int
	services       map[string]*serviceVotes
	edges          map[[2]string]*Edge
	// novelty weighs a vote by how new its origin's error is (0.1..1).
	novelty func(svc string, sig schema.Signature) float64
}

// serviceVotes collects, for one service, the failing traces that point at it.
type serviceVotes struct {
	suspect    float64 // failing traces whose suspect it is, weighted by novelty
	suspectRaw int
	origin     int // failing traces whose first error it logged
	cascade    int // failing traces in which it failed after another service
	pointedBy  map[string]int
	kinds      map[schema.Kind]int
	sigs       map[schema.Signature]*sigVote
	examples   []example
	entries    map[string]int
	first      time.Time
}

type sigVote struct {
	n        int
	message  string
	template string
}

type example struct {
	id schema.TraceID
	at time.Time
}

func (tv *traceVotes) service(name string) *serviceVotes {
	sv := tv.services[name]
	if sv == nil {
		sv = &serviceVotes{pointedBy: map[string]int{}, kinds: map[schema.Kind]int{},
			sigs: map[schema.Signature]*sigVote{}, entries: map[string]int{}}
		tv.services[name] = sv
	}
	return sv
}

// eachTrace groups recs by trace id and calls f once per trace, in trace id
// order. Records without a trace id are skipped.
func eachTrace(recs []schema.Record, f func([]schema.Record)) {
	idx := map[schema.TraceID][]int32{}
	for i := range recs {
		if id := recs[i].TraceID; id != "" {
			idx[id] = append(idx[id], int32(i))
		}
	}
	ids := make([]schema.TraceID, 0, len(idx))
	for id := range idx {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var buf []schema.Record
	for _, id := range ids {
		buf = buf[:0]
		for _, i := range idx[id] {
			buf = append(buf, recs[i])
		}
		f(buf)
	}
}

// analyzeTraces explains every trace of the window and tallies the votes.
func analyzeTraces(window []schema.Record, w, b *period, opt Options) *traceVotes {
	tv := &traceVotes{services: map[string]*serviceVotes{}, edges: map[[2]string]*Edge{}}
	tv.novelty = func(svc string, sig schema.Signature) float64 { return novelty(w, b, svc, sig) }
	eachTrace(window, func(recs []schema.Record) {
		tv.traces++
		w.addSelfTimes(recs)
		tv.addEdges(recs)
		res := correlate.AnalyzeRecords(recs, opt.Correlate)
		if res == nil || !res.Failed || res.Origin == nil {
			return
		}
		tv.failed++
		tv.vote(res, entryOf(recs))
	})
	return tv
}

func (tv *traceVotes) vote(res *correlate.Result, entry string) {
	o := res.Origin
	target, kind := o.Service, o.Class
	if res.Suspect != nil && res.Suspect.Service != "" {
		target, kind = res.Suspect.Service, res.Suspect.Kind
	}
	sv := tv.service(target)
	sv.suspectRaw++
	sv.suspect += tv.novelty(o.Service, o.Signature)
	sv.kinds[kind]++
	if target != o.Service {
		sv.pointedBy[o.Service]++
	}
	tv.service(o.Service).origin++
	sig := o.Signature
	if target == o.Service {
		sv.addSig(sig, o.Message)
	}
	if entry != "" {
		sv.entries[entry]++
	}
	if sv.first.IsZero() || o.Timestamp.Before(sv.first) {
		sv.first = o.Timestamp
	}
	sv.examples = append(sv.examples, example{id: res.TraceID, at: o.Timestamp})
	for _, c := range res.Cascade {
		if c.Service != target {
			tv.service(c.Service).cascade++
		}
	}
}

func (sv *serviceVotes) addSig(sig schema.Signature, msg string) {
	if sig == "" {
		return
	}
	v := sv.sigs[sig]
	if v == nil {
		v = &sigVote{message: msg}
		sv.sigs[sig] = v
	}
	v.n++
}

// entryOf names the trace's entry point: the root span's service and
// operation, else the service of its earliest record.
func entryOf(recs []schema.Record) string {
	var first *schema.Record
	for i := range recs {
		r := &recs[i]
		if r.Type == schema.TypeSpan && r.ParentSpanID == "" {
			return r.Service + " " + r.Name
		}
		if first == nil || r.Time.Before(first.Time) {
			first = r
		}
	}
	if first == nil {
		return ""
	}
	return first.Service
}

// addEdges records caller -> callee service pairs from the span tree.
func (tv *traceVotes) addEdges(recs []schema.Record) {
	svcOf := map[schema.SpanID]*schema.Record{}
	for i := range recs {
		if recs[i].Type == schema.TypeSpan {
			svcOf[recs[i].SpanID] = &recs[i]
		}
	}
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan || r.ParentSpanID == "" {
			continue
		}
		p := svcOf[r.ParentSpanID]
		if p == nil || p.Service == r.Service || p.Service == "" || r.Service == "" {
			continue
		}
		k := [2]string{p.Service, r.Service}
		e := tv.edges[k]
		if e == nil {
			e = &Edge{From: k[0], To: k[1]}
			tv.edges[k] = e
		}
		e.Calls++
		if r.IsError() {
			e.Errors++
		}
	}
}

func (tv *traceVotes) edgeList() []Edge {
	out := make([]Edge, 0, len(tv.edges))
	for _, e := range tv.edges {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
	return out
}

// callees lists the services svc calls, per the window's spans.
func (tv *traceVotes) callees(svc string) []string {
	var out []string
	for k := range tv.edges {
		if k[0] == svc {
			out = append(out, k[1])
		}
	}
	slices.Sort(out)
	return out
}

// novelty is 1 for an error signature the baseline never had, falling to
// 0.1 for one the baseline had at the same rate or more.
func novelty(w, b *period, svc string, sig schema.Signature) float64 {
	if b.records == 0 || sig == "" {
		return 1
	}
	bs := b.bySignature(svc, sig)
	if bs == nil {
		return 1
	}
	ws := w.bySignature(svc, sig)
	rw := 1.0 / w.minutes()
	if ws != nil {
		rw = float64(ws.count) / w.minutes()
	}
	rb := float64(bs.count) / b.minutes()
	return max(0.1, min(1, 1-rb/rw))
}
