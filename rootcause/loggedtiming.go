package rootcause

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline/faultline/schema"
)

// Durations a service states in its own lines (the logged_timing detector).
//
// Many services say how long their work took: an access log's
// "GET /cart 200 12.3ms", "-> 200 (401 ms)", "took 1.2s". For a service
// that leaves no spans these lines are the only account of its own time.
// Per service and template, the window's stated durations are compared
// with the baseline's as call_timing compares spans (the share of samples
// beyond slowFactor times the baseline's p95 or twice its median, against
// what chance gives, by the binomial tail in decades), pooled over its
// templates. Then, for a service
// without spans of its own:
//   - its callers' calls to it took longer (call_timing's view of a service
//     without spans), and longer beyond what the lines that time those
//     calls state (the wait on the wire, paired per trace): the time went
//     on the way to it and back, network-delay. What it states may grow
//     too, with its own calls out on the same slow network. A line times
//     the call when, in the baseline, it never exceeds the caller's span
//     (but for 5%) and is most of it (a median of at least half).
//   - otherwise, its own account slowed (the durations its lines state,
//     or the time from its first to its last line in a trace): it is slow
//     itself, and, when nothing else names a mechanism (no error of its
//     own, no dependency its failures point at), starved: cpu-starvation;
//   - its callers' calls to it took longer while its own lines in their
//     traces are as far apart as before: network-delay.
//
// A service with spans is left to call_timing, which sees its work net of
// its callees'; a stated duration includes the calls it made.

// Constants of logged_timing.
const (
	wLoggedTiming = 2.0
	// maxLogged caps the durations kept per template and period.
	maxLogged = 1 << 16
)

// loggedDuration reads the duration a line states: the last number
// followed by a time unit ("200 12.3ms", "(401 ms)", "took 1.2s",
// "elapsed=350us"), in nanoseconds; ok is false when it states none.
func loggedDuration(body string) (ns float64, ok bool) {
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c < '0' || c > '9' || i > 0 && (isWordByte(body[i-1]) || body[i-1] == '.') {
			continue
		}
		j := i
		for j < len(body) && body[j] >= '0' && body[j] <= '9' {
			j++
		}
		end := j
		if j+1 < len(body) && body[j] == '.' && body[j+1] >= '0' && body[j+1] <= '9' {
			j++
			for j < len(body) && body[j] >= '0' && body[j] <= '9' {
				j++
			}
			end = j
		}
		k := end
		if k < len(body) && body[k] == ' ' {
			k++
		}
		if scale, n := durationUnit(body[k:]); n > 0 {
			if v, err := strconv.ParseFloat(body[i:end], 64); err == nil {
				ns, ok = v*scale, true
			}
			i = k + n - 1
			continue
		}
		if scale := keyUnit(body[:i]); scale > 0 && (end == len(body) || !isWordByte(body[end])) {
			if v, err := strconv.ParseFloat(body[i:end], 64); err == nil {
				ns, ok = v*scale, true
			}
		}
		i = end - 1
	}
	return ns, ok
}

// durationUnit reads a time unit at the start of s, ended by a byte that
// is not a letter or digit: its scale in nanoseconds and its length.
func durationUnit(s string) (scale float64, n int) {
	for _, u := range [...]struct {
		name  string
		scale float64
	}{{"ms", 1e6}, {"msec", 1e6}, {"millis", 1e6}, {"milliseconds", 1e6}, {"us", 1e3}, {"µs", 1e3},
		{"ns", 1}, {"s", 1e9}, {"sec", 1e9}, {"secs", 1e9}, {"seconds", 1e9}} {
		if len(s) >= len(u.name) && s[:len(u.name)] == u.name && (len(s) == len(u.name) || !isWordByte(s[len(u.name)])) {
			return u.scale, len(u.name)
		}
	}
	return 0, 0
}

// keyUnit reads the unit a key names just before a value ("time_ms=",
// "durationMs": , "elapsed_seconds:"): its scale in nanoseconds, 0 when
// the text before the value is no such key.
func keyUnit(before string) float64 {
	j := len(before)
	for j > 0 && (before[j-1] == ' ' || before[j-1] == '"') {
		j--
	}
	if j == 0 || before[j-1] != '=' && before[j-1] != ':' {
		return 0
	}
	j--
	for j > 0 && before[j-1] == '"' {
		j--
	}
	key := before[:j]
	for _, u := range [...]struct {
		suffix string
		scale  float64
	}{{"_ms", 1e6}, {"Ms", 1e6}, {"_millis", 1e6}, {"Millis", 1e6}, {"_us", 1e3}, {"_ns", 1},
		{"_seconds", 1e9}, {"Seconds", 1e9}, {"_sec", 1e9}, {"_secs", 1e9}} {
		if strings.HasSuffix(key, u.suffix) {
			return u.scale
		}
	}
	return 0
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// addLogged keeps the duration a log line of ts states, n times (the lines
// it stands for), and, when tm keeps traces (the window's), its trace, in
// tm's table.
func (ts *templateStat) addLogged(r *schema.Record, tm *timing, n int) {
	d, ok := loggedDuration(r.Body)
	if !ok {
		return
	}
	if ts.logged == nil {
		ts.logged = &timingStat{tab: &tm.traces}
	}
	ts.logged.addLogged(d, r.TraceID, tm.keep, n)
}

// loggedShift pools how a service's stated durations moved, over the
// templates both periods state enough of.
func loggedShift(w, b *serviceProfile) *shift {
	s := &shift{}
	if w == nil || b == nil {
		return s
	}
	for _, t := range sortedKeys(w.templates) {
		wt, bt := w.templates[t], b.templates[t]
		if wt.logged == nil || bt == nil || bt.logged == nil {
			continue
		}
		s.merge(wt.logged, bt.logged, t)
	}
	return s
}

// spanless reports whether a service left no spans of its own to be
// timed by, in the window or the baseline.
func spanless(w, b *serviceProfile) bool {
	return w == nil || b == nil || w.selfNs.count() == 0 || b.selfNs.count() == 0
}

// scoreLoggedTiming is the logged_timing signal: what a service without
// spans says of its own time.
func scoreLoggedTiming(in *inputs, s *scored) {
	w, b := in.win.services[s.service], in.base.services[s.service]
	if in.base.records == 0 || !spanless(w, b) {
		return
	}
	callersWaited := s.timingKind == schema.KindLatency
	if callersWaited {
		// Its callers waited longer on it (call_timing): the lines that
		// time their calls say whether the wait grew beyond its work.
		if wire, stated := statedShifts(in.win, in.base, s.service); wire.significant() {
			s.timingKind = schema.KindNetworkDelay
			moved := "did not grow"
			if stated.significant() {
				moved = "grew less, with its own calls out"
			}
			s.add("logged_timing", wLoggedTiming*0.25,
				fmt.Sprintf("its callers' calls to it took longer beyond the time its own lines state they took (%s: %s beyond it), while what it states %s (%s): the extra wait was on the way to it and back",
					quoteCut(wire.what, 60), wire.quantiles(), moved, stated.quantiles()))
			return
		}
	}
	sh, ls := loggedShift(w, b), logSpanShift(in.win, in.base, s.service)
	if sh.significant() && !in.off[ruleCountedOnce] {
		// What its lines state, and the time between its first and last
		// line, include its waits on the services it called: when its
		// stated durations grew but the part their spans do not cover
		// did not, the slower requests are theirs, counted once, by their
		// spans. (Its lines growing apart while the durations they state
		// did not is another matter: it is left as it is.)
		own := &shift{}
		own.merge(in.win.uncovered[s.service], in.base.uncovered[s.service], s.service)
		if own.n > 0 && (!own.significant() || onSlowWire(in, own)) {
			sh, ls = &shift{}, &shift{}
		}
	}
	var reason string
	var grew *shift
	switch {
	case sh.significant():
		grew = sh
		reason = fmt.Sprintf("the durations its own lines state grew: %.0f%% of %d slower than nearly all in the baseline (%s: %s)",
			100*sh.share(), sh.n, quoteCut(sh.what, 60), sh.quantiles())
	case ls.significant():
		grew = ls
		reason = fmt.Sprintf("the time from its first to its last line in a trace grew: %.0f%% of %d slower than nearly all in the baseline (%s)",
			100*ls.share(), ls.n, ls.quantiles())
	case callersWaited && ls.n > 0:
		// Its callers waited longer on it, while its own lines in their
		// traces are as far apart as before: the time went on the way.
		s.timingKind = schema.KindNetworkDelay
		s.add("logged_timing", wLoggedTiming*0.25,
			fmt.Sprintf("its callers' calls to it took longer while its own lines in a trace are as far apart as before (%d traces: %s): the extra wait was on the way to it and back",
				ls.n, ls.quantiles()))
		return
	default:
		return
	}
	s.anomalous = true
	if (s.timingKind == "" || callersWaited) && s.kind == "" && w.ownErrors == 0 && !pointsOn(in, s.service) {
		// Slower by its own account, with no error of its own and no
		// dependency its failures blame: its own work is starved.
		s.timingKind = schema.KindCPUStarvation
		reason += starvedWords
	}
	if len(s.ownExamples) == 0 {
		s.ownExamples = exampleIDs(grew.examples)
	}
	s.loggedSlow = grew.best().extra
	s.explain("logged_timing", grew.slowed(in.win))
	s.add("logged_timing", wLoggedTiming*math.Sqrt(grew.excess()), reason)
}

// starvedWords end logged_timing's evidence of a starved service.
const starvedWords = "; it logs no error of its own and blames no dependency: its own work is starved"

// onSlowWire reports whether most of the traces in which a spanless
// service's own time (own, its uncovered part) was slow called a service
// that call_timing found slow on the wire (calls into it waited longer,
// or its calls out did where other callers' did not): the time beyond
// that service's spans is then on its network, which every caller
// crosses.
func onSlowWire(in *inputs, own *shift) bool {
	found := timingFindings(in.win, in.base)
	slow := own.best().extra
	if len(slow) == 0 {
		return false
	}
	n := 0
	for id := range slow {
		c := in.win.uncoveredCallee[id]
		if f := found[c]; f != nil && f.kind == schema.KindNetworkDelay {
			n++
		}
	}
	return 2*n > len(slow)
}

// addUncovered accounts, for the one service of a trace that leaves no
// spans and states how long it took (an edge proxy's access line "204
// 385ms"), the part of that duration the spans it called do not cover:
// those whose parent span is not in the trace (its own, never exported),
// first start to last end, per service (clocks of different services
// disagree), the longest; all of it when it called nothing that left
// spans. What is left is its own time; its waits on what it called are
// theirs (counted_once).
func (p *period) addUncovered(recs []schema.Record, w int) {
	var buf [16]string
	spanned := buf[:0] // the trace's services with spans: a few
	for i := range recs {
		if r := &recs[i]; r.Type == schema.TypeSpan && !slices.Contains(spanned, r.Service) {
			spanned = append(spanned, r.Service)
		}
	}
	svc, stated := "", 0.0
	for i := range recs {
		r := &recs[i]
		if r.Type == schema.TypeSpan || r.Service == "" || slices.Contains(spanned, r.Service) {
			continue
		}
		ns, ok := loggedDuration(r.Body)
		if !ok {
			continue
		}
		if svc != "" && svc != r.Service {
			return // two services state durations: whose calls are whose is unknown
		}
		svc, stated = r.Service, max(stated, ns)
	}
	if svc == "" {
		return
	}
	inTrace := make(map[schema.SpanID]bool, len(recs))
	for i := range recs {
		if recs[i].Type == schema.TypeSpan {
			inTrace[recs[i].SpanID] = true
		}
	}
	type extent struct{ from, to int64 }
	by := map[string]extent{}
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan || r.ParentSpanID == "" || inTrace[r.ParentSpanID] {
			continue
		}
		from, to := r.Time.UnixNano(), r.Time.Add(r.Duration).UnixNano()
		if e, ok := by[r.Service]; ok {
			from, to = min(from, e.from), max(to, e.to)
		}
		by[r.Service] = extent{from, to}
	}
	covered, callee := 0.0, "" // none: it called nothing that left spans
	for _, c := range sortedKeys(by) {
		if e := by[c]; float64(e.to-e.from) > covered {
			covered, callee = float64(e.to-e.from), c
		}
	}
	if callee != "" && p.timing.keep {
		if p.uncoveredCallee == nil {
			p.uncoveredCallee = map[schema.TraceID]string{}
		}
		p.uncoveredCallee[recs[0].TraceID] = callee
	}
	if p.uncovered == nil {
		p.uncovered = map[string]*timingStat{}
	}
	ts := p.uncovered[svc]
	if ts == nil {
		ts = &timingStat{tab: &p.timing.traces}
		p.uncovered[svc] = ts
	}
	ts.addLogged(max(0, stated-covered), recs[0].TraceID, p.timing.keep, w)
}

// addLogSpans accounts, per service in one trace's records, the time from
// its first to its last line in the trace, when it wrote at least two
// that are not errors: the part of its work its lines show.
func (p *period) addLogSpans(recs []schema.Record, w int) {
	type span struct {
		svc         string
		first, last int64
		n           int
	}
	var spans [8]span
	seen := spans[:0]
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeLog || r.Service == "" || r.IsError() {
			continue
		}
		if p.timing.keep && r.Severity >= schema.SeverityWarn && (p.services[r.Service] == nil || !p.services[r.Service].spans) {
			// warned_wait reads the window's only.
			p.noteWarned(r)
		}
		t := r.Time.UnixNano()
		j := slices.IndexFunc(seen, func(s span) bool { return s.svc == r.Service })
		if j < 0 {
			seen = append(seen, span{svc: r.Service, first: t, last: t, n: 1})
			continue
		}
		sp := &seen[j]
		sp.first, sp.last, sp.n = min(sp.first, t), max(sp.last, t), sp.n+1
	}
	for _, sp := range seen {
		if sp.n < 2 || p.services[sp.svc] != nil && p.services[sp.svc].spans {
			continue // too few lines, or its spans time it
		}
		if p.logSpans == nil {
			p.logSpans = map[string]*timingStat{}
		}
		ts := p.logSpans[sp.svc]
		if ts == nil {
			ts = &timingStat{tab: &p.timing.traces}
			p.logSpans[sp.svc] = ts
		}
		ts.addLogged(float64(sp.last-sp.first), recs[0].TraceID, p.timing.keep, w)
	}
}

// logSpanShift compares a service's log spans with the baseline's.
func logSpanShift(w, b *period, svc string) *shift {
	s := &shift{}
	s.merge(w.logSpans[svc], b.logSpans[svc], svc)
	return s
}

// statedPairs are calls to a service without spans, as its caller's
// client span timed it and as the service's own line stated it.
type statedPairs struct {
	client, stated []float64
	ids            []schema.TraceID
}

// addStated pairs the one call a trace made to peer (span, when it made
// exactly one, which did not fail) with each of the peer's lines in the
// trace that state a duration, one of its template in the trace. Clocks
// of different services disagree, so a line cannot be told by its time to
// belong to one of several calls; a trace with one call is unambiguous.
func (p *period) addStated(recs []schema.Record, span *schema.Record, peer string, w int) {
	var lines []int      // the peer's lines stating a duration, one per template
	var stated []float64 // what each of them states
	var dup []string
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeLog || r.Service != peer || r.IsError() {
			continue
		}
		d, ok := loggedDuration(r.Body)
		if !ok {
			continue
		}
		t := templateOf(r)
		if j := slices.IndexFunc(lines, func(k int) bool { return templateOf(&recs[k]) == t }); j >= 0 {
			dup = append(dup, t)
			continue
		}
		lines, stated = append(lines, i), append(stated, d)
	}
	for li, i := range lines {
		t := templateOf(&recs[i])
		if slices.Contains(dup, t) {
			continue
		}
		d := stated[li]
		if p.stated == nil {
			p.stated = map[opKey]*statedPairs{}
		}
		k := opKey{peer, t}
		sp := p.stated[k]
		if sp == nil {
			sp = &statedPairs{}
			p.stated[k] = sp
		}
		for range w {
			if len(sp.client) < maxLogged {
				sp.client = append(sp.client, float64(span.Duration))
				sp.stated = append(sp.stated, d)
				sp.ids = append(sp.ids, recs[i].TraceID)
			}
		}
	}
}

// timesTheCall reports whether a template's stated durations are the
// whole call its callers made: in the baseline they never exceed the
// caller's span (but for 5%) and are most of it (a median at least half).
func (sp *statedPairs) timesTheCall() bool {
	if sp == nil || len(sp.client) == 0 {
		return false
	}
	within := 0
	ratios := make([]float64, len(sp.client))
	for i, c := range sp.client {
		if sp.stated[i] <= c*1.05+1e6 {
			within++
		}
		ratios[i] = sp.stated[i] / max(c, 1)
	}
	return float64(within) >= 0.95*float64(len(sp.client)) && quantile(ratios, 0.5) >= 0.5
}

// statedShifts compares, over svc's templates that time its callers'
// calls, the wait beyond what it states and what it states.
func statedShifts(w, b *period, svc string) (wire, stated *shift) {
	wire, stated = &shift{}, &shift{}
	for _, k := range sortedOpKeys(w.stated) {
		if k.svc != svc {
			continue
		}
		bp := b.stated[k]
		if !bp.timesTheCall() {
			continue
		}
		wp := w.stated[k]
		ww, bw, ws, bs := &timingStat{}, &timingStat{}, &timingStat{}, &timingStat{}
		for i := range wp.client {
			ww.add(max(wp.client[i]-wp.stated[i], 0), wp.ids[i], true)
			ws.add(wp.stated[i], wp.ids[i], false)
		}
		for i := range bp.client {
			bw.add(max(bp.client[i]-bp.stated[i], 0), "", false)
			bs.add(bp.stated[i], "", false)
		}
		wire.merge(ww, bw, k.op)
		stated.merge(ws, bs, k.op)
	}
	return wire, stated
}

// pointsOn reports whether the failing traces whose origin is svc point
// at another service.
func pointsOn(in *inputs, svc string) bool {
	for name, sv := range in.traces.services {
		if name != svc && sv.pointedBy[svc] > 0 {
			return true
		}
	}
	return false
}
