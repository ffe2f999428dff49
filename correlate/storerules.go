package correlate

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// StoreRules applies the rules of Analyze that read the store beyond one
// trace (storeRules: usual_noise, breaker_follow, callee_named_before,
// troubled_caller, caller_deploy) to results of AnalyzeRecords, so that a
// caller that already holds a trace's records (incident analysis, over
// every failing trace of a window) gives each trace the suspect Analyze
// gives it.
//
// A StoreRules remembers what its rules found (storeMemo), the traces
// they read (tracesRead) and the errors of each service (errorsRead): the
// failures that tripped one breaker, a service's trouble or usual noise,
// in one tripQuantum, are read and weighed once, however many traces lead
// to them. It is not safe for concurrent use; make one per analysis, since
// it keeps what it found.
type StoreRules struct {
	st   WindowStore
	opts Options
	memo *storeMemo
}

// NewStoreRules returns the store rules of st, with the options the
// results to apply them to were analysed with.
func NewStoreRules(st WindowStore, opts Options) *StoreRules {
	st = &tracesRead{WindowStore: newErrorsRead(st), recs: map[traceRead][]schema.Record{}}
	return &StoreRules{st: st, opts: opts, memo: newStoreMemo()}
}

// Apply applies the store rules to res, the result of AnalyzeRecords(recs,
// opts) for the options given to NewStoreRules, and returns the result
// Analyze gives for those records: res itself, changed, or a new Result
// (usual_noise walks the trace again). recs is neither modified nor
// retained. A result with nothing for the rules to follow (no breaker
// lead, no silent callee, no error of the suspect's own) costs no read;
// a store that fails to read leaves a warning on the result.
func (s *StoreRules) Apply(ctx context.Context, recs []schema.Record, res *Result) *Result {
	if res == nil {
		return nil
	}
	a := &storeAnalysis{recs: recs, opts: s.opts, res: res, memo: s.memo}
	for _, r := range storeRules() {
		if !s.opts.ruleOff(r.name) {
			r.apply(ctx, s.st, a)
		}
	}
	a.res.lead, a.res.caller = nil, nil
	return a.res
}

// tripQuantum is the stretch whose traces share what the store rules
// read: a rule looks back from the end of the tripQuantum the failure it
// follows fell in (quantumEnd), not from the failure itself. Hundreds of
// traces a breaker refused within seconds then read and weigh the failures
// that tripped it once (and a caller's trouble, a service's usual noise,
// a caller's new version are each read once), and a trace gets the same
// suspect whichever other traces were analysed with it (analyze trace,
// analyze incident). A lookback gains at most tripQuantum after the
// failure: the same dependency failing on, the same trouble going on.
const tripQuantum = 10 * time.Second

// quantumEnd is the end of the tripQuantum that t falls in: after t, by
// at most tripQuantum.
func quantumEnd(t time.Time) time.Time {
	return t.Truncate(tripQuantum).Add(tripQuantum)
}

// storeMemo remembers what the store rules of one StoreRules found, by a
// key of everything each finding depends on (memoKey); nil remembers
// nothing.
type storeMemo struct {
	found map[string]any
	// keys holds what the records say of the traces that name each
	// keyed breaker's key (breaker_lookback_key).
	keys map[string]*keySpan
	// kinds holds the kind Classify gave each warning and error a rule
	// weighed (troubled_caller reads the same hour of a caller's lines
	// for each tripQuantum: classifying them again each time was most of
	// a large window's analysis), up to maxMemoKinds lines.
	kinds map[lineKey]schema.Kind
}

// maxMemoKinds caps storeMemo.kinds: about 100 MB of keys at most, and
// errorsRead holds no more lines than that.
const maxMemoKinds = 1 << 20

// lineKey tells a log line apart from every other: its service, time,
// severity and text.
type lineKey struct {
	svc  string
	at   int64
	sev  schema.Severity
	body string
}

func newStoreMemo() *storeMemo { return &storeMemo{found: map[string]any{}} }

// classify is Classify(r), remembered for each line of m (nil: not
// remembered). A log line's kind depends on its text, severity and
// attributes; two lines of one service at the same nanosecond with the
// same text and severity are the same line.
func (m *storeMemo) classify(r *schema.Record) schema.Kind {
	if m == nil || r.Type != schema.TypeLog {
		return Classify(r)
	}
	key := lineKey{r.Service, r.Time.UnixNano(), r.Severity, r.Body}
	if k, ok := m.kinds[key]; ok {
		return k
	}
	k := Classify(r)
	if m.kinds == nil {
		m.kinds = map[lineKey]schema.Kind{}
	}
	if len(m.kinds) < maxMemoKinds {
		m.kinds[key] = k
	}
	return k
}

// memoized returns what f gives for key, calling f only the first time m
// is asked for key. An error is returned, never remembered.
func memoized[T any](m *storeMemo, key string, f func() (T, error)) (T, error) {
	if m != nil {
		if v, ok := m.found[key]; ok {
			return v.(T), nil
		}
	}
	v, err := f()
	if m != nil && err == nil {
		m.found[key] = v
	}
	return v, err
}

// memoKey joins the parts of a finding's key: the rule's name first, a
// time as nanoseconds.
func memoKey(parts ...any) string {
	var b strings.Builder
	for _, p := range parts {
		switch v := p.(type) {
		case time.Time:
			fmt.Fprintf(&b, "%d\x00", v.UnixNano())
		default:
			fmt.Fprintf(&b, "%v\x00", v)
		}
	}
	return b.String()
}

// tracesRead is a store that reads each trace once: the searches behind a
// breaker in neighbouring quanta weigh many of the same tripping traces.
// At most maxTracesRead traces are kept; a failed read is not.
type tracesRead struct {
	WindowStore
	recs map[traceRead][]schema.Record
}

// traceRead is one read of a trace.
type traceRead struct {
	id    schema.TraceID
	limit int
}

// maxTracesRead caps the traces a tracesRead keeps: beyond it, they are
// read again.
const maxTracesRead = 20_000

func (t *tracesRead) TraceRecords(ctx context.Context, id schema.TraceID, limit int) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		k := traceRead{id, limit}
		recs, ok := t.recs[k]
		if !ok {
			for r, err := range t.WindowStore.TraceRecords(ctx, id, limit) {
				if err != nil {
					yield(schema.Record{}, err)
					return
				}
				recs = append(recs, r)
			}
			if len(t.recs) < maxTracesRead {
				t.recs[k] = recs
			}
		}
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}
}
