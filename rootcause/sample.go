package rootcause

import (
	"context"
	"fmt"
	"hash/maphash"
	"maps"
	"strings"
	"time"
	"unsafe"

	"github.com/faultline/faultline/schema"
)

// # Learning less: every failing trace, a sample of the healthy ones
//
// A window of millions of records is mostly healthy traces, and what the
// analysis learns from them (rates, latency quantiles, shares of
// executions) a uniform sample of them tells as well. A period's read
// holds every failing trace of the window and streams the others
// (stream.go); of those, it learns from the ones whose trace id hashes
// into the sample: 1 in k, k a power of two that starts at 1 and doubles
// each time the traces learnt from since it last did hold more than the
// budget (Options.SampleAbove records). The samples nest: a trace taken
// at 1 in 2k is taken at 1 in k, so the sample stays uniform however
// often k doubles. So a trace whose hash is not 0 modulo k when it opens
// will be left out whatever k becomes, and its records are not gathered
// at all (assembler.skim): a window sampled 1 in k keeps about 1 in k of
// its open traces' records.
//
// Counts stay right in two ways. Every record read, taken or not, is
// profiled as it streams (period.add: per-service records, errors,
// templates, the durations lines state), so those counts are exact. What
// needs whole traces (latencies and call edges, the behaviour of
// operations, the traces a version served) is learnt from the taken
// traces, each counted k times, k as it was when the trace closed (its
// weight, the inverse of its chance to be taken): the sums are then
// unbiased (Horvitz-Thompson), and latency quantiles and shares weigh
// failing and healthy traces as the whole window did. Failing traces have
// weight 1, and every one of them is explained, as without sampling, up
// to DefaultSampleFailingAbove of them: past it, they are sampled by the
// same hash, 1 in a k fixed before the read, each explained once and
// counted k times (sampleFailing). A window where most requests fail
// would otherwise hold most of itself: 96k failing traces, 3M of the 5M
// records of docs/analysis-bench-big.md's window.
//
// Only the window is sampled. The baseline is already capped at
// BaselineRecords, and its estimates are what the window's are tested
// against as if exact (call_timing's exceedance of its tail, behaviour's
// shares): sampled, on the evaluation cases with sampling forced, their
// noise turned usual latency into "slower than nearly all the baseline".
// The report says what share of the window's traces was learnt from
// (Report.Sampled and a warning), never silently.

// DefaultSampleAbove is how many records of healthy traces a period
// learns from before it samples them. Up to a million, a window is learnt
// from whole, and its evidence stays exact; streaming keeps its memory
// small either way, and sampling is for the time of the windows beyond:
// its sums are unbiased, but the tests of call_timing and behaviour see a
// sampled trace's samples as many times as its weight, as if they were
// independent, and a change near their threshold can pass or fail by the
// sample's noise (with sampling forced on the small evaluation cases, a
// budget of 4000 records, the ranking moves: docs/memory.md). Every
// evaluation case is far below it, so their analysis reads every trace.
const DefaultSampleAbove = 1_000_000

// DefaultSampleFailingAbove is how many failing traces a window explains
// before it samples them (sampleFailing). A failing trace is held whole
// until the window is read (its explanation needs what the whole window
// tells: rollouts, names, callees), so their number bounds the memory of
// an analysis: 20000 traces of 30 records is about 200 MB. The largest
// evaluation case has a few thousand, so none of them is sampled.
const DefaultSampleFailingAbove = 20_000

// sampler decides which of a period's streamed (healthy) traces are
// learnt from, and how much each weighs.
type sampler struct {
	// k: a trace is learnt from when its hash is 0 modulo k.
	k      uint64
	budget int
	// held counts the records of the traces learnt from since k last
	// doubled, halved when it did (what a sample of half would hold).
	held int
	// kept and dropped count the traces learnt from and left out.
	kept, dropped int
}

func newSampler(budget int) *sampler { return &sampler{k: 1, budget: budget} }

// traceHash is a trace id's place in the sample: FNV-1a of its text,
// mixed (splitmix64's finalizer) so that its low bits are uniform even
// for ids that differ only in a few characters.
func traceHash(id schema.TraceID) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// take is how many of the period's traces the closed trace id, of n
// records, stands for: k when its hash falls in the sample, 0 when it is
// left out; 1 for a nil sampler. Its weight is the inverse of its chance
// to be taken when it closed, so the sums stay unbiased while k doubles.
func (s *sampler) take(id schema.TraceID, n int) int {
	if s == nil {
		return 1
	}
	if traceHash(id)%s.k != 0 {
		s.dropped++
		return 0
	}
	s.kept++
	w := int(s.k)
	if s.held += n; s.held > s.budget {
		s.k *= 2
		s.held /= 2
	}
	return w
}

// detacher gives held records strings of their own. A store's records
// may be views of the block they were decoded from (the embedded store's
// are): a held record would keep its whole block in memory, and with it
// the streamed records that were let go.
type detacher struct {
	ids  map[schema.TraceID]schema.TraceID // the held traces' ids, copied
	seed maphash.Seed
	// attrs are the attribute maps detach copied, by the hash of their
	// pairs.
	attrs map[uint64][]map[string]string
}

// ownID gives r the copy of its trace id, made for the trace's first
// record.
func (d *detacher) ownID(r *schema.Record) {
	if id, ok := d.ids[r.TraceID]; ok {
		r.TraceID = id
	} else if r.TraceID != "" {
		if d.ids == nil {
			d.ids = map[schema.TraceID]schema.TraceID{}
		}
		r.TraceID = schema.TraceID(strings.Clone(string(r.TraceID)))
		d.ids[r.TraceID] = r.TraceID
	}
}

// detach copies r's strings that ownStrings leaves (its ids and its body)
// into one allocation, and its attributes into a map shared with the
// records that have the same ones (a pod, its version, a status code
// repeat). A trace's id is copied once, for its first record.
func (d *detacher) detach(r *schema.Record) {
	d.ownID(r)
	strs := [...]*string{(*string)(&r.SpanID), (*string)(&r.ParentSpanID), &r.Body}
	n := 0
	for _, p := range strs {
		n += len(*p)
	}
	buf := make([]byte, 0, n)
	for _, p := range strs {
		at := len(buf)
		buf = append(buf, *p...)
		*p = unsafe.String(unsafe.SliceData(buf[at:]), len(*p))
	}
	if len(r.Attrs) == 0 {
		return
	}
	if d.attrs == nil {
		d.seed, d.attrs = maphash.MakeSeed(), map[uint64][]map[string]string{}
	}
	var h maphash.Hash
	h.SetSeed(d.seed)
	var sum uint64
	for k, v := range r.Attrs {
		h.Reset()
		h.WriteString(k)
		h.WriteByte(0)
		h.WriteString(v)
		sum += h.Sum64() // in any order
	}
	for _, m := range d.attrs[sum] {
		if maps.Equal(m, r.Attrs) {
			r.Attrs = m
			return
		}
	}
	m := make(map[string]string, len(r.Attrs))
	for k, v := range r.Attrs {
		m[strings.Clone(k)] = strings.Clone(v)
	}
	d.attrs[sum] = append(d.attrs[sum], m)
	r.Attrs = m
}

// failingTraceStore is a store that selects the failing traces itself
// (ClickHouse, whose server sends their ids alone): the ids of the traces
// with an error record among the newest limit alert records of [from,
// to), as a newest-first read of them would name.
type failingTraceStore interface {
	FailingTraces(ctx context.Context, from, to time.Time, limit int) ([]schema.TraceID, error)
}

// failingTraces lists the traces with an error record in [from, to): the
// window's errors, which the stores index (the embedded store reads only
// its blocks of alert records for them, newest first; ClickHouse selects
// them from its errors table).
func failingTraces(ctx context.Context, st Store, from, to time.Time, limit int) (map[schema.TraceID]bool, error) {
	out := map[schema.TraceID]bool{}
	if fs, ok := st.(failingTraceStore); ok {
		ids, err := fs.FailingTraces(ctx, from, to, limit)
		if err != nil {
			return nil, fmt.Errorf("cannot read the errors from %s to %s: %w",
				from.Format(time.RFC3339), to.Format(time.RFC3339), err)
		}
		for _, id := range ids {
			out[id] = true
		}
		return out, nil
	}
	q := schema.WindowQuery{From: from, To: to, ErrorsOnly: true, Newest: true, Limit: limit, Attrs: []string{}}
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("cannot read the errors from %s to %s: %w",
				from.Format(time.RFC3339), to.Format(time.RFC3339), err)
		}
		if r.TraceID != "" && r.IsError() {
			if _, ok := out[r.TraceID]; !ok {
				out[schema.TraceID(strings.Clone(string(r.TraceID)))] = true
			}
		}
	}
	return out, nil
}

// sampleFailing samples the failing traces of hold when there are more
// than budget of them (budget <= 0: never): 1 in k, k the least power of
// two that brings them within it, by the hash of their ids as the healthy
// traces are (traceHash). Those left out stay in hold as false: their
// records are profiled, never held or learnt from. It returns k, the
// weight of each failing trace held (1 when none was left out).
//
// Unlike the healthy traces' k, this one is fixed before the window is
// read (the error index has named every failing trace by then), so every
// failing trace held weighs the same: each is explained once and counted
// k times (analyzeTraces), and a candidate's share of the failing traces
// is estimated from a uniform sample of them. Its standard error is at
// most 1/(2*sqrt(budget/2)) = 0.5% for the default budget: a candidate
// that explains most of the failures keeps its rank; one that explains a
// handful of them may move by the sample's noise, and the report says so.
func sampleFailing(hold map[schema.TraceID]bool, budget int) (k int) {
	k = 1
	if budget <= 0 {
		return k
	}
	for len(hold) > k*budget {
		k *= 2
	}
	if k == 1 {
		return k
	}
	for id := range hold {
		if traceHash(id)%uint64(k) != 0 {
			hold[id] = false
		}
	}
	return k
}

// Sampled says how much of a period's traces an analysis read whole: all
// of them when K is 1. A healthy trace learnt from stood for as many
// traces as k was when it closed, K by the period's end; every failing
// trace was held and explained.
type Sampled struct {
	K int `json:"k"`
	// Traces and Held count the period's traces and those read whole
	// (the failing ones and the healthy ones learnt from).
	Traces int `json:"traces"`
	Held   int `json:"held"`
	// Share is Held/Traces.
	Share float64 `json:"share"`
	// FailingK is the weight of each failing trace held, 1 when every
	// failing trace was; Failing counts the failing traces the window's
	// read met (the error index names them), FailingHeld those of them
	// held and explained.
	FailingK    int `json:"failing_k,omitempty"`
	Failing     int `json:"failing,omitempty"`
	FailingHeld int `json:"failing_held,omitempty"`
}

// sampled is l's Sampled, nil when it learnt from every trace.
func (l *loaded) sampled() *Sampled {
	s := l.sample
	healthy := s != nil && s.k > 1
	if !healthy && l.failK <= 1 {
		return nil
	}
	k, kept, dropped := 1, 0, 0
	if s != nil {
		k, kept, dropped = int(s.k), s.kept, s.dropped
	}
	held := len(l.traces.idx) + kept
	total := held + dropped + l.failLeft
	out := &Sampled{K: k, Traces: total, Held: held, Share: float64(held) / float64(max(total, 1))}
	if l.failK > 1 {
		out.FailingK, out.Failing, out.FailingHeld = l.failK, l.failing, l.failing-l.failLeft
	}
	return out
}

// sampledWarning is the report's warning of a sampled window.
func sampledWarning(s *Sampled, l *loaded) string {
	var parts []string
	if smp := l.sample; smp != nil && smp.k > 1 {
		parts = append(parts, fmt.Sprintf("the window's %d healthy traces are represented by %d of them (by trace id, 1 in %d by the window's end)",
			smp.kept+smp.dropped, smp.kept, s.K))
	}
	if s.FailingK > 1 {
		parts = append(parts, fmt.Sprintf("its %d failing traces by %d of them (by trace id, 1 in %d, each explained once and counted %d times)",
			s.Failing, s.FailingHeld, s.FailingK, s.FailingK))
	} else {
		parts = append(parts, "every failing trace is explained")
	}
	return fmt.Sprintf("sampled: %s; %.0f%% of its %d traces read whole; per-service counts are over all %d records, latencies, calls, behaviour and the failing traces' votes weighed from the sample",
		strings.Join(parts, "; "), 100*s.Share, s.Traces, l.n)
}
