package rootcause

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"maps"
	"strings"
	"time"
	"unsafe"

	"github.com/faultline/faultline/schema"
)

// # Reading less: every failing trace, a sample of the healthy ones
//
// A window of millions of records is mostly healthy traces, and what the
// analysis learns from them (rates, latency quantiles, shares of
// executions) a uniform sample of them tells as well. A period's read
// keeps in memory every failing trace of the window (a trace with an
// error record; the store's errors, read once sampling begins, name them),
// and of the other traces those whose trace id hashes into the sample:
// 1 in k, k a power of two that starts at 1 and doubles, dropping half of
// the healthy traces held, each time they hold more than the budget
// (Options.SampleAbove records). The kept traces stay whole (every record
// of the trace), and the samples nest: a trace kept at 1 in 2k is kept at
// 1 in k, so the sample stays uniform however often it halves.
//
// Counts stay right in two ways. Every record read, kept or not, is
// profiled as it streams (period.add: per-service records, errors,
// templates, the durations lines state), so those counts are exact. What
// needs whole traces (latencies and call edges, the behaviour of
// operations, the traces a version served) is learnt from the kept
// traces, each sampled healthy trace counted k times (its weight, the
// inverse of its chance to be kept): the sums are then unbiased
// (Horvitz-Thompson), and latency quantiles and shares weigh failing and
// healthy traces as the whole window did. Failing traces have weight 1,
// and every one of them is explained, as without sampling.
//
// Only the window is sampled. The baseline is already capped at
// BaselineRecords, and its estimates are what the window's are tested
// against as if exact (call_timing's exceedance of its tail, behaviour's
// shares): sampled, on the evaluation cases with sampling forced, their
// noise turned usual latency into "slower than nearly all the baseline".
// The report says what share of the window's traces was held
// (Report.Sampled and a warning), never silently.
//
// A held record gets strings of its own once sampling begins (detach):
// the embedded store's records are views of their block, which would
// otherwise stay in memory with every record of it the sample left out.

// DefaultSampleAbove is how many records of healthy traces a period holds
// before it samples them. Up to a million, a window is read whole in the
// time and memory an analysis of it took before sampling (about 10 s and
// 3 GB here at a million, GOGC=400), and its evidence stays exact. Sampling
// is for the windows beyond, whose whole read would outgrow the machine:
// its sums are unbiased, but the tests of call_timing and behaviour see a
// sampled trace's samples as many times as its weight, as if they were
// independent, and a change near their threshold can pass or fail by the
// sample's noise (with sampling forced on the small evaluation cases, a
// budget of 4000 records, the ranking moves: docs/memory.md). Every
// evaluation case is far below it, so their analysis reads every trace.
const DefaultSampleAbove = 1_000_000

// sampler decides which traces of a period are held.
type sampler struct {
	// failing are the traces with an error record in the period (always
	// held, weight 1), read once sampling begins (findFailing; nil for a
	// baseline).
	failing     map[schema.TraceID]struct{}
	findFailing func() (map[schema.TraceID]struct{}, error)
	// k: a healthy trace is held when its hash is 0 modulo k.
	k      uint64
	budget int
	// held counts the records of healthy traces held.
	held int
	// tails are, per trace not held, the hashes of its records at its
	// latest time: what copies of records are found against (visit).
	tails map[schema.TraceID]*tail
	seed  maphash.Seed
	// dropped counts the traces left out of the sample.
	dropped int
	// attrs are the attribute maps detach copied, by the hash of their
	// pairs.
	attrs map[uint64][]map[string]string
}

type tail struct {
	at     time.Time
	hashes []uint64
}

func newSampler(budget int, findFailing func() (map[schema.TraceID]struct{}, error)) *sampler {
	return &sampler{findFailing: findFailing, k: 1, budget: budget, tails: map[schema.TraceID]*tail{}, seed: maphash.MakeSeed()}
}

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

// isFailing reports whether id is one of the period's failing traces.
func (s *sampler) isFailing(id schema.TraceID) bool {
	_, ok := s.failing[id]
	return ok
}

// keeps reports whether the records of trace id are held.
func (s *sampler) keeps(id schema.TraceID) bool {
	return s.isFailing(id) || traceHash(id)%s.k == 0
}

// weight is how many of the period's traces the held trace recs stands
// for. In a window, a trace with an error record is explained, and counts,
// once: the failing set says which (an error the set missed, past a read
// limit, is caught by anyError).
func (s *sampler) weight(recs []schema.Record) int {
	if s == nil || s.k == 1 || s.findFailing != nil && (s.isFailing(recs[0].TraceID) || anyError(recs)) {
		return 1
	}
	return int(s.k)
}

// recordHash hashes what correlate.SameRecord compares.
func (s *sampler) recordHash(r *schema.Record) uint64 {
	var h maphash.Hash
	h.SetSeed(s.seed)
	var b [26]byte
	b[0], b[1] = byte(r.Type), byte(r.Status)
	binary.LittleEndian.PutUint64(b[2:], uint64(r.Severity))
	binary.LittleEndian.PutUint64(b[10:], uint64(r.Duration))
	binary.LittleEndian.PutUint64(b[18:], uint64(len(r.SpanID))<<32|uint64(len(r.Service)))
	h.Write(b[:])
	h.WriteString(string(r.SpanID))
	h.WriteString(r.Service)
	h.WriteString(r.Body)
	h.WriteByte(0)
	h.WriteString(r.Name)
	return h.Sum64()
}

// copyOf reports whether r, of a trace not held, repeats a record of its
// trace at the same time, and remembers it otherwise: visit's test for
// the traces it holds, on hashes.
func (s *sampler) copyOf(r *schema.Record) bool {
	h := s.recordHash(r)
	t := s.tails[r.TraceID]
	switch {
	case t == nil:
		s.tails[schema.TraceID(strings.Clone(string(r.TraceID)))] = &tail{at: r.Time, hashes: []uint64{h}}
		s.dropped++
	case t.at.Equal(r.Time):
		for _, x := range t.hashes {
			if x == h {
				return true
			}
		}
		t.hashes = append(t.hashes, h)
	default:
		t.at, t.hashes = r.Time, append(t.hashes[:0], h)
	}
	return false
}

// halve doubles k and drops, from l, the held healthy traces that leave
// the sample: their records are compacted out of l's chunks (in place, in
// order, so that every trace's records keep their order), and what their
// copies are found against is kept as their tails.
func (l *loaded) halve() error {
	s := l.sample
	first := s.k == 1
	if first && s.findFailing != nil {
		// Until now every trace was held; from now on the failing ones
		// must be known before their error records arrive.
		failing, err := s.findFailing()
		if err != nil {
			return err
		}
		s.failing = failing
	}
	s.k *= 2
	gone := map[schema.TraceID]bool{}
	for id, list := range l.traces.idx {
		if s.keeps(id) {
			continue
		}
		id = schema.TraceID(strings.Clone(string(id)))
		gone[id] = true
		last := l.at(list[len(list)-1])
		t := &tail{at: last.Time}
		for j := len(list) - 1; j >= 0 && l.at(list[j]).Time.Equal(last.Time); j-- {
			t.hashes = append(t.hashes, s.recordHash(l.at(list[j])))
		}
		s.tails[id] = t
		s.held -= len(list)
		s.dropped++
		delete(l.traces.idx, id)
	}
	remap := make([]int32, l.held)
	j := int32(0)
	for i := range int32(l.held) {
		r := l.at(i)
		if gone[r.TraceID] {
			continue
		}
		if i != j {
			*l.at(j) = *r
		}
		remap[i] = j
		j++
	}
	for i := j; i < int32(l.held); i++ {
		*l.at(i) = schema.Record{} // its strings may go
	}
	l.held = int(j)
	l.chunks = l.chunks[:(l.held+chunkLen-1)/chunkLen]
	idx := make(map[schema.TraceID][]int32, len(l.traces.idx))
	for _, list := range l.traces.idx {
		for x, i := range list {
			list[x] = remap[i]
			if first {
				s.detach(l.at(list[x]))
			}
		}
		idx[l.at(list[0]).TraceID] = list
	}
	l.traces.idx = idx
	return nil
}

// detach gives r strings of its own. A store's records may be views of
// the block they were decoded from (the embedded store's are): a held
// record would keep its whole block in memory, and with it the records of
// every trace the sample left out. Its strings are copied into one
// allocation; its attributes into a map shared with the records that have
// the same ones (a pod, its version, a status code repeat). Records are
// detached once sampling begins: until then every record is held, and a
// block is no more than its records.
func (s *sampler) detach(r *schema.Record) {
	strs := [...]*string{(*string)(&r.TraceID), (*string)(&r.SpanID), (*string)(&r.ParentSpanID), &r.Service,
		&r.SeverityText, &r.Body, &r.Name, &r.Template, (*string)(&r.Signature)}
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
	var h maphash.Hash
	h.SetSeed(s.seed)
	var sum uint64
	for k, v := range r.Attrs {
		h.Reset()
		h.WriteString(k)
		h.WriteByte(0)
		h.WriteString(v)
		sum += h.Sum64() // in any order
	}
	for _, m := range s.attrs[sum] {
		if maps.Equal(m, r.Attrs) {
			r.Attrs = m
			return
		}
	}
	m := make(map[string]string, len(r.Attrs))
	for k, v := range r.Attrs {
		m[strings.Clone(k)] = strings.Clone(v)
	}
	if s.attrs == nil {
		s.attrs = map[uint64][]map[string]string{}
	}
	s.attrs[sum] = append(s.attrs[sum], m)
	r.Attrs = m
}

// failingTraces lists the traces with an error record in [from, to): the
// window's errors, which the stores index (the embedded store reads only
// its blocks of alert records for them).
func failingTraces(ctx context.Context, st Store, from, to time.Time, limit int) (map[schema.TraceID]struct{}, error) {
	out := map[schema.TraceID]struct{}{}
	q := schema.WindowQuery{From: from, To: to, ErrorsOnly: true, Limit: limit, Attrs: []string{}}
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("cannot read the errors from %s to %s: %w",
				from.Format(time.RFC3339), to.Format(time.RFC3339), err)
		}
		if r.TraceID != "" && r.IsError() {
			if _, ok := out[r.TraceID]; !ok {
				out[schema.TraceID(strings.Clone(string(r.TraceID)))] = struct{}{}
			}
		}
	}
	return out, nil
}

// Sampled says how much of a period's traces an analysis held: all of
// them when K is 1. Each held healthy trace stood for K traces; every
// failing trace was held.
type Sampled struct {
	K int `json:"k"`
	// Traces and Held count the period's traces and those held.
	Traces int `json:"traces"`
	Held   int `json:"held"`
	// Share is Held/Traces.
	Share float64 `json:"share"`
}

// sampled is l's Sampled, nil when it held every trace.
func (l *loaded) sampled() *Sampled {
	s := l.sample
	if s == nil || s.k == 1 {
		return nil
	}
	held := len(l.traces.idx)
	total := held + s.dropped
	return &Sampled{K: int(s.k), Traces: total, Held: held, Share: float64(held) / float64(max(total, 1))}
}
