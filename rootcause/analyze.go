package rootcause

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// Defaults of Options.
const (
	DefaultBaseline = time.Hour
	// MaxBaseline is how far back the baseline widens when the default
	// period before the window holds less data than the window itself.
	MaxBaseline = 24 * time.Hour
	DefaultTop  = 10
	// MaxTop is the most candidates a query may ask for: the CLI's --top
	// and the web API's top accept 1..MaxTop.
	MaxTop = 100
	// DefaultRecordLimit caps the records read for the window and, again,
	// for the baseline.
	DefaultRecordLimit = 5_000_000
	// DefaultBuckets is how many buckets the error timeline per service has.
	DefaultBuckets = 30
)

// ErrNoData is returned when the window holds no records at all.
var ErrNoData = errors.New("no records in the window")

// ErrBadWindow is returned for a window whose end is not after its start.
var ErrBadWindow = errors.New("the window's end must be after its start")

// Query selects the incident: the window [From, To), and optionally the
// service an alert named (candidates are then limited to that service and
// what it depends on, when the call graph is known).
type Query struct {
	From, To time.Time
	Service  string
	Top      int
}

// Options tune the analysis; the zero value is the default everywhere.
type Options struct {
	// Baseline is how long a period before the window is the baseline; 0
	// means DefaultBaseline. The baseline shrinks to what the store holds.
	Baseline time.Duration
	// Limit caps the records read per period; 0 means DefaultRecordLimit.
	Limit int
	// Buckets is the resolution of the per-service error timeline.
	Buckets int
	// Correlate tunes the per-trace analysis.
	Correlate correlate.Options
	// SampleAbove is how many records of healthy traces a period holds
	// before it samples them (sample.go); 0 means DefaultSampleAbove, a
	// negative number never.
	SampleAbove int
	// SampleFailingAbove is how many failing traces a window explains
	// before it samples them (sampleFailing); 0 means
	// DefaultSampleFailingAbove, a negative number never.
	SampleFailingAbove int
	// Off names rules switched off, of this package (Rules) or of the
	// per-trace analysis (correlate.Rules): tests show with it that a
	// rule's scenario depends on the rule, and `analyze eval --ablate`
	// what each rule is worth.
	Off map[string]bool
}

func (o Options) withDefaults() Options {
	if o.Baseline <= 0 {
		o.Baseline = DefaultBaseline
	}
	if o.Limit <= 0 {
		o.Limit = DefaultRecordLimit
	}
	if o.Buckets <= 0 {
		o.Buckets = DefaultBuckets
	}
	if o.SampleAbove == 0 {
		o.SampleAbove = DefaultSampleAbove
	}
	if o.SampleFailingAbove == 0 {
		o.SampleFailingAbove = DefaultSampleFailingAbove
	}
	o.Correlate.SkipTimeline = true
	if len(o.Off) > 0 {
		off := maps.Clone(o.Correlate.Off)
		if off == nil {
			off = map[string]bool{}
		}
		maps.Copy(off, o.Off)
		o.Correlate.Off = off
	}
	return o
}

// Analyze reads the window and its baseline from st and ranks the
// root-cause candidates. An empty window is ErrNoData.
func Analyze(ctx context.Context, st Store, q Query, opt Options) (*Report, error) {
	rep, _, err := analyzeStore(ctx, st, q, opt)
	return rep, err
}

// analyzeStore is Analyze, also returning what the window's traces said.
func analyzeStore(ctx context.Context, st Store, q Query, opt Options) (*Report, *traceVotes, error) {
	if !q.To.After(q.From) {
		return nil, nil, ErrBadWindow
	}
	opt = opt.withDefaults()
	// The window holds its failing traces, which the stores' error index
	// names first, and learns from the others as they stream (stream.go);
	// only the window is sampled (sample.go): the baseline is already
	// capped at BaselineRecords.
	hold, err := failingTraces(ctx, st, q.From, q.To, opt.Limit)
	if err != nil {
		return nil, nil, err
	}
	// Past a budget, the failing traces are sampled too (sampleFailing):
	// the memory an analysis holds is then bounded however much of the
	// window fails.
	failK := sampleFailing(hold, opt.SampleFailingAbove)
	// A store that can draws the window's sample on its server, asked
	// once for the window's size (a second read, settled's, keeps it).
	plan, counted, err := planServerSample(ctx, st, opt.SampleAbove, q.From, q.To, hold, failK)
	if err != nil {
		return nil, nil, err
	}
	// The baseline depends on the window only by its size (baseSize): a
	// window the store counted has its baseline read on another core while
	// it is read itself (earlyBase), and kept when the read finds the size
	// counted.
	early := earlyBase(ctx, st, counted, plan != nil, q, opt, func(ctx context.Context, sz baseSize) (*loaded, error) {
		return loadBase(ctx, st, q, opt, sz)
	})
	defer early.stop()
	readWindow := func(names *period) (*loaded, error) {
		wp := newPeriod(q.From, q.To)
		if names != nil {
			wp.primeNames(names)
		}
		tv := newTraceVotes(wp, opt)
		var smp *sampler
		if opt.SampleAbove > 0 {
			smp = newSampler(opt.SampleAbove)
		}
		win, err := readPeriod(ctx, plan.read(st, smp), wp, opt, opt.Buckets, smp, hold, tv.learner(opt))
		if win != nil {
			win.votes = tv
			win.failK = failK
		}
		return win, err
	}
	win, err := settled(readWindow)
	if errors.Is(err, schema.ErrSampleOverLimit) {
		// The store's sample of the window would pass the record limit
		// (its alert records alone, or a few giant traces): read it as
		// one whose process samples it, keeping the newest records.
		plan = nil
		win, err = settled(readWindow)
	}
	if err != nil {
		return nil, nil, err
	}
	if win.n == 0 {
		return nil, nil, ErrNoData
	}
	sz := win.baseSize(q)
	bp := early.take(sz)
	if bp == nil {
		// The baseline is read and profiled on another core while the
		// window's traces are explained.
		bp = startBase(func() (*loaded, error) { return loadBase(ctx, st, q, opt, sz) })
	}
	return analyze(win, bp, q, opt, newStoreRules(ctx, st, opt.Correlate))
}

// loadBase reads the baseline of window q, whose read found sz: the
// configured span before it, shortened for a busy window (baselineSpan),
// widened for a thin one, or after the window when nothing is before it.
func loadBase(ctx context.Context, st Store, q Query, opt Options, sz baseSize) (*loaded, error) {
	baseFrom := q.From.Add(-baselineSpan(opt.Baseline, sz.covered, sz.n))
	first, last, err := st.Bounds(ctx)
	if err != nil || first.IsZero() {
		first, last = baseFrom, time.Time{}
	}
	if first.After(baseFrom) {
		baseFrom = first
	}
	base := profile(nil, baseFrom, q.From, 0, false)
	if baseFrom.Before(q.From) {
		if base, err = readBase(ctx, st, baseFrom, q.From, opt, false); err != nil {
			return nil, err
		}
	}
	// A baseline thinner than the window (or than the records its span
	// was cut to hold) cannot tell the window's noise from a change:
	// widen it to what the store holds before, up to MaxBaseline.
	wider := q.From.Add(-MaxBaseline)
	if first.After(wider) {
		wider = first
	}
	want := sz.n
	if limit := BaselineRecords(sz.n); sz.n > limit {
		want = limit * 3 / 4 // about limit, less the rate's ups and downs
	}
	if base.n < want && wider.Before(baseFrom) {
		// At most the records a baseline holds: read from the oldest,
		// they are a sample of what the store has before the window.
		capped := opt
		capped.Limit = min(opt.Limit, BaselineRecords(sz.n))
		if base, err = readBase(ctx, st, wider, q.From, capped, false); err != nil {
			return nil, err
		}
	}
	if base.n == 0 && last.After(q.To) {
		// Nothing before the window (a store filled after the fact, a
		// retention that cut the history): what the store holds after
		// it is the only reference there is. Read from the window's
		// end, as much as a baseline holds.
		capped := opt
		capped.Limit = min(opt.Limit, BaselineRecords(sz.n))
		to := last.Add(time.Nanosecond)
		if cap := q.To.Add(MaxBaseline); to.After(cap) {
			to = cap
		}
		if after, err := readBase(ctx, st, q.To, to, capped, true); err != nil {
			return nil, err
		} else if after.n > 0 {
			after.after = true
			base = after
		}
	}
	return base, nil
}

// baselineSpan is how far before the window the baseline reaches: the
// configured duration, shortened so that at the window's record rate it
// holds about BaselineRecords(n) records. A busy system's hour before the
// window would otherwise cost many times the window to read. The rate is
// the read's: n records over covered, the time they span (the window's,
// or, when the read was cut at the record limit, that of the newest
// records it kept; the window's whole length would halve the rate of a
// window cut in half, and double the baseline).
func baselineSpan(want, covered time.Duration, n int) time.Duration {
	limit := BaselineRecords(n)
	if n <= limit || covered <= 0 {
		return want
	}
	return min(want, time.Duration(float64(covered)*float64(limit)/float64(n)))
}

// BaselineRecords is about how many baseline records the analysis reads for
// a window of n records: as many as the window, at least 200k, at most
// 500k. Half a million records estimate every rate, share and latency
// quantile the signals compare as well as more would, and the baseline
// costs the analysis about as much per record as the window does.
func BaselineRecords(n int) int { return min(max(n, 200_000), 500_000) }

// AttrKeys are the record attributes incident analysis reads (the
// per-trace analysis's and its own): Analyze asks the store for just these.
var AttrKeys = append(slices.Clip(correlate.AttrKeys), schema.AttrServiceVersion)

// loaded is one period's held records with what was learnt of the period
// one record and one healthy trace at a time: the period's profile, less
// what needs the held traces, and the index of the held traces. The
// records stay in the fixed-size chunks they were read in: record i <
// held is chunks[i/chunkLen][i%chunkLen].
type loaded struct {
	// chunks hold the records of profile (records already in memory);
	// packs those a read held, packed, naming their strings by their
	// index in in.
	chunks [][]schema.Record
	packs  [][]packed
	// packLeft counts, per chunk of packs, the records not yet taken
	// (take); nil before the first is.
	packLeft []int32
	in       *interner
	// n counts the records read, held those kept in chunks: every one of
	// records already in memory (profile), the failing traces' of a read
	// (readPeriod), whose other traces were learnt from as they streamed.
	// When the store drew the sample (sampler.server), n counts the
	// records of the period as it counted them, and sent those it sent.
	n, held, sent int
	// sample, when not nil, chose the streamed traces learnt from and
	// weighed them.
	sample *sampler
	// failK is the weight of each failing trace held (sampleFailing), 1
	// or 0 when every one was; failing counts the failing traces the
	// read met (of those the error index named), failLeft those of them
	// the sample left out.
	failK, failing, failLeft int
	p                        *period
	traces                   traceIndex
	dups                     int // records dropped as copies of others
	// votes, for a window read, hold what its healthy traces told as they
	// streamed (analyzeTraces goes on from there).
	votes *traceVotes
	// after is set on a baseline taken from after the window.
	after bool
	// cut is set when the read stopped at the record limit; first and
	// last are the times of the oldest and newest records read.
	cut         bool
	first, last time.Time
}

// chunkLen is how many records a chunk of a loaded period holds.
const chunkLen = 1 << 14

// get writes held record i, of trace id, into r: from chunks (profile's
// records) or packs (a read's, packed).
func (l *loaded) get(id schema.TraceID, i int32, r *schema.Record) {
	if l.packs != nil {
		l.packs[i/chunkLen][i%chunkLen].unpack(r, id, l.in)
		return
	}
	*r = l.chunks[i/chunkLen][i%chunkLen]
}

// copyOf reports whether r is a copy of held record i (visit's test), and
// whether they are of the same time (copies are).
func (l *loaded) copyOf(i int32, r *schema.Record) (same, sameTime bool) {
	if l.packs != nil {
		p := &l.packs[i/chunkLen][i%chunkLen]
		if !p.at().Equal(r.Time) {
			return false, false
		}
		return p.same(r, l.in), true
	}
	h := &l.chunks[i/chunkLen][i%chunkLen]
	if !h.Time.Equal(r.Time) {
		return false, false
	}
	return correlate.SameRecord(h, r), true
}

// take is get, once: a read's held record is let go as it is taken
// (its strings and attributes at once, its chunk with the chunk's last
// record). Each held trace is taken once (each, eachExplained), and the
// window's failing traces, explained one by one, need not all stay in
// memory until the last is. profile's chunks are the caller's records,
// and stay.
func (l *loaded) take(id schema.TraceID, i int32, r *schema.Record) {
	l.get(id, i, r)
	if l.packs == nil {
		return
	}
	c := i / chunkLen
	l.packs[c][i%chunkLen] = packed{}
	if l.packLeft == nil {
		l.packLeft = make([]int32, len(l.packs))
		for k := range l.packLeft {
			l.packLeft[k] = int32(min(chunkLen, l.held-k*chunkLen))
		}
	}
	if l.packLeft[c]--; l.packLeft[c] == 0 {
		l.packs[c] = nil
	}
}

// each calls f once per held trace with its records, in trace id order,
// taking them (take).
func (l *loaded) each(f func([]schema.Record)) { l.traces.each(l.take, f) }

// profile profiles records already in memory, holding them all; buckets
// is the resolution of the error timeline (0 for none). A window's
// timings keep their traces (examples, and the traces a rule notes); a
// baseline's need only their durations.
func profile(recs []schema.Record, from, to time.Time, buckets int, window bool) *loaded {
	l := &loaded{n: len(recs), held: len(recs), p: newPeriod(from, to)}
	l.p.timing.keep = window
	for len(recs) > 0 {
		c := recs[:min(len(recs), chunkLen)]
		l.chunks = append(l.chunks, c)
		recs = recs[len(c):]
	}
	for i := range int32(l.n) {
		l.visit(i, &l.chunks[i/chunkLen][i%chunkLen], buckets, 1)
	}
	return l
}

// visit profiles and indexes record i, unless it repeats one already seen
// in its trace: the same file loaded twice, or a batch shipped twice, would
// otherwise double a service's rates. Records arrive in time order, so a
// copy of a record is among the last ones of its trace, at the same time.
func (l *loaded) visit(i int32, r *schema.Record, buckets, n int) (kept bool) {
	if r.TraceID != "" {
		if l.traces.idx == nil {
			l.traces.idx = map[schema.TraceID][]int32{}
		}
		list := l.traces.idx[r.TraceID]
		for j := len(list) - 1; j >= 0; j-- {
			same, sameTime := l.copyOf(list[j], r)
			if !sameTime {
				break
			}
			if same {
				l.dups++
				return false
			}
		}
		l.traces.idx[r.TraceID] = append(list, i)
	}
	l.p.addN(r, buckets, n)
	return true
}

// learner learns what one whole trace of period p tells, w times: the
// traces a streamed trace stands for (sample.go), what it tells counted
// once per trace. recs is reused after.
type learner func(p *period, recs []schema.Record, w int)

// readPeriod reads period p's records from the store, profiling each as it
// arrives while the store reads the next ones on another core. The traces
// hold marks true are held whole (in fixed-size chunks: growing one slice
// by appending would copy a million records several times over), those it
// marks false (failing traces sampleFailing left out) only profiled; every
// other trace is gathered while open and handed to learn once closed
// (stream.go), or left out by the sample smp (nil: none). Every record is
// profiled.
func readPeriod(ctx context.Context, st Store, p *period, opt Options, buckets int, smp *sampler, hold map[schema.TraceID]bool, learn learner) (*loaded, error) {
	l := &loaded{p: p, sample: smp}
	var as assembler
	var dt detacher
	var in interner
	l.in = &in
	var ar arena
	done := func(id schema.TraceID, recs []schema.Record) {
		// A skimmed trace (no records) is one the sample leaves out.
		if w := smp.take(id, len(recs)); w > 0 {
			learn(p, recs, w)
		}
	}
	if smp != nil {
		as.skim = func(id schema.TraceID) bool { return traceHash(id)%smp.k != 0 }
	}
	as.own, as.in = ar.own, &in
	// A store that samples the window may send the errors of the traces
	// out of its sample grouped (schema.WindowQuery.Group): what addN
	// counts of them is the same within a slot of the coverage and a
	// bucket of the timeline, and it reads the rest of a template from
	// its first record alone.
	q := schema.WindowQuery{From: p.from, To: p.to, Limit: opt.Limit, Attrs: AttrKeys,
		Group: &schema.RecordGroups{Slot: coverSec * time.Second, Parts: buckets}}
	grouped := false
	// One record for the whole read: each is copied into it, as the
	// range variable's address, taken below, would move every record of
	// the read to the heap. Nothing keeps r (what is kept is packed).
	r := new(schema.Record)
	for rec, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("cannot read records from %s to %s: %w",
				p.from.Format(time.RFC3339), p.to.Format(time.RFC3339), err)
		}
		*r = rec
		l.n++
		n := 1 // the records r stands for
		if r.Count > 1 {
			n, grouped = int(r.Count), true
		}
		if r.Time.After(l.last) {
			l.last = r.Time
		}
		if l.n == 1 || r.Time.Before(l.first) {
			l.first = r.Time
		}
		if r.TraceID == "" {
			// Nothing reads a record without a trace again (period.add
			// is all it takes part in): it is profiled, not held.
			ownStrings(r, &in)
			l.p.add(r, buckets)
			continue
		}
		if sampled, ok := hold[r.TraceID]; ok {
			if !sampled {
				// A failing trace the sample left out (sampleFailing):
				// profiled, as every record is, and let go. Its trace id
				// may be kept (timings name their traces): the copy.
				ownStrings(r, &in)
				dt.ownID(r)
				l.p.addN(r, buckets, smp.weight(r, true)*n)
				continue
			}
			// Its own strings: a view of the store's block would keep the
			// block, and every streamed record of it, in memory. Those
			// that repeat from record to record are interned, the rest
			// copied. It is held packed, as an open trace's are.
			ids := ownStrings(r, &in)
			dt.detach(r)
			if l.visit(int32(l.held), r, buckets, smp.weight(r, true)) {
				if l.held%chunkLen == 0 {
					l.packs = append(l.packs, make([]packed, chunkLen))
				}
				l.packs[l.held/chunkLen][l.held%chunkLen] = pack(r, ids)
				l.held++
			}
			continue
		}
		as.sweep(r.Time, done)
		if as.add(r, ownStrings(r, &in)) {
			l.dups++
			continue
		}
		l.p.addN(r, buckets, smp.weight(r, false)*n)
	}
	as.sweep(time.Time{}, done)
	// The failing traces read: dt gave each its own id, the held ones
	// and those the sample left out alike; and those left out whose
	// errors all came grouped, their ids unsent (each has an error in the
	// window, failingTraces: each was read).
	unsent := 0
	if grouped {
		for id, sampled := range hold {
			if _, ok := dt.ids[id]; !ok && !sampled {
				unsent++
			}
		}
	}
	l.failing = len(dt.ids) + unsent
	l.failLeft = l.failing - len(l.traces.idx)
	l.cut = opt.Limit > 0 && l.n >= opt.Limit
	if smp != nil && smp.server {
		// The store sent the sample: the window is what it counted, and
		// the healthy traces left out are those it holds beyond the ones
		// the read met; a store that did not count its traces (0) has,
		// about, k of them for each in the sample.
		l.sent, l.n = l.n, max(l.n, smp.records)
		if smp.traces > 0 {
			smp.dropped = max(smp.dropped, smp.traces-smp.kept-l.failing)
		} else {
			smp.dropped = max(smp.dropped, smp.kept*(int(smp.k)-1))
		}
	}
	return l, nil
}

// AnalyzeRecords ranks the candidates of window given the records of the
// window and of the baseline period before it (either may be empty). It is
// pure and deterministic: the same records give the same report.
func AnalyzeRecords(window, baseline []schema.Record, q Query, baseWin Window, opt Options) *Report {
	opt = opt.withDefaults()
	rep, _, _ := analyze(profile(window, q.From, q.To, opt.Buckets, true), startBase(func() (*loaded, error) {
		return profile(baseline, baseWin.From, baseWin.To, 0, false), nil
	}), q, opt, nil)
	return rep
}

// basePeriod is the baseline's profile, built by another goroutine.
type basePeriod struct {
	done chan struct{}
	p    *period
	n    int
	win  Window
	err  error
	// after is set when the baseline comes from after the window.
	after bool
}

// get waits for the profile.
func (bp *basePeriod) get() *period { <-bp.done; return bp.p }

func startBase(load func() (*loaded, error)) *basePeriod {
	bp := &basePeriod{done: make(chan struct{})}
	go func() {
		defer close(bp.done)
		base, err := load()
		if err != nil {
			bp.p, bp.err = newPeriod(time.Time{}, time.Time{}), err
			return
		}
		p := base.p
		learn := baseLearner(base.after)
		base.each(func(recs []schema.Record) { learn(p, recs, 1) })
		bp.p, bp.n, bp.win, bp.after = p, base.n, Window{From: p.from, To: p.to}, base.after
	}()
	return bp
}

// settled reads a period with read, and again, with the names the first
// read found, when a name given late in the period settles a host name
// differently than the traces learnt before it were (period.hostsSettled):
// a streamed read then costs two, and its answer is the one a read that
// knew every name from the start gives.
func settled(read func(names *period) (*loaded, error)) (*loaded, error) {
	l, err := read(nil)
	if err != nil || l.p.hostsSettled() {
		return l, err
	}
	return read(l.p)
}

// readBase reads a baseline period, learning from its traces as they
// stream (baseLearner); after is set for one taken after the window.
func readBase(ctx context.Context, st Store, from, to time.Time, opt Options, after bool) (*loaded, error) {
	return settled(func(names *period) (*loaded, error) {
		p := newPeriod(from, to)
		if names != nil {
			p.primeNames(names)
		}
		return readPeriod(ctx, st, p, opt, 0, nil, nil, baseLearner(after))
	})
}

// baseLearner learns from a baseline's trace: its self times, calls and
// behaviour and, before the window, the services that served it.
func baseLearner(after bool) learner {
	return func(p *period, recs []schema.Record, w int) {
		if !after && p.split.IsZero() {
			// Only a baseline before the window has an older half.
			p.split = p.from.Add(p.to.Sub(p.from) / 2)
		}
		p.addSelfTimes(recs, nil, w)
		p.addBehaviour(recs, w)
		if !after {
			for range w {
				p.addServed(recs)
			}
		}
	}
}

// analyze ranks the candidates of window against the baseline bp, which
// another goroutine loads and profiles while the window's traces are
// explained (startBase, or earlier: earlyBase). sr, when not nil, applies the
// store's rules to each failing trace (Analyze).
func analyze(window *loaded, bp *basePeriod, q Query, opt Options, sr *storeRules) (*Report, *traceVotes, error) {
	w := window.p
	tr := analyzeTraces(window, bp, opt, sr)
	b := bp.get()
	if bp.err != nil {
		return nil, nil, bp.err
	}
	if !opt.Off[ruleCountedOnce] {
		// Each anomalous request counted once: the timing findings count
		// what they slowed with the failing traces' novelty known.
		w.failNews = make(map[schema.TraceID]float64, len(tr.votes))
		for _, v := range tr.votes {
			w.failNews[v.trace] = v.news
		}
	}
	baseWin := bp.win
	rep := &Report{
		Window:       Window{From: q.From, To: q.To},
		Traces:       tr.traces,
		FailedTraces: tr.failed,
	}
	if window.dups > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("ignored %d records that repeat others of their trace (the same data loaded twice?)", window.dups))
	}
	if window.cut && window.first.After(q.From) {
		// Never a silent cut: the window is read newest first (newestFirst),
		// so what was left out is its start, not the incident at its end.
		first := window.first.UTC().Format(time.RFC3339)
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the window holds more than %d records: only the newest %d, from %s, were read, and %s to %s is not in this analysis; narrow the window",
			window.n, window.n, first, q.From.UTC().Format(time.RFC3339), first))
	}
	if s := window.sampled(); s != nil {
		rep.Sampled = s
		rep.Warnings = append(rep.Warnings, sampledWarning(s, window))
	}
	if bp.n > 0 {
		rep.Baseline = &baseWin
		bd := &BaselineData{Records: bp.n, Minutes: math.Round(b.minutes()*10) / 10}
		if bd.Thin = b.minutes() < w.minutes(); bd.Thin {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the baseline is thin: %.1f minutes of data (%d records) against the window's %.1f; what it lacks may be usual, and is weighed as weak evidence",
				b.minutes(), bp.n, w.minutes()))
		}
		rep.BaselineData = bd
		if bp.after {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("no records before the window: the baseline is what the store holds after it (%s to %s)",
				baseWin.From.UTC().Format(time.RFC3339), baseWin.To.UTC().Format(time.RFC3339)))
		}
	} else {
		rep.Warnings = append(rep.Warnings, "no baseline before the window: novelty and latency changes cannot be judged")
	}
	in := &inputs{win: w, base: b, traces: tr, q: q, off: opt.Off}
	cands := rank(in)
	top := q.Top
	if top <= 0 {
		top = DefaultTop
	}
	if len(cands) > top {
		cands = cands[:top]
	}
	rep.Candidates = cands
	rep.Services = summarize(w, cands, tr, opt.Buckets)
	rep.Edges = tr.edgeList()
	return rep, tr, nil
}
