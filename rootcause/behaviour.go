package rootcause

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// A unit of behaviour is one execution of a service's operation: a span, or,
// for a service whose records in a trace belong to no span of its own, its
// part of that trace (operation ""). Its events are the log statements it
// wrote and the calls it made (child spans). Comparing how often an event
// occurs per execution of the same operation in the baseline and in the
// window (Nezha's P(event | operation)) finds what a service started or
// stopped doing, and cancels the changes of traffic mix that raw counts of
// log lines show.
type opKey struct{ svc, op string }

// opStat counts one operation's executions and, per event, the executions
// in which it occurred.
type opStat struct {
	units  int
	traces int // traces with an execution of it
	// seen is the number of the last trace that counted in traces.
	seen   int
	events map[string]int
	// first is when an event was first seen (window only, for onset).
	first map[string]time.Time
	// failUnits and failEvents count apart the executions, and their
	// events, in traces with an error record: a change there is the
	// failure the votes explain, not behaviour.
	failUnits  int
	failEvents map[string]int
	// older counts the executions of a baseline's older half apart: a
	// fault that began before the window already shows in the newer half,
	// and against the whole baseline it would show only in part.
	older *opStat
}

// Event kinds prefix the event's name; a log statement's event is its name.
const (
	evCall = "\x01call "
	// evError is a log statement at ERROR: one that appears is what
	// the votes judge; one that stops is behaviour.
	evError = "\x01error "
	// evAfter is a succession: log statement B was first written right
	// after statement A ("\x01after A\x00B"). Its share is of the
	// executions that wrote A: an execution cut short after A (an exception
	// swallowed halfway, a loop that broke off) shows as B no longer
	// following A, even when B still occurs in other executions often
	// enough to hide the change in its own share. Nezha's deeper patterns,
	// without mining them.
	evAfter = "\x01after "
)

// behaviourScratch is reused from trace to trace by addBehaviour.
type behaviourScratch struct {
	spans  map[schema.SpanID]int32
	remote map[int32]string
	units  []unitRef
	events map[unitEvent]time.Time
	// calls interns the names of call events, pairs those of successions.
	calls, pairs map[[2]string]string
	// lastSpan (by span index) and lastLoose (by service) are the log
	// statement a unit wrote most recently for the first time.
	lastSpan  []lastEvent
	lastLoose map[string]lastEvent
}

type lastEvent struct {
	ev string
	at time.Time
}

// unitRef is one unit of a trace: the index of its span in the trace's
// records, or -1 for the loose part of svc.
type unitRef struct {
	span int32
	svc  string
}

type unitEvent struct {
	u  unitRef
	ev string
}

// addBehaviour accounts the units of one trace's records, w times (the
// traces it stands for, sample.go).
func (p *period) addBehaviour(recs []schema.Record, w int) {
	if p.ops == nil {
		p.ops = map[opKey]*opStat{}
		p.callees = map[string]map[string]int{}
		p.scratch = &behaviourScratch{spans: map[schema.SpanID]int32{}, remote: map[int32]string{},
			events: map[unitEvent]time.Time{}, calls: map[[2]string]string{}, pairs: map[[2]string]string{},
			lastLoose: map[string]lastEvent{}}
	}
	sc := p.scratch
	sc.index(recs)
	var loose map[string]bool // services with records outside their spans
	for i := range recs {
		r := &recs[i]
		if r.Service == "" {
			continue
		}
		switch r.Type {
		case schema.TypeSpan:
			p.noteSpan(recs, int32(i), w)
		case schema.TypeLog:
			ev := p.eventOf(r)
			switch {
			case r.IsError():
				// Errors are the votes' and the pointers' to judge; here
				// they only tell an operation that recovered.
				ev = evError + ev
			case p.pointsElsewhere(r):
				continue // a symptom naming a dependency: the pointers judge it
			}
			if si, ok := sc.spans[r.SpanID]; ok && r.SpanID != "" && recs[si].Service == r.Service {
				sc.noteLog(unitRef{si, r.Service}, ev, r.Time)
				continue
			}
			if !loose[r.Service] {
				if loose == nil {
					loose = map[string]bool{}
				}
				loose[r.Service] = true
				sc.units = append(sc.units, unitRef{-1, r.Service})
			}
			sc.noteLog(unitRef{-1, r.Service}, ev, r.Time)
		}
	}
	p.account(recs, w)
}

// index resets the scratch for a trace and indexes its spans: by id, and,
// for a client span, the service of its first child on another service.
func (sc *behaviourScratch) index(recs []schema.Record) {
	clear(sc.spans)
	clear(sc.remote)
	clear(sc.events)
	clear(sc.lastLoose)
	sc.lastSpan = slices.Grow(sc.lastSpan[:0], len(recs))[:len(recs)]
	clear(sc.lastSpan)
	sc.units = sc.units[:0]
	for i := range recs {
		if r := &recs[i]; r.Type == schema.TypeSpan && r.SpanID != "" && r.Service != "" {
			sc.spans[r.SpanID] = int32(i)
		}
	}
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan || r.ParentSpanID == "" || r.Service == "" {
			continue
		}
		if pi, ok := sc.spans[r.ParentSpanID]; ok && recs[pi].Service != r.Service {
			if _, ok := sc.remote[pi]; !ok {
				sc.remote[pi] = r.Service
			}
		}
	}
}

// noteSpan makes span i a unit and a call event of its parent's unit.
func (p *period) noteSpan(recs []schema.Record, i int32, w int) {
	sc, r := p.scratch, &recs[i]
	if si, ok := sc.spans[r.SpanID]; ok && si == i {
		sc.units = append(sc.units, unitRef{i, r.Service})
	}
	pi, ok := sc.spans[r.ParentSpanID]
	if !ok || r.ParentSpanID == "" {
		return
	}
	ev := sc.callName(r.Service, r.Name)
	sc.note(unitRef{pi, recs[pi].Service}, ev, r.Time)
	if c := calleeOf(r, recs[pi].Service, sc.remote[i]); c != "" {
		m := p.callees[ev]
		if m == nil {
			m = map[string]int{}
			p.callees[ev] = m
		}
		m[c] += w
	}
}

// note records that unit u had event ev, first at at; new is whether it
// is the unit's first.
func (sc *behaviourScratch) note(u unitRef, ev string, at time.Time) (new bool) {
	k := unitEvent{u, ev}
	t, ok := sc.events[k]
	if !ok || at.Before(t) {
		sc.events[k] = at
	}
	return !ok
}

// noteLog records log statement ev of unit u, first at at, and, the first
// time, that it succeeded the unit's previous new statement. Records come
// in time order; a succession out of order is not one.
func (sc *behaviourScratch) noteLog(u unitRef, ev string, at time.Time) {
	if !sc.note(u, ev, at) {
		return
	}
	var prev lastEvent
	if u.span >= 0 {
		prev, sc.lastSpan[u.span] = sc.lastSpan[u.span], lastEvent{ev, at}
	} else {
		prev, sc.lastLoose[u.svc] = sc.lastLoose[u.svc], lastEvent{ev, at}
	}
	if prev.ev == "" || at.Before(prev.at) || strings.HasPrefix(prev.ev, evError) || strings.HasPrefix(ev, evError) {
		return
	}
	pk := [2]string{prev.ev, ev}
	name, ok := sc.pairs[pk]
	if !ok {
		name = evAfter + prev.ev + "\x00" + ev
		sc.pairs[pk] = name
	}
	sc.note(u, name, at)
}

// succession splits a succession event into the events before and after;
// ok is false for any other event.
func succession(ev string) (before, after string, ok bool) {
	rest, ok := strings.CutPrefix(ev, evAfter)
	if !ok {
		return "", "", false
	}
	before, after, ok = strings.Cut(rest, "\x00")
	return before, after, ok
}

// account adds the trace's units and their events to the operations.
func (p *period) account(recs []schema.Record, w int) {
	sc := p.scratch
	older := len(recs) > 0 && recs[0].Time.Before(p.split)
	failed := anyError(recs)
	stats := make(map[unitRef]*opStat, len(sc.units))
	p.traceSeq++
	for _, u := range sc.units {
		k := opKey{svc: u.svc}
		if u.span >= 0 {
			k.op = recs[u.span].Name
		}
		st := p.ops[k]
		if st == nil {
			st = &opStat{events: map[string]int{}, first: map[string]time.Time{}}
			p.ops[k] = st
		}
		if st.units += w; st.seen != p.traceSeq {
			st.traces += w
			st.seen = p.traceSeq
		}
		if failed {
			st.failUnits += w
		}
		if older {
			if st.older == nil {
				st.older = &opStat{events: map[string]int{}}
			}
			st.older.units += w
		}
		stats[u] = st
	}
	for k, at := range sc.events {
		st := stats[k.u]
		if st == nil {
			continue
		}
		st.events[k.ev] += w
		if failed {
			if st.failEvents == nil {
				st.failEvents = map[string]int{}
			}
			st.failEvents[k.ev] += w
		}
		if older {
			st.older.events[k.ev] += w
		}
		if t, ok := st.first[k.ev]; !ok || at.Before(t) {
			st.first[k.ev] = at
		}
	}
}

func (sc *behaviourScratch) callName(svc, op string) string {
	k := [2]string{svc, op}
	if s, ok := sc.calls[k]; ok {
		return s
	}
	s := evCall + svc + " " + op
	sc.calls[k] = s
	return s
}

// pointsElsewhere reports whether r is a failure that points at a
// dependency (a timeout, an open breaker), per its template's class, or
// names another service (ruleAboutOther).
func (p *period) pointsElsewhere(r *schema.Record) bool {
	if r.Severity < schema.SeverityWarn {
		return false
	}
	sp := p.services[r.Service]
	if sp == nil {
		return false
	}
	ts := sp.templates[templateOf(r)]
	return ts != nil && (ts.kind.PointsElsewhere() || p.aboutOther(r.Service, ts))
}

// callee is the service call event ev reaches: the one most of its calls
// reached (by name on a tie); "" when none is known.
func (p *period) callee(ev string) string {
	best, n := "", 0
	for c, k := range p.callees[ev] {
		if k > n || k == n && c < best {
			best, n = c, k
		}
	}
	return best
}

// calleeOf is the service a child span c of a span of parent calls: its own
// service when that is another, else the peer it names or the service of
// its first child on another service; "" for work inside the service.
func calleeOf(c *schema.Record, parent, remote string) string {
	if c.Service != parent {
		return c.Service
	}
	if peer := PeerOf(c); peer != "" && peer != parent {
		return peer
	}
	return remote
}

// eventOf names the log statement that wrote r: its code location when the
// line's header names one (logger#line as Java layouts print it, or
// file.ext:line), since one statement writes many variants of a message;
// else its template.
func (p *period) eventOf(r *schema.Record) string {
	// Ingest moves a parsed header's logger or code location into Name.
	if r.Type == schema.TypeLog {
		if loc := locationWord(r.Name); loc != "" {
			return loc
		}
	}
	if loc := codeLocation(r.Body); loc != "" {
		return p.strs.of(loc) // its own: a view of the body would keep its block
	}
	return templateOf(r)
}

// codeLocation finds a code location among the first words of a log line:
// Name#123 (a logger or class and its line) or file.ext:123 (a source file
// and line). It returns "" when there is none.
func codeLocation(body string) string {
	head := body[:min(len(body), 160)]
	for i, words := 0, 0; i < len(head) && words < 6; words++ {
		for i < len(head) && (head[i] == ' ' || head[i] == '\t') {
			i++
		}
		start := i
		for i < len(head) && head[i] != ' ' && head[i] != '\t' {
			i++
		}
		if loc := locationWord(head[start:i]); loc != "" {
			return loc
		}
	}
	return ""
}

// locationWord returns w, less trailing punctuation, when it is a code
// location.
func locationWord(w string) string {
	for w != "" && (w[len(w)-1] == ':' || w[len(w)-1] == ',' || w[len(w)-1] == ';') {
		w = w[:len(w)-1] // Go's log writes "main.go:42: message"
	}
	if w == "" || !isLetter(w[0]) {
		return ""
	}
	j := len(w) - 1
	for j > 0 && w[j] >= '0' && w[j] <= '9' {
		j--
	}
	if j == len(w)-1 || j <= 0 {
		return ""
	}
	if w[j] == '#' || w[j] == ':' && hasSourceExt(w[:j]) {
		return w
	}
	return ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

func hasSourceExt(name string) bool {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return false
	}
	switch name[i+1:] {
	case "go", "py", "java", "kt", "scala", "js", "ts", "rb", "rs", "c", "cc", "cpp", "h", "cs", "php", "ex", "erl":
		return true
	}
	return false
}

// behaviourShift is one event whose frequency per execution of an
// operation changed between the baseline and the window.
type behaviourShift struct {
	key      opKey
	event    string
	pb, pw   float64 // share of executions with the event, baseline and window
	units    int     // executions in the window
	traces   int     // traces with an execution of its operation, window
	first    time.Time
	strength float64
	z        float64 // the two-proportion z score of the change
	// sure is how surely the change departs from chance, as a z score:
	// Fisher's exact test's, never above z (sureZ).
	sure float64
	// pwOK is the window's share among executions in traces without an
	// error record, unitsOK how many those are.
	pwOK    float64
	unitsOK int
	// older: pb is of the baseline's older half; the change began before
	// the window, or the traffic drifted: it counts olderShare as much.
	older bool
}

// changed is how many of the window's traces the shift changed (its
// share of the executions, of the traces that ran the operation), as
// surely as its test says, and olderShare as much when it was judged
// against the baseline's older half.
func (sh *behaviourShift) changed() float64 {
	n := sh.strength * float64(min(sh.units, sh.traces)) * min(1, sh.sure/fullShiftZ)
	if sh.older {
		n *= olderShare
	}
	return n
}

// changedOK is how many of the window's traces without an error record
// the shift changed, as changed counts them.
func (sh *behaviourShift) changedOK() float64 {
	moved := sh.pwOK - sh.pb
	if sh.pw < sh.pb {
		moved = -moved
	}
	if moved <= 0 || sh.units == 0 {
		return 0
	}
	n := min(1, moved/max(sh.strength, 1e-9)) * sh.strength * float64(sh.unitsOK) *
		min(1, float64(sh.traces)/float64(sh.units)) * min(1, sh.sure/fullShiftZ)
	if sh.older {
		n *= olderShare
	}
	return n
}

// weight is the strength a shift is ranked by.
func (sh *behaviourShift) weight() float64 {
	if sh.older {
		return sh.strength * olderShare
	}
	return sh.strength
}

// Thresholds of a behaviour shift: a change in the share of executions of
// at least minShareShift, with a two-proportion z score of at least
// minShiftZ (which few executions cannot reach).
const (
	minShareShift = 0.3
	minShiftZ     = 3.0
	// fullSupport is how many executions must have changed for a shift
	// to count in full: a change seen in a handful of calls is weaker.
	fullSupport = 10.0
	// fullShiftZ is the z score at which a change's executions count
	// whole as explained.
	fullShiftZ = 2 * minShiftZ
)

// behaviourShifts lists the significant shifts of svc's operations, the
// strongest first.
//
// A call that appeared or stopped says something about svc only when the
// service it calls kept serving as usual: callers stop calling a dependency
// whose breaker opened, and that is the dependency's failure, not theirs.
func behaviourShifts(w, b *period, svc string) []behaviourShift {
	if w.shifts == nil {
		w.shifts = map[string][]behaviourShift{}
	}
	if out, ok := w.shifts[svc]; ok {
		return out
	}
	w.shifts[svc] = nil // a cycle of calls back to svc finds no shifts
	out := findShifts(w, b, svc)
	w.shifts[svc] = out
	return out
}

func findShifts(w, b *period, svc string) []behaviourShift {
	var out []behaviourShift
	for k, ws := range w.ops {
		if k.svc != svc {
			continue
		}
		bs := b.ops[k]
		if bs == nil || bs.units == 0 || ws.units == 0 {
			continue
		}
		recovered := errorShare(bs)-errorShare(ws) >= minShareShift
		start := len(out)
		for _, ev := range unionKeys(ws.events, bs.events) {
			sh, ok := compareShares(ws, bs, ev)
			if !ok && bs.older != nil && bs.older.units > 0 {
				// The change may have begun before the window: judged
				// against the baseline's older half, when its newer half
				// had already moved towards the window.
				// Only what stopped: what a service does more often as the
				// hours pass (as its data grows) is drift more often than
				// not, and new errors are the votes' to judge.
				if sh, ok = compareShares(ws, bs.older, ev); ok && (sh.pw > sh.pb || !newerMoved(bs, ev, sh)) {
					ok = false
				}
				sh.older = ok
			}
			if !ok {
				continue
			}
			d := sh.pw - sh.pb
			if sh.older && d < 0 && errorShare(bs.older)-errorShare(ws) >= minShareShift {
				continue // a recovery, from the older half on
			}
			if strings.HasPrefix(ev, evError) || d < 0 && recovered {
				// A new error is the votes' to judge; one that stopped,
				// and what stopped with it, is a recovery.
				continue
			}
			callee := ev
			if _, after, isPair := succession(ev); isPair {
				callee = after
			}
			if c := cmp.Or(w.callee(callee), b.callee(callee)); c != "" && c != svc && !keptServing(w, b, c) {
				continue
			}
			sh.key, sh.event, sh.first, sh.strength, sh.traces = k, ev, ws.first[ev], math.Abs(d), ws.traces
			out = append(out, sh)
		}
		out = append(out[:start], oneChangeOnce(out[start:])...)
	}
	slices.SortFunc(out, func(a, b behaviourShift) int {
		return cmp.Or(cmp.Compare(b.weight(), a.weight()), cmp.Compare(a.key.op, b.key.op), cmp.Compare(a.event, b.event))
	})
	return out
}

// oneChangeOnce keeps, of a statement that stopped and of its stopping
// after another, the stronger: they are one change.
func oneChangeOnce(shifts []behaviourShift) []behaviourShift {
	strength := make(map[string]float64, len(shifts))
	for _, sh := range shifts {
		strength[sh.event] = sh.weight()
	}
	for _, sh := range shifts {
		if _, after, ok := succession(sh.event); ok {
			if st, own := strength[after]; own {
				if st >= sh.weight() {
					strength[sh.event] = -1
				} else {
					strength[after] = -1
				}
			}
		}
	}
	return slices.DeleteFunc(shifts, func(sh behaviourShift) bool { return strength[sh.event] < 0 })
}

// compareShares compares the share of executions with event ev in the
// window (ws) and a baseline (bs): ok when it changed significantly. A
// succession's share is of the executions that wrote its first statement,
// and only its stopping counts: what follows instead is the same change.
func compareShares(ws, bs *opStat, ev string) (behaviourShift, bool) {
	cb, cw := bs.events[ev], ws.events[ev]
	nb, nw := bs.units, ws.units
	before, _, isPair := succession(ev)
	if isPair {
		nb, nw = bs.events[before], ws.events[before]
		if nb == 0 || nw == 0 {
			return behaviourShift{}, false
		}
	}
	sh := behaviourShift{pb: float64(cb) / float64(nb), pw: float64(cw) / float64(nw), units: nw}
	// The same share among the window's executions in traces without an
	// error record.
	okN, okC := nw-ws.failUnits, cw-ws.failEvents[ev]
	if isPair {
		okN = nw - ws.failEvents[before]
	}
	if okN > 0 {
		sh.pwOK, sh.unitsOK = float64(okC)/float64(okN), okN
	}
	if isPair && sh.pw > sh.pb {
		return sh, false
	}
	sh.z = shareZ(cb, cw, nb, nw)
	if math.Abs(sh.pw-sh.pb) < minShareShift || sh.z < minShiftZ {
		return sh, false
	}
	sh.sure = sureZ(sh.z, cb, cw, nb, nw)
	return sh, true
}

// newerMoved reports whether the newer half of the baseline had already
// gone at least half way from the older half's share (sh.pb) to the
// window's: the change began before the window.
func newerMoved(bs *opStat, ev string, sh behaviourShift) bool {
	nb := bs.units - bs.older.units
	cb := bs.events[ev] - bs.older.events[ev]
	if before, _, ok := succession(ev); ok {
		nb = bs.events[before] - bs.older.events[before]
	}
	if nb <= 0 {
		return false
	}
	pn := float64(cb) / float64(nb)
	return (pn-sh.pb)*(sh.pw-sh.pb) > 0 && math.Abs(pn-sh.pb) >= math.Abs(sh.pw-sh.pb)/2
}

// shareZ is the two-proportion z score of the change of an event's share
// of executions, cb of nb in the baseline and cw of nw in the window.
func shareZ(cb, cw, nb, nw int) float64 {
	pb, pw := float64(cb)/float64(nb), float64(cw)/float64(nw)
	p := float64(cb+cw) / float64(nb+nw)
	se := math.Sqrt(p * (1 - p) * (1/float64(nb) + 1/float64(nw)))
	if se == 0 {
		return 0
	}
	return math.Abs(pw-pb) / se
}

// sureZ is how surely a change of an event's share departs from chance,
// as a z score, for the count of executions it changed (changed): the
// z score of Fisher's exact test (one-sided, in the change's direction),
// never above the two-proportion z. The two agree on hundreds of
// executions; on a handful of baseline ones the normal approximation is
// far surer than the counts allow: two of three baseline executions with
// a line against one of forty-two is z 4.4, where the exact test's p of
// 0.009 is z 2.4. The change is still found by the two-proportion score
// (keptServing asks whether a callee changed at all, and a test that
// finds fewer changes there clears callees whose trouble explained their
// callers' changes); how much it explains is as sure as the counts say.
func sureZ(z float64, cb, cw, nb, nw int) float64 {
	p := fisherTail(cb, cw, nb, nw)
	if p >= 0.5 {
		return 0
	}
	return min(z, math.Sqrt2*math.Erfcinv(2*p))
}

// fisherTail is the one-sided p-value of Fisher's exact test of cb of nb
// against cw of nw: given the cb+cw events among nb+nw executions, the
// chance that the baseline holds cb or more of them when its share was
// the larger, cb or fewer when it was the smaller.
func fisherTail(cb, cw, nb, nw int) float64 {
	k, n := cb+cw, nb+nw
	lc := func(a, b int) float64 { // log C(a, b)
		x, _ := math.Lgamma(float64(a + 1))
		y, _ := math.Lgamma(float64(b + 1))
		z, _ := math.Lgamma(float64(a - b + 1))
		return x - y - z
	}
	total := lc(n, k)
	lo, hi := max(0, k-nw), min(k, nb)
	// From the observed count outward into its tail, where the terms
	// fall: stop when they no longer add to the sum (thousands of
	// executions would otherwise cost as many terms).
	step, end := 1, hi
	if cb*nw < cw*nb {
		step, end = -1, lo
	}
	p := 0.0
	for x := cb; ; x += step {
		t := math.Exp(lc(nb, x) + lc(nw, k-x) - total)
		p += t
		if x == end || t < p*1e-12 {
			break
		}
	}
	return min(1, p)
}

func unionKeys(a, b map[string]int) []string {
	m := make(map[string]int, len(a)+len(b))
	for k := range a {
		m[k] = 1
	}
	for k := range b {
		m[k] = 1
	}
	return sortedKeys(m)
}

func scoreBehaviour(in *inputs, s *scored) {
	if in.base.records == 0 {
		return
	}
	shifts := behaviourShifts(in.win, in.base, s.service)
	if len(shifts) == 0 {
		return
	}
	// The shift that changed the most executions, as surely as its test
	// says.
	top := shifts[0]
	for _, sh := range shifts[1:] {
		if sh.changed() > top.changed() {
			top = sh
		}
	}
	if top.pw > top.pb {
		s.note(top.first)
	} else {
		s.anomalous = true
	}
	op := top.key.op
	if op == "" {
		op = "its traces"
	}
	verb := "stopped"
	if top.pw > top.pb {
		verb = "started"
	}
	execs := "executions of " + quoteCut(op, 60)
	if _, _, ok := succession(top.event); ok {
		execs += " that did"
	}
	base := "the " + in.baseLabel()
	if top.older {
		base = "the older half of " + base + " (it began before the window)"
	}
	reason := fmt.Sprintf("%s %s: in %.0f%% of %d %s, against %.0f%% in %s (%s)",
		verb, describeEvent(top.event), 100*top.pw, top.units, execs, 100*top.pb, base, plural(len(shifts), "such change"))
	v := wBehaviour * top.strength * min(1, top.strength*float64(top.units)/fullSupport)
	n := top.changed()
	if sv := in.traces.services[s.service]; in.traces.passedThrough(s.service) > 0 || sv != nil && sv.cascade > sv.suspectRaw {
		// Failing traces whose votes passed through it to a deeper
		// cause (a breaker it opened, a refusal), or in most of which it
		// failed after another service (its dead letters after a
		// callee's timeouts), are that cause's: its change in them is
		// their failure, explained once, there.
		n = top.changedOK()
	} else if tv := in.traces; !in.off[ruleCountedOnce] && tv.failed > 0 {
		// Each anomalous request counted once (counted_once): of the
		// failing traces it changed, only what their failures leave
		// unexplained, on average, is its own to explain.
		ok := min(n, top.changedOK())
		n = ok + (n-ok)*max(0, 1-tv.news/float64(tv.failed))
	}
	if top.older {
		v *= olderShare
	}
	if deeper := troubledCallees(in, s.service); len(deeper) > 0 {
		// A service whose dependency is in trouble changes its behaviour
		// because of it: the change is a symptom there.
		v *= explainedShare
		n *= explainedShare
		s.followed = true
		reason += fmt.Sprintf(", which may follow from %s", joinCut(deeper, 3))
	}
	s.explain("behaviour", n)
	s.add("behaviour", v, reason)
}

// troubledCallees lists the services svc calls that did not keep serving
// as usual, or that failing traces point at.
func troubledCallees(in *inputs, svc string) []string {
	var out []string
	for _, c := range in.traces.callees(svc) {
		sv := in.traces.services[c]
		pointed := sv != nil && len(sv.pointedBy) > 0
		observable := in.win.services[c] != nil && in.base.services[c] != nil &&
			in.base.services[c].records >= minServing
		if pointed || observable && !keptServing(in.win, in.base, c) {
			out = append(out, c)
		}
	}
	return out
}

func describeEvent(ev string) string {
	if before, after, ok := succession(ev); ok {
		return describeEvent(after) + " after " + describeEvent(before)
	}
	if s, ok := strings.CutPrefix(ev, evCall); ok {
		return "calling " + quoteCut(s, 60)
	}
	if s, ok := strings.CutPrefix(ev, evError); ok {
		return "logging the error " + quoteCut(s, 60)
	}
	return "logging " + quoteCut(ev, 60)
}

// errorShare is the largest share of an operation's executions that logged
// one error statement.
func errorShare(st *opStat) float64 {
	var n int
	for ev, c := range st.events {
		if strings.HasPrefix(ev, evError) && c > n {
			n = c
		}
	}
	return float64(n) / float64(max(st.units, 1))
}
