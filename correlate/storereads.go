package correlate

import (
	"context"
	"iter"
	"slices"
	"time"

	"github.com/faultline/faultline/schema"
)

// errorsRead is a store that reads the errors and warnings of a service
// (or of all services) over any stretch of time once, for StoreRules: the
// rules of neighbouring quanta read stretches of errors that overlap but
// for ten seconds (a breaker's two-minute lookbacks, the hour a service's
// usual rate is measured over), and decoding what the store holds of them
// is most of what the rules cost. A read of errors and warnings
// (WindowQuery.ErrorsOnly, with a limit, every attribute, oldest first)
// is answered from the stretch held for its service, which grows by the
// parts it lacks, each read from the store once, and gives what the store
// gives: the same records, in the same order (by time, then as stored),
// up to the same limit. Any other read goes to the store, as does every
// read of a service once a part of its stretch held more than
// errorsPartCap records or errorsHeldCap records are held in all; a failed
// read is not kept.
type errorsRead struct {
	WindowStore
	spans map[string]*errorSpan // by WindowQuery.Service
	held  int
	// firsts holds the answers to reads of a window's first record (of
	// any service, at any level: where the store's data of a stretch
	// begins, which steadySince asks for every tripQuantum), by window.
	firsts map[[2]int64]*schema.Record
}

// errorSpan is the errors and warnings of a service in [from, to), in the
// store's order; off once it is not kept.
type errorSpan struct {
	from, to time.Time
	recs     []schema.Record
	off      bool
	// kinds are, for the log lines of recs classified so far (classified),
	// their kind (Classify's): a line is classified once however many
	// stretches read it (heldKinds).
	kinds      []schema.Kind
	classified []bool
}

// Limits of errorsRead.
const (
	errorsPartCap = 20_000
	errorsHeldCap = 200_000
)

func newErrorsRead(st WindowStore) *errorsRead {
	return &errorsRead{WindowStore: st, spans: map[string]*errorSpan{}}
}

func (e *errorsRead) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	if q.Limit == 1 && !q.ErrorsOnly && q.Service == "" && !q.Newest && len(q.Attrs) == 0 {
		return e.first(ctx, q)
	}
	if !q.ErrorsOnly || q.Limit <= 0 || q.Newest || len(q.Attrs) > 0 || !q.To.After(q.From) {
		return e.WindowStore.WindowRecords(ctx, q)
	}
	return func(yield func(schema.Record, error) bool) {
		s, err := e.span(ctx, q)
		if err != nil {
			yield(schema.Record{}, err)
			return
		}
		if s.off {
			for r, err := range e.WindowStore.WindowRecords(ctx, q) {
				if !yield(r, err) || err != nil {
					return
				}
			}
			return
		}
		i, _ := slices.BinarySearchFunc(s.recs, q.From, func(r schema.Record, t time.Time) int { return r.Time.Compare(t) })
		for n := 0; i < len(s.recs) && s.recs[i].Time.Before(q.To) && n < q.Limit; i++ {
			if !yield(s.recs[i], nil) {
				return
			}
			n++
		}
	}
}

// firstTimer is a store that tells the time of its first record in a
// stretch without sending the record (ClickHouse's min(Timestamp) reads
// one column, where a read of the first record sorts every column of the
// stretch).
type firstTimer interface {
	FirstTime(ctx context.Context, from, to time.Time) (at time.Time, ok bool, err error)
}

// first answers a read of q's first record, from what an earlier read of
// the same window found when there was one; of a store that tells the
// time of its first record alone (firstTimer), a record of that time.
func (e *errorsRead) first(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		key := [2]int64{q.From.UnixNano(), q.To.UnixNano()}
		r, ok := e.firsts[key]
		if ft, can := e.WindowStore.(firstTimer); can && !ok {
			// Only its time is read (steadySince's question).
			at, some, err := ft.FirstTime(ctx, q.From, q.To)
			if err != nil {
				yield(schema.Record{}, err)
				return
			}
			if some {
				r = &schema.Record{Time: at}
			}
			if e.firsts == nil {
				e.firsts = map[[2]int64]*schema.Record{}
			}
			e.firsts[key], ok = r, true
		}
		if !ok {
			for rec, err := range e.WindowStore.WindowRecords(ctx, q) {
				if err != nil {
					yield(schema.Record{}, err) // a failed read is not kept
					return
				}
				r = &rec
				break
			}
			if e.firsts == nil {
				e.firsts = map[[2]int64]*schema.Record{}
			}
			e.firsts[key] = r
		}
		if r != nil {
			yield(*r, nil)
		}
	}
}

// span returns the stretch held for q.Service, grown to cover q's.
func (e *errorsRead) span(ctx context.Context, q schema.WindowQuery) (*errorSpan, error) {
	s := e.spans[q.Service]
	if s == nil {
		s = &errorSpan{from: q.From, to: q.From}
		e.spans[q.Service] = s
	}
	if s.off {
		return s, nil
	}
	if q.From.Before(s.from) {
		part, err := e.part(ctx, q.Service, q.From, s.from)
		if err != nil {
			return nil, err
		}
		if e.keep(s, part) {
			s.recs, s.from = append(part, s.recs...), q.From
			if s.kinds != nil {
				s.kinds = append(make([]schema.Kind, len(part)), s.kinds...)
				s.classified = append(make([]bool, len(part)), s.classified...)
			}
		}
	}
	if !s.off && q.To.After(s.to) {
		part, err := e.part(ctx, q.Service, s.to, q.To)
		if err != nil {
			return nil, err
		}
		if e.keep(s, part) {
			s.recs, s.to = append(s.recs, part...), q.To
			if s.kinds != nil {
				s.kinds = append(s.kinds, make([]schema.Kind, len(part))...)
				s.classified = append(s.classified, make([]bool, len(part))...)
			}
		}
	}
	return s, nil
}

// heldAttrs are the attributes of the records errorsRead holds: those the
// rules read (AttrKeys, and the version a record was served by). Held
// projected, records with the same ones share one map (the store's
// projection), rather than each a map of every attribute it has.
var heldAttrs = append(slices.Clip(AttrKeys), schema.AttrServiceVersion)

// part reads the errors and warnings of service in [from, to), at most
// one more than errorsPartCap.
func (e *errorsRead) part(ctx context.Context, service string, from, to time.Time) ([]schema.Record, error) {
	var out []schema.Record
	q := schema.WindowQuery{From: from, To: to, Service: service, ErrorsOnly: true, Limit: errorsPartCap + 1, Attrs: heldAttrs}
	for r, err := range e.WindowStore.WindowRecords(ctx, q) {
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// keep reports whether part may join s, and turns s off when not.
func (e *errorsRead) keep(s *errorSpan, part []schema.Record) bool {
	if len(part) > errorsPartCap || e.held+len(part) > errorsHeldCap {
		e.held -= len(s.recs)
		s.recs, s.off = nil, true
		s.kinds, s.classified = nil, nil
		return false
	}
	e.held += len(part)
	return true
}

// heldKinds is what WindowRecords yields for a read of svc's errors and
// warnings in [from, to), at most limit of them, when errorsRead holds
// that stretch: the records and, for each log line, its kind (Classify's),
// classified once per record however many reads go over it. ok is false
// when the read would go to the store.
func (e *errorsRead) heldKinds(ctx context.Context, svc string, from, to time.Time, limit int) (recs []schema.Record, kinds []schema.Kind, ok bool, err error) {
	if limit <= 0 || !to.After(from) {
		return nil, nil, false, nil
	}
	s, err := e.span(ctx, schema.WindowQuery{From: from, To: to, Service: svc, ErrorsOnly: true, Limit: limit})
	if err != nil || s.off {
		return nil, nil, false, err
	}
	i, _ := slices.BinarySearchFunc(s.recs, from, func(r schema.Record, t time.Time) int { return r.Time.Compare(t) })
	j := i
	for j < len(s.recs) && s.recs[j].Time.Before(to) && j-i < limit {
		j++
	}
	if s.kinds == nil {
		s.kinds, s.classified = make([]schema.Kind, len(s.recs)), make([]bool, len(s.recs))
	}
	for k := i; k < j; k++ {
		if !s.classified[k] && s.recs[k].Type == schema.TypeLog {
			s.kinds[k], s.classified[k] = Classify(&s.recs[k]), true
		}
	}
	return s.recs[i:j], s.kinds[i:j], true, nil
}
