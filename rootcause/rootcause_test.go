package rootcause

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// incident builds a small incident by hand. checkout calls inventory, which
// calls its database; mailer runs on its own. In the window inventory's
// reserve operation throws: it stops logging "stock reserved", logs a new
// error of its own, and checkout logs that its call failed. mailer logs
// the same warning all day, in the baseline as in the window.
type incident struct {
	base, win []schema.Record
	from, to  time.Time
	baseWin   Window
}

var t0 = time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)

func newIncident() *incident {
	in := &incident{from: t0.Add(30 * time.Minute), to: t0.Add(40 * time.Minute)}
	in.baseWin = Window{From: t0, To: in.from}
	n := 0
	add := func(dst *[]schema.Record, at time.Time, faulty bool) {
		n++
		tid := schema.TraceID(fmt.Sprintf("%032x", n))
		sid := func(k int) schema.SpanID { return schema.SpanID(fmt.Sprintf("%014x%02x", n, k)) }
		span := func(k, parent int, svc, op string, d time.Duration) schema.Record {
			r := schema.Record{Type: schema.TypeSpan, Time: at.Add(time.Duration(k) * time.Millisecond), TraceID: tid,
				SpanID: sid(k), Service: svc, Name: op, Duration: d}
			if parent > 0 {
				r.ParentSpanID = sid(parent)
			}
			return r
		}
		log := func(k int, svc string, sev schema.Severity, body string) schema.Record {
			return schema.Record{Type: schema.TypeLog, Time: at.Add(time.Duration(k)*time.Millisecond + 500*time.Microsecond),
				TraceID: tid, SpanID: sid(k), Service: svc, Severity: sev, Body: body}
		}
		*dst = append(*dst,
			span(1, 0, "checkout", "POST /checkout", 30*time.Millisecond),
			span(2, 1, "inventory", "InventoryController.reserve", 20*time.Millisecond),
			log(2, "inventory", schema.SeverityInfo, fmt.Sprintf("10:00:00.000 INFO  i.c.InventoryController#41 reserve request for item %d", n)))
		if faulty {
			*dst = append(*dst,
				log(2, "inventory", schema.SeverityError, fmt.Sprintf("10:00:00.001 ERROR i.s.StockService#88 reserve failed: stock row %d is locked by a broken migration", n)),
				log(1, "checkout", schema.SeverityError, "10:00:00.002 ERROR c.s.CheckoutService#120 checkout failed: inventory answered 500"))
		} else {
			*dst = append(*dst,
				span(3, 2, "inventory", "SELECT stock", 5*time.Millisecond),
				log(2, "inventory", schema.SeverityInfo, fmt.Sprintf("10:00:00.001 INFO  i.s.StockService#97 stock reserved for item %d", n)))
		}
		if n%3 == 0 {
			*dst = append(*dst, schema.Record{Type: schema.TypeLog, Time: at, TraceID: schema.TraceID(fmt.Sprintf("%032x", 1_000_000+n)),
				Service: "mailer", Severity: schema.SeverityWarn, Body: "smtp relay slow, retrying in 5s"})
		}
	}
	for i := range 120 {
		add(&in.base, t0.Add(time.Duration(i)*15*time.Second), false)
	}
	for i := range 40 {
		add(&in.win, in.from.Add(time.Duration(i)*15*time.Second), i >= 4)
	}
	return in
}

func (in *incident) analyze(q Query) *Report {
	q.From, q.To = in.from, in.to
	return AnalyzeRecords(in.win, in.base, q, in.baseWin, Options{})
}

func TestSyntheticIncidentRanksTheFaultyService(t *testing.T) {
	rep := newIncident().analyze(Query{})
	if len(rep.Candidates) == 0 {
		t.Fatal("no candidates")
	}
	top := rep.Candidates[0]
	if top.Service != "inventory" {
		t.Fatalf("top candidate %s, want inventory; candidates:\n%s", top.Service, dump(rep))
	}
	for _, want := range []string{"trace_origin", "new_errors", "behaviour"} {
		if !hasSignal(top, want) {
			t.Errorf("inventory lacks the %s signal:\n%s", want, dump(rep))
		}
	}
	var sum float64
	for _, s := range top.Signals {
		sum += s.Value
		if s.Reason == "" {
			t.Errorf("signal %s has no evidence line", s.Name)
		}
	}
	if diff := sum - top.Score; diff > 0.01 || diff < -0.01 {
		t.Errorf("score %.3f is not the sum of its signals %.3f", top.Score, sum)
	}
	for _, c := range rep.Candidates {
		if c.Service == "mailer" && c.Score >= top.Score/2 {
			t.Errorf("mailer, warning as always, scores %.2f against %.2f", c.Score, top.Score)
		}
	}
}

func TestAnalysisIsDeterministic(t *testing.T) {
	in := newIncident()
	want := dump(in.analyze(Query{}))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		rng.Shuffle(len(in.win), func(i, j int) { in.win[i], in.win[j] = in.win[j], in.win[i] })
		rng.Shuffle(len(in.base), func(i, j int) { in.base[i], in.base[j] = in.base[j], in.base[i] })
		if got := dump(in.analyze(Query{})); got != want {
			t.Fatalf("shuffled input gives another report:\n%s\nwant:\n%s", got, want)
		}
	}
}

func TestScopeByService(t *testing.T) {
	in := newIncident()
	// mailer gets a new error of its own in the window, unrelated to checkout.
	for i := range 30 {
		in.win = append(in.win, schema.Record{Type: schema.TypeLog, Time: in.from.Add(time.Duration(i) * time.Second),
			TraceID: schema.TraceID(fmt.Sprintf("%032x", 2_000_000+i)), Service: "mailer",
			Severity: schema.SeverityError, Body: "template store unreachable"})
	}
	all := in.analyze(Query{})
	if !slices.ContainsFunc(all.Candidates, func(c Candidate) bool { return c.Service == "mailer" }) {
		t.Fatalf("unscoped analysis lacks mailer:\n%s", dump(all))
	}
	scoped := in.analyze(Query{Service: "checkout"})
	for _, c := range scoped.Candidates {
		if c.Service != "checkout" && c.Service != "inventory" {
			t.Errorf("scoped to checkout, the candidates include %s", c.Service)
		}
	}
	if len(scoped.Candidates) == 0 || scoped.Candidates[0].Service != "inventory" {
		t.Errorf("scoped to checkout, want inventory first:\n%s", dump(scoped))
	}
}

// TestBehaviourIgnoresTrafficMix: when the mix of operations changes but
// each operation behaves as before, no behaviour shift is found; when one
// operation stops writing a line it always wrote, it is.
func TestBehaviourIgnoresTrafficMix(t *testing.T) {
	mk := func(nA, nB int, dropB bool) *period {
		p := newPeriod(t0, t0.Add(time.Hour))
		for i := range nA + nB {
			op, line := "list", "listed items"
			if i >= nA {
				op, line = "get", "got item"
			}
			tid := schema.TraceID(fmt.Sprintf("%032x", i+1))
			sid := schema.SpanID(fmt.Sprintf("%016x", i+1))
			recs := []schema.Record{{Type: schema.TypeSpan, Time: t0, TraceID: tid, SpanID: sid, Service: "svc", Name: op}}
			if !(dropB && op == "get") {
				recs = append(recs, schema.Record{Type: schema.TypeLog, Time: t0, TraceID: tid, SpanID: sid,
					Service: "svc", Severity: schema.SeverityInfo, Body: line})
			}
			for j := range recs {
				p.add(&recs[j], 0)
			}
			p.addBehaviour(recs, 1)
		}
		return p
	}
	base := mk(90, 10, false)
	if s := behaviourShifts(mk(10, 90, false), base, "svc"); len(s) != 0 {
		t.Errorf("a change of traffic mix alone gives shifts: %+v", s)
	}
	s := behaviourShifts(mk(50, 50, true), base, "svc")
	if len(s) != 1 || s[0].key.op != "get" || s[0].pw != 0 || s[0].pb != 1 {
		t.Errorf("want one shift, get stopped logging; got %+v", s)
	}
}

// TestBehaviourCutShort: executions that log "A" always went on to log "B";
// in the window most of those stop after "A". Most executions log "B"
// without "A", so B's own share hardly moves; the succession finds it.
func TestBehaviourCutShort(t *testing.T) {
	mk := func(withA, withAB, onlyB int) *period {
		p := newPeriod(t0, t0.Add(time.Hour))
		for i := range withA + onlyB {
			tid := schema.TraceID(fmt.Sprintf("%032x", i+1))
			sid := schema.SpanID(fmt.Sprintf("%016x", i+1))
			recs := []schema.Record{{Type: schema.TypeSpan, Time: t0, TraceID: tid, SpanID: sid, Service: "svc", Name: "query"}}
			line := func(ms int, body string) {
				recs = append(recs, schema.Record{Type: schema.TypeLog, Time: t0.Add(time.Duration(ms) * time.Millisecond),
					TraceID: tid, SpanID: sid, Service: "svc", Severity: schema.SeverityInfo, Body: body})
			}
			line(1, "query started")
			if i < withA {
				line(2, "calculate distance start")
				if i < withAB {
					line(3, "calculate distance done")
				}
			} else {
				line(3, "calculate distance done")
			}
			line(4, "query answered")
			for j := range recs {
				p.add(&recs[j], 0)
			}
			p.addBehaviour(recs, 1)
		}
		return p
	}
	base := mk(20, 20, 40)
	if s := behaviourShifts(mk(20, 20, 40), base, "svc"); len(s) != 0 {
		t.Errorf("the same behaviour gives shifts: %+v", s)
	}
	s := behaviourShifts(mk(20, 6, 40), base, "svc")
	if len(s) != 1 {
		t.Fatalf("want one shift, got %+v", s)
	}
	before, after, ok := succession(s[0].event)
	if !ok || !strings.Contains(before, "start") || !strings.Contains(after, "done") || s[0].pb != 1 || s[0].pw != 0.3 {
		t.Errorf("want \"done\" no longer after \"start\" (1 -> 0.3), got %q %+v", s[0].event, s[0])
	}
}

// TestBehaviourBeganBeforeWindow: a statement the service always wrote
// stopped some minutes before the window, so the baseline's newer half
// already lacks it; against the whole baseline the change looks small, and
// against its older half it shows, counting half. Against a steady
// baseline, the change is judged against the whole.
func TestBehaviourBeganBeforeWindow(t *testing.T) {
	add := func(p *period, at time.Time, n int, done bool) {
		for i := range n {
			tid := schema.TraceID(fmt.Sprintf("%016x%016x", at.Unix(), i+1))
			sid := schema.SpanID(fmt.Sprintf("%016x", i+1))
			recs := []schema.Record{{Type: schema.TypeSpan, Time: at, TraceID: tid, SpanID: sid, Service: "svc", Name: "query"},
				{Type: schema.TypeLog, Time: at, TraceID: tid, SpanID: sid, Service: "svc", Severity: schema.SeverityInfo, Body: "query started"}}
			if done {
				recs = append(recs, schema.Record{Type: schema.TypeLog, Time: at.Add(time.Millisecond), TraceID: tid, SpanID: sid,
					Service: "svc", Severity: schema.SeverityInfo, Body: "distance calculated"})
			}
			for j := range recs {
				p.add(&recs[j], 0)
			}
			p.addBehaviour(recs, 1)
		}
	}
	baseline := func(olderDone, newerDone bool) *period {
		p := newPeriod(t0.Add(-time.Hour), t0)
		p.split = t0.Add(-30 * time.Minute)
		add(p, t0.Add(-50*time.Minute), 10, olderDone)
		add(p, t0.Add(-5*time.Minute), 30, newerDone)
		return p
	}
	window := func(done bool) *period { // a new one each time: it caches its shifts
		p := newPeriod(t0, t0.Add(10*time.Minute))
		add(p, t0.Add(time.Minute), 20, done)
		return p
	}
	s := behaviourShifts(window(false), baseline(true, false), "svc")
	if len(s) != 1 || !s[0].older || s[0].pb != 1 || s[0].pw != 0 || s[0].weight() != olderShare {
		t.Errorf("want one shift against the older half, 1 -> 0, weighing %v; got %+v", olderShare, s)
	}
	if s := behaviourShifts(window(false), baseline(true, true), "svc"); len(s) != 1 || s[0].older {
		t.Errorf("against a steady baseline, want one shift of the whole; got %+v", s)
	}
}

func TestCodeLocation(t *testing.T) {
	for body, want := range map[string]string{
		"16:42:22.382 ERROR f.s.FoodServiceImpl#302 TraceID: da8c SpanID: 4ef0 [getAllFood] failed": "f.s.FoodServiceImpl#302",
		"2026/01/15 10:00:00 main.go:42: starting":                                                  "main.go:42",
		"INFO app.py:17 request done":                                                               "app.py:17",
		"connecting to db.example.com:5432":                                                         "",
		"10.0.0.1:8080 refused":                                                                     "",
		"plain message without a location":                                                          "",
	} {
		if got := codeLocation(body); got != want {
			t.Errorf("codeLocation(%q) = %q, want %q", body, got, want)
		}
	}
}

func TestEmptyBaselineWarns(t *testing.T) {
	in := newIncident()
	rep := AnalyzeRecords(in.win, nil, Query{From: in.from, To: in.to}, Window{}, Options{})
	if rep.Baseline != nil || len(rep.Warnings) == 0 {
		t.Errorf("no baseline: want a warning and no baseline window, got %+v / %v", rep.Baseline, rep.Warnings)
	}
	if len(rep.Candidates) == 0 || rep.Candidates[0].Service != "inventory" {
		t.Errorf("without a baseline the trace origins still point at inventory:\n%s", dump(rep))
	}
}

func hasSignal(c Candidate, name string) bool {
	return slices.ContainsFunc(c.Signals, func(s Signal) bool { return s.Name == name })
}

func dump(rep *Report) string {
	var b strings.Builder
	for _, c := range rep.Candidates {
		sig, _ := json.Marshal(c.Signals)
		fmt.Fprintf(&b, "%d %s %s %.3f %s\n", c.Rank, c.Service, c.Kind, c.Score, sig)
	}
	return b.String()
}

// TestRefusedPointerAtAHealthyService: orders logs refused connections to
// pricing, but pricing kept serving its other calls as usual; the failure
// is on orders' side of the call, and orders ranks first.
func TestRefusedPointerAtAHealthyService(t *testing.T) {
	n := 0
	trace := func(at time.Time, broken bool) []schema.Record {
		n++
		tid := schema.TraceID(fmt.Sprintf("%032x", n))
		sid := func(k int) schema.SpanID { return schema.SpanID(fmt.Sprintf("%014x%02x", n, k)) }
		recs := []schema.Record{
			{Type: schema.TypeSpan, Time: at, TraceID: tid, SpanID: sid(1), Service: "orders", Name: "POST /orders", Duration: 20 * time.Millisecond},
			{Type: schema.TypeLog, Time: at.Add(time.Millisecond), TraceID: tid, SpanID: sid(1), Service: "orders",
				Severity: schema.SeverityInfo, Body: "order received"},
		}
		if broken {
			return append(recs, schema.Record{Type: schema.TypeLog, Time: at.Add(2 * time.Millisecond), TraceID: tid, SpanID: sid(1),
				Service: "orders", Severity: schema.SeverityError, Body: "call to pricing failed: connection refused"})
		}
		return append(recs,
			schema.Record{Type: schema.TypeSpan, Time: at.Add(time.Millisecond), TraceID: tid, SpanID: sid(2), ParentSpanID: sid(1),
				Service: "pricing", Name: "GET /price", Duration: 5 * time.Millisecond},
			schema.Record{Type: schema.TypeLog, Time: at.Add(2 * time.Millisecond), TraceID: tid, SpanID: sid(2), Service: "pricing",
				Severity: schema.SeverityInfo, Body: "price computed"})
	}
	from := t0.Add(30 * time.Minute)
	var base, win []schema.Record
	for i := range 120 {
		base = append(base, trace(t0.Add(time.Duration(i)*15*time.Second), false)...)
	}
	for i := range 60 {
		win = append(win, trace(from.Add(time.Duration(i)*5*time.Second), i%2 == 1)...)
	}
	rep := AnalyzeRecords(win, base, Query{From: from, To: from.Add(5 * time.Minute)}, Window{From: t0, To: from}, Options{})
	if len(rep.Candidates) == 0 || rep.Candidates[0].Service != "orders" {
		t.Fatalf("want orders first, pricing kept serving:\n%s", dump(rep))
	}
}

// memStore is an in-memory Store for the tests of Analyze.
type memStore struct{ recs []schema.Record }

func (m *memStore) TraceRecords(_ context.Context, id schema.TraceID, _ int) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		for _, r := range m.recs {
			if r.TraceID == id && !yield(r, nil) {
				return
			}
		}
	}
}

func (m *memStore) WindowRecords(_ context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		for _, r := range m.recs {
			if !r.Time.Before(q.From) && r.Time.Before(q.To) && !yield(r, nil) {
				return
			}
		}
	}
}

func (m *memStore) Bounds(context.Context) (first, last time.Time, err error) {
	for _, r := range m.recs {
		if first.IsZero() || r.Time.Before(first) {
			first = r.Time
		}
		if r.Time.After(last) {
			last = r.Time
		}
	}
	return first, last, nil
}

// TestBaselineWidensWhenThin: the hour before the window holds less than
// the window, so the baseline reaches back to the older data the store
// holds, up to MaxBaseline.
func TestBaselineWidensWhenThin(t *testing.T) {
	in := newIncident()
	// The incident's baseline moved three hours back, and a thin minute
	// right before the window.
	var recs []schema.Record
	for _, r := range in.base {
		r.Time = r.Time.Add(-3 * time.Hour)
		recs = append(recs, r)
	}
	recs = append(recs, in.base[len(in.base)-3:]...)
	slices.SortStableFunc(recs, func(a, b schema.Record) int { return a.Time.Compare(b.Time) })
	sorted := append(recs, in.win...)
	rep, err := Analyze(context.Background(), &memStore{recs: sorted}, Query{From: in.from, To: in.to}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Baseline == nil || !rep.Baseline.From.Equal(recs[0].Time) {
		t.Fatalf("baseline %+v, want it to start at the oldest record %s", rep.Baseline, recs[0].Time)
	}
	if len(rep.Candidates) == 0 || rep.Candidates[0].Service != "inventory" || !hasSignal(rep.Candidates[0], "behaviour") {
		t.Errorf("want inventory first, with its behaviour judged against the older baseline:\n%s", dump(rep))
	}
}

// TestExplainedOutranksSymptoms checks the ranking's guarantee: a
// candidate's own symptoms, all of them in full, never carry it above one
// that explains much more of the incident.
func TestExplainedOutranksSymptoms(t *testing.T) {
	in := &inputs{traces: &traceVotes{news: 91}}
	big := &scored{service: "cart"}
	big.explain("trace_origin", 88)
	big.add("trace_origin", wTraceOrigin*88/91, "first error in 88 of 91 failing traces")
	small := &scored{service: "catalog"}
	small.explain("trace_origin", 3)
	small.add("trace_origin", wTraceOrigin*3/91, "first error in 3 of 91 failing traces")
	for _, g := range []struct {
		name string
		w    float64
	}{{"new_errors", wNewErrors}, {"latency", wLatency}, {"deploy", wDeploy}} {
		small.add(g.name, g.w, "in full")
	}
	weigh(in, []*scored{big, small})
	if big.score() <= small.score() {
		t.Fatalf("explaining 88 of 91 failing traces scores %.3f, below %.3f for 3 of them with every symptom in full", big.score(), small.score())
	}
	if got, most := small.score(), symptomUnit*symptomScale; math.Abs(got-(3.0/91+most)) > 0.01 {
		t.Errorf("3 of 91 with every symptom in full scores %.3f, want its share %.3f plus the symptoms' most %.3f", got, 3.0/91, most)
	}
	if !strings.HasPrefix(big.evidence[0], "explains 97% of the window's anomalous requests") {
		t.Errorf("the first evidence line is %q, want the explained share", big.evidence[0])
	}
}

// TestExposure checks that absence from a short baseline is weak evidence.
func TestExposure(t *testing.T) {
	if e := exposure(2, 1); math.Abs(e-0.865) > 0.001 {
		t.Errorf("twice a minute, absent from one minute: %.3f, want 0.865", e)
	}
	if e := exposure(2, 60); e < 0.999 {
		t.Errorf("twice a minute, absent from an hour: %.3f, want about 1", e)
	}
	if e := exposure(0.1, 1); e > 0.1 {
		t.Errorf("once in ten minutes, absent from one minute: %.3f, want below 0.1", e)
	}
}

// TestNoveltyOfFailingLines checks that a template a service logs as
// routine success is new as a failure when the baseline never logged it
// failing, and usual when the baseline failed as often.
func TestNoveltyOfFailingLines(t *testing.T) {
	t0 := time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	period := func(from time.Time, count, errs int) *period {
		p := newPeriod(from, from.Add(10*time.Minute))
		p.records = count
		p.service("queue").templates["POST /jobs/claim <*> <*>"] = &templateStat{count: count, errors: errs, signature: "claim"}
		return p
	}
	b := period(t0, 5000, 0)
	if n := novelty(period(t0.Add(10*time.Minute), 5000, 300), b, "queue", "claim"); n < 0.99 {
		t.Errorf("300 failing claims against none failing among 5000 routine ones: novelty %.2f, want 1", n)
	}
	if n := novelty(period(t0.Add(10*time.Minute), 5000, 300), period(t0, 5000, 300), "queue", "claim"); n > 0 {
		t.Errorf("300 failing claims against 300 in the baseline: novelty %.2f, want 0", n)
	}
}

// TestNoveltyWrapped checks that an error the baseline logged only in
// another wrapping (a scheduled job's failure quoting it) is usual, not
// new, and new again with wrapped_known switched off.
func TestNoveltyWrapped(t *testing.T) {
	t0 := time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	const bare = "failed to send audit event: audit-sink returned <*> Payload Too Large"
	b := newPeriod(t0, t0.Add(10*time.Minute))
	b.records = 1000
	b.service("weather").templates["scheduled job weather-sync failed: "+bare] = &templateStat{count: 30, errors: 30, signature: "job"}
	w := newPeriod(t0.Add(10*time.Minute), t0.Add(20*time.Minute))
	w.records = 1000
	w.service("weather").templates[bare] = &templateStat{template: bare, count: 30, errors: 30, signature: "bare"}
	if n := novelty(w, b, "weather", "bare"); n > 0 {
		t.Errorf("30 bare audit failures against 30 wrapped by a job in the baseline: novelty %.2f, want 0", n)
	}
	b.off = map[string]bool{ruleWrappedKnown: true}
	if n := novelty(w, b, "weather", "bare"); n < 0.9 {
		t.Errorf("with %s off, the bare form absent from the baseline is new: novelty %.2f, want about 1", ruleWrappedKnown, n)
	}
}

// TestShiftDecades checks the timing test on small and large samples.
func TestShiftDecades(t *testing.T) {
	three := shift{n: 3, tail: tally{slow: 3, expect: 3 * exceedance(0, 3)}}
	if d := three.decades(); d < 1.7 || d > 1.9 || three.significant() {
		t.Errorf("3 of 3 slow against a baseline of 3: %.2f decades, significant %v; want 1.8, not significant", d, three.significant())
	}
	many := shift{n: 100, tail: tally{slow: 30, expect: 5}}
	if d := many.decades(); d < 10 || !many.significant() || many.confidence() != 1 {
		t.Errorf("30 of 100 against 5%%: %.1f decades, confidence %.2f; want over 10, and 1", d, many.confidence())
	}
	if e := exceedance(0, 19); math.Abs(e-0.05) > 1e-9 {
		t.Errorf("exceedance of the largest of 19: %.3f, want 0.05", e)
	}
}

// TestClientClasses checks the names client classes give their services.
func TestClientClasses(t *testing.T) {
	got := clientClasses("No cached response for LlmGatewayClient, returning default; WorkloadsD1Client failed; Client closed; httpClient")
	if want := []string{"llmgateway", "workloadsd1"}; !slices.Equal(got, want) {
		t.Errorf("clientClasses = %q, want %q", got, want)
	}
}

// A template a thin baseline lacks is new only when its count says the
// baseline should have held some of it.
func TestAbsentSure(t *testing.T) {
	for _, c := range []struct {
		n          int
		wMin, bMin float64
		want       bool
	}{
		{14, 10, 1, false}, // 1.4 a minute: one minute may well miss it
		{14, 10, 15, true}, // fifteen minutes would not
		{3, 10, 15, false}, // three lines: too few to tell
		{80, 10, 1, true},  // eight a minute: one minute would not
		{5, 10, 0, false},  // no baseline data: nothing to tell
	} {
		if got := absentSure(c.n, c.wMin, c.bMin); got != c.want {
			t.Errorf("absentSure(%d, %v, %v) = %v, want %v", c.n, c.wMin, c.bMin, got, c.want)
		}
	}
}

// A service's new line of its own trouble (a GC pause) says it did not
// keep serving as usual by what it says, however thin the baseline that
// lacks it: the callers' refused connections to it keep their votes.
// Twenty such lines over ten minutes, none in one minute of baseline,
// are no sure novelty by their count (absentSure), so their meaning
// decides.
func TestKeptServingOwnTrouble(t *testing.T) {
	const spec = `
base-1m 20 web/home:3 acct/get:2+1
win 200 web/home:3 acct/get:2+1
win-3m 20 web/home:3 acct/get:2+1?WARN_GC_overhead_limit_exceeded:_full_GC_pause_1200ms
win+3m 40 web/home:3!Get_http://acct:8080/v1/acct:_dial_tcp_10.0.0.7:8080:_connect:_connection_refused`
	if absentSure(20, 10, 1) {
		t.Fatal("twenty lines against one minute are sure by their count: the test would not test their meaning")
	}
	rep := runRuleScenario(t, spec, nil, false)
	if len(rep.Candidates) == 0 || rep.Candidates[0].Service != "acct" {
		t.Fatalf("top candidate is not acct: %+v", rep.Candidates)
	}
}
