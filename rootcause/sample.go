package rootcause

import (
	"context"
	"fmt"
	"hash/maphash"
	"iter"
	"maps"
	"strings"
	"time"

	"github.com/faultline/faultline/internal/strs"
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
// A store that can draw the sample itself (serverSampler: ClickHouse on
// its server, the embedded store as it reads its blocks, passing over the
// others undecoded) is asked for the sample's records alone when the window
// holds more than the budget: k is then fixed before the read, from the
// window's size, and the records the server keeps back (those of the
// traces out of the sample that are not alerts) are stood for by those it
// sends (sampler.weight): the per-service counts of errors and warnings
// stay exact, those of the other records are estimated.
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
	// server is set when the store drew the sample (serverSample): k is
	// then fixed, and the records it did not send (those of the traces
	// out of the sample that are not alerts) are stood for by those it
	// did (weight). failK is the failing traces' k (sampleFailing);
	// records and traces are the window's, as the store counted them.
	server                 bool
	failK, records, traces int
	// held counts the records of the traces learnt from since k last
	// doubled, halved when it did (what a sample of half would hold).
	held int
	// kept and dropped count the traces learnt from and left out.
	kept, dropped int
}

func newSampler(budget int) *sampler { return &sampler{k: 1, budget: budget} }

// traceHash is a trace id's place in the sample (schema.TraceHash, which a
// store computes too).
func traceHash(id schema.TraceID) uint64 { return schema.TraceHash(id) }

// weight is how many records r stands for in its period's counts
// (period.addN), failing telling whether its trace is one of the
// window's failing traces: 1, but for a record of a sample the store
// drew that is not an alert, which it sent only for the traces in the
// sample. That is the inverse of its chance to be sent (Horvitz-Thompson
// again): 1 in k for a healthy trace's, and for a failing trace's 1 in
// the lesser of k and failK (the store sends a failing trace whole when
// either sample takes it, and the samples nest).
func (s *sampler) weight(r *schema.Record, failing bool) int {
	if s == nil || !s.server || r.TraceID == "" || r.IsAlert() {
		return 1
	}
	if failing {
		return min(int(s.k), s.failK)
	}
	return int(s.k)
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
	if s.held += n; s.held > s.budget && !s.server {
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
	strs.Together((*string)(&r.SpanID), (*string)(&r.ParentSpanID), &r.Body)
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

// serverSampler is a store that draws the sample of a window's traces
// itself, sending only the records of the traces in it, every alert record
// and every record without a trace: ClickHouse on its server, the embedded
// store as it reads its blocks, passing over the others undecoded (the
// methods of store/clickhouse.Store and store/sqlite.DB of the same names).
type serverSampler interface {
	// WindowSize counts the records of [from, to) and, about, their
	// traces.
	WindowSize(ctx context.Context, from, to time.Time) (records, traces int, err error)
	// SampledRecords is WindowRecords(q) less the records that are not
	// alerts of the traces whose traceHash is not 0 modulo k (or, for the
	// window's failing traces, modulo failK). failing names the window's
	// failing traces (failingTraces'); a store that selects them itself
	// (ClickHouse) need not ask it. The sample is read oldest first; one
	// of more records than q's limit ends, after the limit's records, with
	// an error that wraps schema.ErrSampleOverLimit. With q.Group, a
	// store may send the errors of the traces out of the sample grouped
	// (schema.Record.Count): readPeriod counts each group's size.
	SampledRecords(ctx context.Context, q schema.WindowQuery, k, failK uint64, failing func(schema.TraceID) bool) iter.Seq2[schema.Record, error]
}

// serverSample is a store reading a window as its server samples it,
// oldest first: a sample of more records than the read's limit ends with
// schema.ErrSampleOverLimit, and the window is read again, sampled by the
// process, newest first (analyzeStore). records and traces are the
// window's, as the store counted them.
type serverSample struct {
	Store
	ss              serverSampler
	k, failK        uint64
	records, traces int
	failing         map[schema.TraceID]bool
}

func (s *serverSample) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	return s.ss.SampledRecords(ctx, q, s.k, s.failK, func(id schema.TraceID) bool {
		_, ok := s.failing[id] // those sampleFailing left out too
		return ok
	})
}

// planServerSample is how st's server samples the window [from, to)
// when it can (serverSampler) and the window holds more than budget
// records (Options.SampleAbove): its traces 1 in k, the least power of
// two that brings the window within the budget, its failing traces 1 in
// failK; nil when the process is to read every record and sample them as
// they stream. The budget's records that the process would learn from
// before it samples are then about all it is sent, rather than the whole
// window: on the 10M-record window of docs/analysis-bench-big.md, about a
// sixth (every alert record is sent too).
//
// counted is the window's records as the store counted them, -1 when it
// does not count (not a serverSampler, or a file of the first layout):
// what the baseline's read depends on (earlyBase).
func planServerSample(ctx context.Context, st Store, budget int, from, to time.Time, failing map[schema.TraceID]bool, failK int) (plan *serverSample, counted int, err error) {
	ss, ok := st.(serverSampler)
	if !ok {
		return nil, -1, nil
	}
	if budget <= 0 && readsOnServer(st) {
		return nil, -1, nil // neither sampled nor read early: no count to ask its server for
	}
	n, traces, err := ss.WindowSize(ctx, from, to)
	if err != nil {
		return nil, -1, fmt.Errorf("cannot count the records from %s to %s: %w", from.Format(time.RFC3339), to.Format(time.RFC3339), err)
	}
	if n == 0 {
		n = -1 // none, or not counted: the read tells
	}
	if budget <= 0 || n <= budget {
		return nil, n, nil
	}
	return &serverSample{Store: st, ss: ss, k: uint64(powerOfTwoFor(n, budget)), failK: uint64(max(failK, 1)),
		records: n, traces: traces, failing: failing}, n, nil
}

// read is the store a read of the window takes its records from, with
// smp drawn as the server draws it (plan nil: st, newest first, smp
// sampling as the records stream).
func (plan *serverSample) read(st Store, smp *sampler) Store {
	if plan == nil || smp == nil {
		return newestFirst{st}
	}
	smp.k, smp.server, smp.failK, smp.records, smp.traces = plan.k, true, int(plan.failK), plan.records, plan.traces
	return plan
}

// powerOfTwoFor is the least power of two k with n <= k*budget (budget
// > 0): the sample, 1 in k, that brings n within the budget.
func powerOfTwoFor(n, budget int) int {
	k := 1
	for n > k*budget {
		k *= 2
	}
	return k
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
	if budget <= 0 {
		return 1
	}
	if k = powerOfTwoFor(len(hold), budget); k == 1 {
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
	// Sent, when the store drew the sample (ClickHouse's server, or the
	// embedded store as it read its blocks), counts the records it sent of
	// the window's (every alert record, and the others of the traces in
	// the sample); Traces is then an approximate count.
	Sent int `json:"sent,omitempty"`
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
	if s != nil && s.server {
		out.Sent = l.sent
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
	if smp := l.sample; smp != nil && smp.server {
		return fmt.Sprintf("sampled by the store: %s; %.0f%% of its about %d traces read whole (%d of its %d records sent); errors and warnings are counted over all of them, the other records, latencies, calls, behaviour and the failing traces' votes weighed from the sample",
			strings.Join(parts, "; "), 100*s.Share, s.Traces, l.sent, l.n)
	}
	return fmt.Sprintf("sampled: %s; %.0f%% of its %d traces read whole; per-service counts are over all %d records, latencies, calls, behaviour and the failing traces' votes weighed from the sample",
		strings.Join(parts, "; "), 100*s.Share, s.Traces, l.n)
}
