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
	// names are the held records' strings that repeat (holdRecord).
	names map[heldNames]*heldNames
	// firsts is what the reads of a stretch's first record (of any
	// service, at any level) found (first).
	firsts []firstFact
}

// errorSpan is the errors and warnings of a service in [from, to), in the
// store's order; off once it is not kept.
type errorSpan struct {
	from, to time.Time
	recs     []heldRec
	off      bool
	// reads are the reads of the service's errors made since it was off,
	// kept while the cap allows (offRead).
	reads []keptRead
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
			recs, err := e.offRead(ctx, s, q)
			if err != nil {
				yield(schema.Record{}, err)
				return
			}
			for i := range recs {
				if !yield(recs[i].record(), nil) {
					return
				}
			}
			return
		}
		i := heldFrom(s.recs, q.From)
		for n := 0; i < len(s.recs) && s.recs[i].at().Before(q.To) && n < q.Limit; i++ {
			if !yield(s.recs[i].record(), nil) {
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

// first answers a read of q's first record (steadySince's question: where
// the store's data of a stretch begins) with a record of its time alone.
// What each read found is kept as a fact (firstFact), and a read that a fact
// answers goes to no store: the stretches asked for begin an hour before
// each quantum of every failing call, most of them before the store's
// first record, so the first read asks from the beginning of time and
// answers them all. Of a store that tells the time of its first record
// alone (firstTimer), only that is read.
func (e *errorsRead) first(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		at, some, known := e.knownFirst(q.From, q.To)
		if !known {
			from := q.From
			if len(e.firsts) == 0 {
				from = time.Unix(0, 0) // where the store begins
			}
			var err error
			if at, some, err = e.readFirst(ctx, from, q.To); err != nil {
				yield(schema.Record{}, err) // a failed read is not kept
				return
			}
			e.firsts = append(e.firsts, firstFact{from: from, to: q.To, at: at, some: some})
			at, some, _ = e.knownFirst(q.From, q.To)
		}
		if some {
			yield(schema.Record{Time: at}, nil)
		}
	}
}

// firstFact is what a read of the first record of [from, to) found: the
// store holds nothing in [from, at), and a record at at when some, else
// nothing in [from, to).
type firstFact struct {
	from, to, at time.Time
	some         bool
}

// knownFirst answers the first record's time in [from, to) from the
// facts, known false when none does.
func (e *errorsRead) knownFirst(from, to time.Time) (at time.Time, some, known bool) {
	for _, f := range e.firsts {
		switch {
		case f.from.After(from):
		case f.some && !from.After(f.at):
			return f.at, f.at.Before(to), true
		case !f.some && !to.After(f.to):
			return time.Time{}, false, true
		}
	}
	return time.Time{}, false, false
}

// readFirst reads the time of the store's first record in [from, to).
func (e *errorsRead) readFirst(ctx context.Context, from, to time.Time) (time.Time, bool, error) {
	if ft, ok := e.WindowStore.(firstTimer); ok {
		return ft.FirstTime(ctx, from, to)
	}
	for r, err := range e.WindowStore.WindowRecords(ctx, schema.WindowQuery{From: from, To: to, Limit: 1}) {
		return r.Time, err == nil, err
	}
	return time.Time{}, false, nil
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
		part, over, err := e.part(ctx, q.Service, q.From, s.from)
		if err != nil {
			return nil, err
		}
		if e.keep(s, part, over) {
			s.recs, s.from = append(part, s.recs...), q.From
			if s.kinds != nil {
				s.kinds = append(make([]schema.Kind, len(part)), s.kinds...)
				s.classified = append(make([]bool, len(part)), s.classified...)
			}
		}
	}
	if !s.off && q.To.After(s.to) {
		part, over, err := e.part(ctx, q.Service, s.to, q.To)
		if err != nil {
			return nil, err
		}
		if e.keep(s, part, over) {
			s.recs, s.to = append(s.recs, part...), q.To
			if s.kinds != nil {
				s.kinds = append(s.kinds, make([]schema.Kind, len(part))...)
				s.classified = append(s.classified, make([]bool, len(part))...)
			}
		}
	}
	return s, nil
}

// keptRead is a read of a service's errors in [from, to): recs are all the
// store has there when full, else its first ones (the read's limit).
type keptRead struct {
	from, to time.Time
	recs     []heldRec
	full     bool
}

// answer gives what a read of [from, to), at most limit records, gives
// when k holds all of it. From from on, k's records begin the store's: all
// of them before k's end (to when full; else its last record's time), and
// the first, in the store's order, of those at that time.
func (k *keptRead) answer(from, to time.Time, limit int) ([]heldRec, bool) {
	if from.Before(k.from) {
		return nil, false
	}
	i := heldFrom(k.recs, from)
	j := i
	for j < len(k.recs) && j-i < limit && k.recs[j].at().Before(to) {
		j++
	}
	switch {
	case j-i == limit, k.full && !to.After(k.to), !k.full && !to.After(k.recs[len(k.recs)-1].at()):
		return k.recs[i:j], true
	}
	return nil, false
}

// offRead reads q of a service whose stretch is not held (s.off) as the
// stretch would have been, with the attributes the rules read; a read the
// service's kept reads answer goes to no store. The rules ask the same
// stretches again (an hour before each quantum that begins before the
// store's first record gives its first records each time), and a read is
// kept while errorsHeldCap allows.
func (e *errorsRead) offRead(ctx context.Context, s *errorSpan, q schema.WindowQuery) ([]heldRec, error) {
	for i := range s.reads {
		if recs, ok := s.reads[i].answer(q.From, q.To, q.Limit); ok {
			return recs, nil
		}
	}
	want := q.Limit
	q.Attrs = heldAttrs
	q.Limit = max(want, min(want*offReadAhead, errorsHeldCap-e.held))
	var recs []heldRec
	for r, err := range e.WindowStore.WindowRecords(ctx, q) {
		if err != nil {
			return nil, err // a failed read is not kept
		}
		recs = append(recs, e.holdRecord(&r))
	}
	if e.held+len(recs) <= errorsHeldCap {
		e.held += len(recs)
		s.reads = append(s.reads, keptRead{from: q.From, to: q.To, recs: recs, full: len(recs) < q.Limit})
	}
	return recs[:min(len(recs), want)], nil
}

// offReadAhead is how many times a read's limit offRead reads while the
// records can be kept. The rules ask a busy service's first records of
// stretches that begin a quantum apart: read with its limit, a stretch's
// records cover a few seconds, and the next quantum's read went to the
// store again (67 reads of 2000 records of the 10M-record window of
// docs/analysis-bench-clickhouse.md); read ahead, those of the quanta
// after it are answered from what is kept.
const offReadAhead = 4

// heldAttrs are the attributes of the records errorsRead holds: those the
// rules read (AttrKeys, and the version a record was served by). Held
// projected, records with the same ones share one map (the store's
// projection), rather than each a map of every attribute it has.
var heldAttrs = append(slices.Clip(AttrKeys), schema.AttrServiceVersion)

// recordCounter is a store that counts the records a read would give
// without sending them (ClickHouse's count()).
type recordCounter interface {
	CountRecords(ctx context.Context, q schema.WindowQuery) (int, error)
}

// part reads the errors and warnings of service in [from, to); over when
// they are more than errorsPartCap, read no further. Of a store that counts
// them first (recordCounter), such a stretch is not read: a busy service's
// 20,001 errors, read with their attributes only to be let go, took
// ClickHouse 1.6 s each.
func (e *errorsRead) part(ctx context.Context, service string, from, to time.Time) (part []heldRec, over bool, err error) {
	q := schema.WindowQuery{From: from, To: to, Service: service, ErrorsOnly: true, Limit: errorsPartCap + 1, Attrs: heldAttrs}
	if c, ok := e.WindowStore.(recordCounter); ok {
		n, err := c.CountRecords(ctx, q)
		if err != nil || n > errorsPartCap {
			return nil, err == nil, err
		}
	}
	for r, err := range e.WindowStore.WindowRecords(ctx, q) {
		if err != nil {
			return nil, false, err
		}
		part = append(part, e.holdRecord(&r))
	}
	return part, len(part) > errorsPartCap, nil
}

// maxHeldNames bounds the names errorsRead shares (holdRecord): past it,
// a high-cardinality operation name is copied for each record.
const maxHeldNames = 1 << 14

// keep reports whether part may join s, and turns s off when not: when it
// is over errorsPartCap, or the errors held would pass errorsHeldCap.
func (e *errorsRead) keep(s *errorSpan, part []heldRec, over bool) bool {
	if over || e.held+len(part) > errorsHeldCap {
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
func (e *errorsRead) heldKinds(ctx context.Context, svc string, from, to time.Time, limit int) (recs []heldRec, kinds []schema.Kind, ok bool, err error) {
	if limit <= 0 || !to.After(from) {
		return nil, nil, false, nil
	}
	s, err := e.span(ctx, schema.WindowQuery{From: from, To: to, Service: svc, ErrorsOnly: true, Limit: limit})
	if err != nil || s.off {
		return nil, nil, false, err
	}
	i := heldFrom(s.recs, from)
	j := i
	for j < len(s.recs) && s.recs[j].at().Before(to) && j-i < limit {
		j++
	}
	if s.kinds == nil {
		s.kinds, s.classified = make([]schema.Kind, len(s.recs)), make([]bool, len(s.recs))
	}
	for k := i; k < j; k++ {
		if !s.classified[k] && s.recs[k].recType() == schema.TypeLog {
			r := s.recs[k].record()
			s.kinds[k], s.classified[k] = Classify(&r), true
		}
	}
	return s.recs[i:j], s.kinds[i:j], true, nil
}

// heldFrom is the index of the first of recs (in time order) at or after
// t.
func heldFrom(recs []heldRec, t time.Time) int {
	i, _ := slices.BinarySearchFunc(recs, t, func(h heldRec, t time.Time) int { return h.at().Compare(t) })
	return i
}
