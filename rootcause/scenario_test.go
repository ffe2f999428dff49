package rootcause

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/sqlite"
)

// TestRuleScenarios runs every testdata/*.txtar: a baseline and a window of
// traces described by their call trees, ranked, and checked against the
// file's "want" lines. Each rule of the ranking has at least one scenario
// named after it.
//
// A "traces" line is: PERIOD COUNT TREE. PERIOD is base or win; COUNT
// traces of TREE are spread evenly over the period (10 minutes each), or
// over the period from D into it to its end (win+D, base+D) or its first
// D (win-D, base-D). TREE
// is the root span then its children, separated by spaces: svc/op:SELF for
// the root, svc/op:SELF+WAIT for a call from its parent into svc (SELF the
// callee's own work, WAIT the caller's wait beyond the callee's span, in
// ms), @peer:DUR for a client span to a peer that leaves no span, and
// A>B for a call B made by A. Durations vary by ±20% across traces.
//
// "want" lines: "top SERVICE" (the first candidate), "kind KIND" (the first
// candidate's kind), "evidence TEXT" (a line of the first candidate's
// evidence contains TEXT), "evidence-of SERVICE TEXT" (the same of another
// candidate), "examples" (the first candidate has example
// traces), "absent SERVICE" (SERVICE has no call_timing signal),
// "nocandidate NAME" (no candidate goes by NAME). A file with a "store"
// section is read through an embedded store (Analyze), not AnalyzeRecords. @@host:DUR is a peer
// named only by its host (server.address); svc@VERSION/op gives the
// span's service.version; SELF!WORDS makes the span's service log the
// error WORDS (underscores for spaces) in it, SELF?WORDS the info line
// WORDS (before any !WORDS; a warning when WORDS begin WARN_); @peer:DUR!WORDS is a call to
// the peer that fails, its caller logging WORDS; @peer:DUR~MS has the peer,
// which leaves no span, log an access line stating it took MS (the call's
// DUR less its wait on the wire, DUR-MS, each varying by ±20%);
// @peer:DUR~- an access line that states no duration; @peer:DUR?WORDS
// has the peer log WORDS as it works (a warning when they begin WARN_); @peer:DUR^MS has
// it write two plain lines MS apart; @peer:DUR%MS has its
// host clock run MS ahead (its lines later by as much); @peer:DUR>svc/op:SELF
// has the peer call svc, whose span names the peer's (never exported) as
// its parent. A tree whose root is @peer is a request taken by a service
// that leaves no spans: its lines only ("handling request", and its
// access line with ~MS).
func TestRuleScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var traces, want string
			stored := false
			for _, f := range ar.Files {
				switch f.Name {
				case "traces":
					traces = string(f.Data)
				case "want":
					want = string(f.Data)
				case "store":
					stored = true
				}
			}
			rule := ruleOf(name)
			if bad := checkWant(runRuleScenario(t, traces, nil, stored), want); len(bad) > 0 {
				t.Errorf("%s", strings.Join(bad, "\n"))
			}
			// Without its rule, the scenario must not come out the same.
			off := map[string]bool{rule: true}
			if len(checkWant(runRuleScenario(t, traces, off, stored), want)) == 0 {
				t.Errorf("the scenario passes with rule %s switched off: it does not test the rule", rule)
			}
		})
	}
}

var scenarioT0 = time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)

func runRuleScenario(t *testing.T, spec string, off map[string]bool, stored bool) *Report {
	t.Helper()
	baseWin := Window{From: scenarioT0, To: scenarioT0.Add(10 * time.Minute)}
	q := Query{From: baseWin.To, To: baseWin.To.Add(10 * time.Minute)}
	var base, win []schema.Record
	seq := 0
	for ln, line := range strings.Split(spec, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 3 {
			t.Fatalf("traces line %d: want PERIOD COUNT TREE", ln+1)
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n <= 0 {
			t.Fatalf("traces line %d: bad count %q", ln+1, f[1])
		}
		// A period is base or win, spread over its ten minutes; win+D
		// from D into the window to its end, win-D its first D (and the
		// same of base).
		from, span, dst := baseWin.From, 10*time.Minute, &base
		period, d, cut := strings.Cut(f[0], "+")
		if !cut {
			period, d, cut = strings.Cut(f[0], "-")
		}
		switch period {
		case "win":
			from, dst = q.From, &win
		case "base":
		default:
			t.Fatalf("traces line %d: period %q is neither base[+-]D nor win[+-]D", ln+1, f[0])
		}
		if cut {
			dur, err := time.ParseDuration(d)
			if err != nil || dur <= 0 || dur >= span {
				t.Fatalf("traces line %d: bad offset in %q", ln+1, f[0])
			}
			if strings.Contains(f[0], "+") {
				from, span = from.Add(dur), span-dur
			} else {
				span = dur
			}
		}
		for i := range n {
			seq++
			at := from.Add(time.Duration(i) * span / time.Duration(n))
			*dst = append(*dst, buildTrace(t, f[2:], seq, at)...)
		}
	}
	if stored {
		// Read through an embedded store, as `analyze incident` reads, so
		// that correlate's rules that read around a trace (a caller's new
		// version, an open breaker's trips) explain its failing traces.
		ctx := context.Background()
		st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.WriteBatch(ctx, append(base, win...)); err != nil {
			t.Fatal(err)
		}
		rep, err := Analyze(ctx, st, q, Options{Off: off, Correlate: correlate.Options{Off: off}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	return AnalyzeRecords(win, base, q, baseWin, Options{Off: off})
}

// rules are the names of the ranking's rules: its scorers, the rules
// weighed over all services after them, and the kind rules.
func rules() []string { return Rules() }

// ruleOf is the rule a scenario is named after: the longest rule name it
// begins with ("deploy_effect_…" is deploy_effect's, not deploy's).
func ruleOf(scenario string) string {
	best := ""
	for _, r := range rules() {
		if strings.HasPrefix(scenario, r) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// node is one span of a scenario's tree.
type node struct {
	svc, op    string
	self, wait float64 // ms
	peer       bool
	host       bool // the peer is named by server.address, not peer.service
	version    string
	err        string  // an error it logs, if any
	info       string  // a line it logs as it works, if any
	logged     float64 // ms a peer's own line states its work took, if any
	apart      float64 // ms between a peer's two plain lines, if any
	ahead      float64 // ms a peer's host clock runs ahead of the others'
	kids       []*node
}

func parseNode(t *testing.T, tok string) *node {
	t.Helper()
	if rest, ok := strings.CutPrefix(tok, "@"); ok {
		host := false
		if rest, host = strings.CutPrefix(rest, "@"); !host {
			rest = strings.TrimPrefix(tok, "@")
		}
		name, d, _ := strings.Cut(rest, ":")
		d, errText, _ := strings.Cut(d, "!")
		d, infoText, _ := strings.Cut(d, "?")
		d, aheadS, _ := strings.Cut(d, "%")
		d, loggedS, _ := strings.Cut(d, "~")
		d, apartS, _ := strings.Cut(d, "^")
		v, err := strconv.ParseFloat(d, 64)
		if err != nil {
			t.Fatalf("bad peer %q", tok)
		}
		n := &node{svc: name, self: v, peer: true, host: host, err: errText, info: infoText}
		if loggedS == "-" {
			n.logged = -1 // an access line that states no duration
		} else if loggedS != "" {
			if n.logged, err = strconv.ParseFloat(loggedS, 64); err != nil {
				t.Fatalf("bad stated duration in %q", tok)
			}
		}
		if apartS != "" {
			if n.apart, err = strconv.ParseFloat(apartS, 64); err != nil {
				t.Fatalf("bad time between lines in %q", tok)
			}
		}
		if aheadS != "" {
			if n.ahead, err = strconv.ParseFloat(aheadS, 64); err != nil {
				t.Fatalf("bad clock offset in %q", tok)
			}
		}
		return n
	}
	id, times, ok := strings.Cut(tok, ":")
	svc, op, ok2 := strings.Cut(id, "/")
	if !ok || !ok2 {
		t.Fatalf("bad span %q: want svc/op:SELF[+WAIT][?INFO][!ERROR]", tok)
	}
	svc, version, _ := strings.Cut(svc, "@")
	times, errText, _ := strings.Cut(times, "!")
	times, info, _ := strings.Cut(times, "?")
	selfS, waitS, _ := strings.Cut(times, "+")
	n := &node{svc: svc, op: op, version: version, err: errText, info: info}
	var err error
	if n.self, err = strconv.ParseFloat(selfS, 64); err != nil {
		t.Fatalf("bad self time in %q", tok)
	}
	if waitS != "" {
		if n.wait, err = strconv.ParseFloat(waitS, 64); err != nil {
			t.Fatalf("bad wait in %q", tok)
		}
	}
	return n
}

func buildTrace(t *testing.T, toks []string, seq int, at time.Time) []schema.Record {
	root := parseNode(t, toks[0])
	for _, tok := range toks[1:] {
		parts := strings.Split(tok, ">")
		parent := root
		for _, p := range parts {
			n := parseNode(t, p)
			parent.kids = append(parent.kids, n)
			parent = n
		}
	}
	// ±20%, the same for the same trace number in every run.
	jit := func(v float64, k int) time.Duration {
		f := 0.8 + 0.4*math.Mod(float64(seq*7+k)*0.6180339887, 1)
		return time.Duration(v * f * float64(time.Millisecond))
	}
	tid := schema.TraceID(fmt.Sprintf("%032x", seq))
	var recs []schema.Record
	k := 0
	var emit func(n *node, parent schema.SpanID, start time.Time, callerSvc string) time.Duration
	emit = func(n *node, parent schema.SpanID, start time.Time, callerSvc string) time.Duration {
		k++
		if n.peer {
			d := jit(n.self, k)
			if len(n.kids) > 0 {
				// The peer leaves no span, but calls services that do:
				// their spans name the peer's span, never exported, as
				// their parent.
				hidden := spanID(seq, 5000+k)
				at := start.Add(d / 2)
				for _, c := range n.kids {
					// Its wait on the wire (+WAIT) is outside the
					// callee's span, inside the peer's time.
					w := jit(c.wait, k+3000)
					kd := emit(c, hidden, at.Add(w/2), "")
					at, d = at.Add(kd+w), d+kd+w
				}
			}
			mine := len(recs) // the peer's own lines follow (its clock may run ahead)
			defer func() {
				for i := mine; i < len(recs); i++ {
					if recs[i].Type == schema.TypeLog && recs[i].Service == n.svc {
						recs[i].Time = recs[i].Time.Add(time.Duration(n.ahead * float64(time.Millisecond)))
					}
				}
			}()
			attr := schema.AttrPeerService
			if n.host {
				attr = "server.address"
			}
			entry := parent == "" && callerSvc == ""
			if entry {
				// The trace's root: a service that takes the request and
				// leaves no spans, only its lines.
				recs = append(recs, schema.Record{Type: schema.TypeLog, Time: start, TraceID: tid,
					Service: n.svc, Severity: schema.SeverityInfo, Body: "handling request GET /" + n.svc})
			} else {
				recs = append(recs, schema.Record{Type: schema.TypeSpan, Time: start, TraceID: tid,
					SpanID: spanID(seq, k), ParentSpanID: parent, Service: callerSvc, Name: "call " + n.svc,
					Duration: d, Attrs: map[string]string{attr: n.svc}})
			}
			if n.apart > 0 {
				// The peer leaves no span, but writes two lines as it works.
				gap := jit(n.apart, k+2000)
				first := start.Add(max(d-gap, 0) / 2)
				for j, body := range []string{"loading account", "account loaded"} {
					recs = append(recs, schema.Record{Type: schema.TypeLog, Time: first.Add(time.Duration(j) * gap), TraceID: tid,
						Service: n.svc, Severity: schema.SeverityInfo, Body: body})
				}
			}
			if n.info != "" {
				// The peer logs a line as it works (a warning when it
				// begins WARN_).
				sev, body := schema.SeverityInfo, strings.ReplaceAll(n.info, "_", " ")
				if b, ok := strings.CutPrefix(body, "WARN "); ok {
					sev, body = schema.SeverityWarn, b
				}
				recs = append(recs, schema.Record{Type: schema.TypeLog, Time: start.Add(d / 2), TraceID: tid,
					Service: n.svc, Severity: sev, Body: body})
			}
			if n.logged > 0 {
				// The peer leaves no span, but its access line says how
				// long it took.
				recs = append(recs, schema.Record{Type: schema.TypeLog, Time: start.Add(d), TraceID: tid,
					Service: n.svc, Severity: schema.SeverityInfo,
					Body: fmt.Sprintf("GET /%s 200 %.1fms", n.svc, float64(max(d-jit(n.self-n.logged, k), 0))/1e6)})
			} else if n.logged < 0 {
				recs = append(recs, schema.Record{Type: schema.TypeLog, Time: start.Add(d), TraceID: tid,
					Service: n.svc, Severity: schema.SeverityInfo, Body: fmt.Sprintf("GET /%s 200", n.svc)})
			}
			if n.err != "" && !entry {
				// The call failed: an error status, whose message is the
				// words, and its caller logs them.
				recs[len(recs)-1].Status = schema.StatusError
				recs[len(recs)-1].Body = strings.ReplaceAll(n.err, "_", " ")
				recs = append(recs, schema.Record{Type: schema.TypeLog, Time: start.Add(d), TraceID: tid,
					SpanID: parent, Service: callerSvc, Severity: schema.SeverityError, Body: strings.ReplaceAll(n.err, "_", " ")})
			}
			return d
		}
		if callerSvc != "" {
			// The caller's client span, around the callee's server span.
			client := spanID(seq, k)
			i := len(recs)
			recs = append(recs, schema.Record{Type: schema.TypeSpan, Time: start, TraceID: tid,
				SpanID: client, ParentSpanID: parent, Service: callerSvc, Name: "call " + n.svc + "/" + n.op})
			w := jit(n.wait, k)
			d := emit(&node{svc: n.svc, op: n.op, self: n.self, kids: n.kids, version: n.version, err: n.err, info: n.info},
				client, start.Add(w/2), "")
			recs[i].Duration = d + w
			return d + w
		}
		id := spanID(seq, k)
		i := len(recs)
		recs = append(recs, schema.Record{Type: schema.TypeSpan, Time: start, TraceID: tid,
			SpanID: id, ParentSpanID: parent, Service: n.svc, Name: n.op})
		if n.version != "" {
			recs[i].Attrs = map[string]string{schema.AttrServiceVersion: n.version}
		}
		if n.info != "" {
			sev, body := schema.SeverityInfo, strings.ReplaceAll(n.info, "_", " ")
			if b, ok := strings.CutPrefix(body, "WARN "); ok {
				sev, body = schema.SeverityWarn, b
			}
			recs = append(recs, schema.Record{Type: schema.TypeLog, Time: start.Add(time.Millisecond / 4), TraceID: tid,
				SpanID: id, Service: n.svc, Severity: sev, Body: body})
		}
		if n.err != "" {
			recs = append(recs, schema.Record{Type: schema.TypeLog, Time: start.Add(time.Millisecond / 2), TraceID: tid,
				SpanID: id, Service: n.svc, Severity: schema.SeverityError, Body: strings.ReplaceAll(n.err, "_", " ")})
		}
		d := jit(n.self, k)
		for _, c := range n.kids {
			d += emit(c, id, start.Add(d), n.svc)
		}
		recs[i].Duration = d
		return d
	}
	emit(root, "", at, "")
	return recs
}

func spanID(seq, k int) schema.SpanID { return schema.SpanID(fmt.Sprintf("%012x%04x", seq, k)) }

func checkWant(rep *Report, want string) []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	if len(rep.Candidates) == 0 {
		return []string{"no candidates"}
	}
	top := rep.Candidates[0]
	for _, line := range strings.Split(want, "\n") {
		verb, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch verb {
		case "":
		case "top":
			if top.Service != arg {
				fail("top candidate is %s, want %s; all: %s", top.Service, arg, candidateList(rep))
			}
		case "kind":
			if string(top.Kind) != arg {
				fail("top candidate's kind is %s, want %s", top.Kind, arg)
			}
		case "evidence":
			found := false
			for _, e := range top.Evidence {
				found = found || strings.Contains(e, arg)
			}
			if !found {
				fail("no evidence of %s contains %q: %q", top.Service, arg, top.Evidence)
			}
		case "evidence-of":
			svc, text, _ := strings.Cut(arg, " ")
			found := false
			for _, c := range rep.Candidates {
				for _, e := range c.Evidence {
					found = found || c.Service == svc && strings.Contains(e, text)
				}
			}
			if !found {
				fail("no evidence of %s contains %q: %s", svc, text, candidateList(rep))
			}
		case "examples":
			if len(top.ExampleTraces) == 0 {
				fail("%s has no example traces", top.Service)
			}
		case "nocandidate":
			for _, c := range rep.Candidates {
				if c.Service == arg {
					fail("%s is a candidate: %v", arg, c.Evidence)
				}
			}
		case "absent":
			for _, c := range rep.Candidates {
				for _, g := range c.Signals {
					if c.Service == arg && g.Name == "call_timing" {
						fail("%s has a call_timing signal: %s", arg, g.Reason)
					}
				}
			}
		default:
			fail("unknown want line %q", line)
		}
	}
	return bad
}

func candidateList(rep *Report) string {
	var b strings.Builder
	for _, c := range rep.Candidates {
		fmt.Fprintf(&b, "\n  %s %s %.2f %v", c.Service, c.Kind, c.Score, c.Evidence)
	}
	return b.String()
}

// TestRuleScenariosNamed checks that every scenario is named after a rule,
// and says which rules have none yet.
func TestRuleScenariosNamed(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	covered := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		r := ruleOf(name)
		if r == "" {
			t.Errorf("scenario %s is named after no rule", name)
		}
		covered[r] = true
	}
	for _, r := range rules() {
		if !covered[r] {
			t.Logf("rule %s has no scenario under testdata/ yet", r)
		}
	}
}
