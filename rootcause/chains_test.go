package rootcause

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// mkVotes makes n votes whose origin is from, pointing at to with kind k
// and weight wt.
func mkVotes(n int, from, to string, k schema.Kind, wt float64) []vote {
	var out []vote
	for range n {
		// A test vote's novelty is its weight, less the floor chains give
		// usual noise.
		news := wt
		if wt <= chainFloor {
			news = 0
		}
		out = append(out, vote{origin: correlate.Event{Service: from, Class: k}, target: to, kind: k, weight: wt, news: news})
	}
	return out
}

// refusedBy has svc log every vote's refusal.
func refusedBy(vs []vote, svc string) []vote {
	for i := range vs {
		vs[i].refuser = svc
	}
	return vs
}

// through gives every vote the services that took part in its trace.
func through(vs []vote, svcs ...string) []vote {
	for i := range vs {
		vs[i].through = svcs
	}
	return vs
}

// withHops gives every vote the hops h.
func withHops(vs []vote, h ...hop) []vote {
	for i := range vs {
		vs[i].hops = h
	}
	return vs
}

func never(_, _ string) bool { return false }

func TestPointerChains(t *testing.T) {
	join := func(vs ...[]vote) []vote {
		var out []vote
		for _, v := range vs {
			out = append(out, v...)
		}
		return out
	}
	cases := []struct {
		name     string
		votes    []vote
		steady   func(from, to string) bool
		from, to string // want chains[from] == to ("" for no chain)
	}{{
		name: "a breaker's dependency fails by timing out on another",
		votes: join(mkVotes(100, "front", "search", schema.KindCircuitOpen, 1),
			mkVotes(20, "search", "tax", schema.KindDependencyTimeout, 1)),
		from: "search", to: "tax",
	}, {
		name: "noise it always logs does not hide its new failures",
		votes: join(mkVotes(100, "front", "search", schema.KindCircuitOpen, 1),
			mkVotes(20, "search", "tax", schema.KindDependencyTimeout, 1),
			mkVotes(50, "search", "search", schema.KindDeterministic, 0.1)),
		from: "search", to: "tax",
	}, {
		name: "new failures of its own keep the votes",
		votes: join(mkVotes(100, "front", "search", schema.KindCircuitOpen, 1),
			mkVotes(20, "search", "tax", schema.KindDependencyTimeout, 1),
			mkVotes(50, "search", "search", schema.KindDeterministic, 1)),
		from: "search",
	}, {
		name: "one stray trace does not redirect",
		votes: join(mkVotes(100, "front", "media", schema.KindConnectionRefused, 1),
			mkVotes(1, "media", "mailer", schema.KindTransient, 1)),
		from: "media",
	}, {
		name: "not onto a dependency seen serving as usual",
		votes: join(mkVotes(100, "front", "media", schema.KindConnectionRefused, 1),
			mkVotes(3, "media", "mailer", schema.KindTransient, 1)),
		steady: func(_, to string) bool { return to == "mailer" },
		from:   "media",
	}, {
		name: "a few failures of its own the baseline's rate explains do not redirect",
		votes: join(mkVotes(200, "front", "inventory", schema.KindDependencyTimeout, 1),
			mkVotes(2, "inventory", "ppa", schema.KindDependencyTimeout, 0.35)),
		from: "inventory",
	}, {
		name: "not where its own waits were slow",
		votes: join(mkVotes(100, "front", "inventory", schema.KindDependencyTimeout, 1),
			mkVotes(4, "inventory", "ppa", schema.KindDependencyTimeout, 1)),
		steady: func(from, to string) bool { return from == "inventory" && to == "ppa" },
		from:   "inventory",
	}, {
		name: "a service never an origin: where its errors in the traces passing through it lead",
		votes: join(mkVotes(100, "front", "user", schema.KindCircuitOpen, 1),
			withHops(mkVotes(6, "front", "search", schema.KindDBPoolExhaustion, 1), hop{from: "user", to: "search", weight: 1})),
		from: "user", to: "search",
	}, {
		name: "not when its own trouble shows in those traces",
		votes: join(mkVotes(100, "front", "ledger", schema.KindCircuitOpen, 1),
			withHops(mkVotes(6, "front", "fraud", schema.KindTransient, 1), hop{from: "ledger", to: "fraud", weight: 1}),
			withHops(mkVotes(10, "fraud", "fraud", schema.KindDeterministic, 1), hop{from: "ledger", to: "ledger", weight: 1})),
		from: "ledger",
	}, {
		name: "a service seldom an origin: one trace of its own says nothing, those passing through do",
		votes: join(mkVotes(100, "front", "inventory", schema.KindCircuitOpen, 1),
			mkVotes(1, "inventory", "billing", schema.KindCircuitOpen, 1),
			withHops(mkVotes(6, "front", "ppa", schema.KindDependencyTimeout, 1), hop{from: "inventory", to: "ppa", weight: 1})),
		from: "inventory", to: "ppa",
	}, {
		name: "a few refusals of its breaker beside its own trouble mid-chain lead nowhere",
		votes: join(mkVotes(100, "front", "recommend", schema.KindCircuitOpen, 1),
			mkVotes(2, "recommend", "recommend", schema.KindBulkheadFull, 1),
			withHops(mkVotes(60, "ads", "ads", schema.KindDeterministic, 1), hop{from: "recommend", to: "recommend", weight: 1})),
		from: "recommend",
	}, {
		name: "its own failures as an origin outweigh the traces passing through",
		votes: join(mkVotes(100, "front", "user", schema.KindCircuitOpen, 1),
			mkVotes(20, "user", "user", schema.KindDeterministic, 1),
			withHops(mkVotes(30, "front", "search", schema.KindDBPoolExhaustion, 1), hop{from: "user", to: "search", weight: 1})),
		from: "user",
	}, {
		name: "its own failures as an origin, when usual noise, do not outweigh the traces passing through",
		votes: join(mkVotes(100, "front", "queue", schema.KindCircuitOpen, 1),
			mkVotes(20, "queue", "queue", schema.KindDeterministic, chainFloor),
			withHops(mkVotes(30, "front", "store", schema.KindDBPoolExhaustion, 1), hop{from: "queue", to: "store", weight: 1})),
		from: "queue", to: "store",
	}, {
		name: "a service that refused work itself leads where the failing traces it served lead",
		votes: join(through(mkVotes(50, "holder", "queue", schema.KindCircuitOpen, 1), "holder", "queue"),
			through(mkVotes(20, "holder", "gitapi", schema.KindDependencyTimeout, 1), "holder", "queue")),
		from: "queue", to: "gitapi",
	}, {
		name: "a caller's own bulkhead refused calls to a dependency that took part in the trace's earlier attempts",
		votes: join(through(mkVotes(300, "worker", "payments", schema.KindDBPoolExhaustion, 1), "worker", "payments"),
			refusedBy(through(mkVotes(3, "worker", "payments", schema.KindBulkheadFull, 1), "worker", "payments"), "worker"),
			through(mkVotes(20, "worker", "worker", schema.KindUnknown, 1), "worker", "payments")),
		from: "payments",
	}, {
		name: "a caller's breaker keeps calls away from a dependency, which served none of the refused traces",
		votes: join(through(mkVotes(50, "web", "payments", schema.KindCircuitOpen, 1), "web"),
			through(mkVotes(20, "web", "ledger", schema.KindDependencyTimeout, 1), "web", "payments")),
		from: "payments",
	}}
	for _, c := range cases {
		steady := c.steady
		if steady == nil {
			steady = never
		}
		got := pointerChains(c.votes, steady, nil).ends[c.from]
		if got != c.to {
			t.Errorf("%s: chain from %s ends at %q, want %q", c.name, c.from, got, c.to)
		}
	}
}

// TestTailOf: a host's first label that ends one known name (its region or
// site) is that service.
func TestTailOf(t *testing.T) {
	for _, c := range []struct {
		label string
		names []string
		text  string
		want  string
	}{
		{"us-tx-1", []string{"edge-router", "instances-lambda-us-tx-1", "instances-lambda-eu-west-1"}, "", "instances-lambda-us-tx-1"},
		{"fsn1", []string{"instances-hetzner-fsn1", "instances-hetzner-fsn1-b"}, "", "instances-hetzner-fsn1"},
		{"eu-1", []string{"db-eu-1", "cache-eu-1"}, "", ""}, // two candidates: no guess
		{"db", []string{"orders-db"}, "", ""},               // too short to say anything
		// Two names end with the region; the host's other labels tell
		// them apart, and no host, or one that fits both alike, does not.
		{"us-east-1", []string{"aws-api-us-east-1", "instances-aws-us-east-1"},
			"circuit breaker for aws:us-east-1 is open, not calling us-east-1.aws.instances.internal", "instances-aws-us-east-1"},
		{"us-east-1", []string{"aws-api-us-east-1", "instances-aws-us-east-1"}, "circuit aws:us-east-1 open", ""},
		{"us-east-1", []string{"aws-api-us-east-1", "instances-aws-us-east-1"}, "GET https://us-east-1.aws.example.com/", ""},
		{"us-east-1", []string{"aws-api-us-east-1", "instances-aws-us-east-1"}, "dial tcp eu-us-east-1.instances.internal", ""},
	} {
		if got := tailOf(c.label, c.names, c.text); got != c.want {
			t.Errorf("tailOf(%q, %q) = %q, want %q", c.label, c.names, got, c.want)
		}
	}
}

func TestAliasOf(t *testing.T) {
	for _, c := range []struct {
		label   string
		callees []string
		want    string
	}{
		{"geo", []string{"geo-api", "redis-geo"}, "geo-api"},
		{"identityprovider", []string{"identity-provider"}, "identity-provider"},
		{"Geo", []string{"geo-api", "geo-cache"}, ""}, // two candidates: no guess
		{"pay", []string{"ledger"}, ""},
		{"x", []string{"x-api"}, ""}, // too short to say anything
	} {
		if got := aliasOf(c.label, c.callees); got != c.want {
			t.Errorf("aliasOf(%q, %q) = %q, want %q", c.label, c.callees, got, c.want)
		}
	}
}

// TestResolveNames checks that unknown spellings of one name merge into
// the most punctuated one, and that a known service's spelling wins.
func TestResolveNames(t *testing.T) {
	w, b := newPeriod(t0, t0), newPeriod(t0, t0)
	w.service("Payments-API").records = 10
	tv := &traceVotes{services: map[string]*serviceVotes{}, edges: map[[2]string]*Edge{}}
	votes := append(append(append(mkVotes(3, "a", "identityprovider", schema.KindCircuitOpen, 1),
		mkVotes(1, "b", "identity-provider", schema.KindDependencyTimeout, 1)...),
		mkVotes(1, "c", "payments-api", schema.KindDependencyTimeout, 1)...),
		mkVotes(1, "d", "Payments-API", schema.KindDependencyTimeout, 1)...)
	resolveNames(votes, w, b, tv)
	for _, v := range votes[:4] {
		if v.target != "identity-provider" {
			t.Errorf("%s's target %q, want identity-provider", v.origin.Service, v.target)
		}
	}
	for _, v := range votes[4:] {
		if v.target != "Payments-API" {
			t.Errorf("%s's target %q, want the known Payments-API", v.origin.Service, v.target)
		}
	}
}

// TestResolveNamesGenericSuffix checks that a dependency named by a host's
// label in some traces and by its callers' lines in others is one name,
// the one the lines give; names with a suffix of their own stay apart, and
// a name two others could stand for stays itself.
func TestResolveNamesGenericSuffix(t *testing.T) {
	w, b := newPeriod(t0, t0), newPeriod(t0, t0)
	tv := &traceVotes{services: map[string]*serviceVotes{}, edges: map[[2]string]*Edge{}}
	votes := append(append(append(append(append(mkVotes(3, "a", "geo-vendor", schema.KindDependencyTimeout, 1),
		mkVotes(2, "b", "geo-vendor-api", schema.KindDependencyTimeout, 1)...),
		mkVotes(2, "c", "ledger", schema.KindDependencyTimeout, 1)...),
		mkVotes(1, "d", "ledger-archive", schema.KindDependencyTimeout, 1)...),
		mkVotes(1, "e", "maps-api", schema.KindDependencyTimeout, 1)...),
		mkVotes(1, "f", "maps-service", schema.KindDependencyTimeout, 1)...)
	votes = append(votes, mkVotes(1, "g", "maps", schema.KindDependencyTimeout, 1)...)
	resolveNames(votes, w, b, tv)
	want := map[string]string{"a": "geo-vendor-api", "b": "geo-vendor-api", "c": "ledger", "d": "ledger-archive",
		"e": "maps-api", "f": "maps-service", "g": "maps"}
	for _, v := range votes {
		if v.target != want[v.origin.Service] {
			t.Errorf("%s's target %q, want %q", v.origin.Service, v.target, want[v.origin.Service])
		}
	}
}

// TestResolveNamesTold: a dependency only a host names in the failing
// traces ("acquirer" of api.acquirer.example.com) goes by the name a
// warning of the window gives it (a breaker's label, "circuit
// \"acquirerApi\" opened"), when that is its only such name; a told name
// with a word of its own (ledger-store for ledger) moves nothing.
func TestResolveNamesTold(t *testing.T) {
	w, b := newPeriod(t0, t0), newPeriod(t0, t0)
	warn := func(svc, msg string) *schema.Record {
		return &schema.Record{Time: t0, Service: svc, Type: schema.TypeLog, Severity: schema.SeverityWarn, Body: msg}
	}
	w.add(warn("payments", `circuit "acquirerApi" opened`), 0)
	w.add(warn("orders", `retrying request to ledger-store in 2s`), 0)
	tv := &traceVotes{services: map[string]*serviceVotes{}, edges: map[[2]string]*Edge{}}
	votes := append(append(mkVotes(3, "a", "acquirer", schema.KindDependencyTimeout, 1),
		mkVotes(2, "b", "ledger", schema.KindDependencyTimeout, 1)...),
		mkVotes(1, "c", "maps", schema.KindDependencyTimeout, 1)...)
	resolveNames(votes, w, b, tv)
	want := map[string]string{"a": "acquirer-api", "b": "ledger", "c": "maps"}
	for _, v := range votes {
		if v.target != want[v.origin.Service] {
			t.Errorf("%s's target %q, want %q (told: %v)", v.origin.Service, v.target, want[v.origin.Service], w.told)
		}
	}
}

// TestDuplicatesIgnored loads the window twice over (every record shipped
// twice): the ranking must not change, and the report says what it dropped.
func TestDuplicatesIgnored(t *testing.T) {
	in := newIncident()
	once := in.analyze(Query{})
	var twice []schema.Record
	for _, r := range in.win {
		twice = append(twice, r, r)
	}
	in.win = twice
	got := in.analyze(Query{})
	a, _ := json.Marshal(got.Candidates)
	b, _ := json.Marshal(once.Candidates)
	if string(a) != string(b) {
		t.Errorf("candidates changed when every record came twice:\n%s\nwant\n%s", a, b)
	}
	if !slices.ContainsFunc(got.Warnings, func(w string) bool { return strings.Contains(w, "repeat") }) {
		t.Errorf("no warning about the repeated records: %q", got.Warnings)
	}
}

// TestAnsweredFailuresAreNotOwn: a line telling that a named dependency
// answered with failure is that dependency's failure, not the logger's;
// the logger's own throttling is its own.
func TestAnsweredFailuresAreNotOwn(t *testing.T) {
	p := newPeriod(t0, t0.Add(time.Hour))
	for _, c := range []struct {
		body string
		own  bool
	}{
		{"calling ads-svc failed: 503 Service Unavailable", false},
		{"request to ads-svc throttled: 429 Too Many Requests, retrying", false},
		{"rate limit exceeded for client 42", true},
		{"NullPointerException in OrderMapper.map", true},
	} {
		r := schema.Record{Type: schema.TypeLog, Time: t0, Service: "billing-svc", Severity: schema.SeverityError, Body: c.body}
		p.add(&r, 0)
		ts := p.services["billing-svc"].templates[templateOf(&r)]
		if ts == nil || ts.own() != c.own {
			t.Errorf("%q: own() = %v, want %v (template %+v)", c.body, ts != nil && ts.own(), c.own, ts)
		}
	}
}

// TestTroubledCallerKeepsItsVotes: a service whose GC pressure began
// before its calls to a dependency failed keeps the votes of those
// failures; with the same pressure in the baseline, they go to the
// dependency.
func TestTroubledCallerKeepsItsVotes(t *testing.T) {
	w, b := newPeriod(t0.Add(time.Hour), t0.Add(2*time.Hour)), newPeriod(t0, t0.Add(time.Hour))
	gc := func(p *period, at time.Time) {
		r := schema.Record{Type: schema.TypeLog, Time: at, Service: "shipping", Severity: schema.SeverityWarn,
			Body: "memory pressure: GC stalled the process for 900ms"}
		p.add(&r, 0)
	}
	for i := range 10 {
		gc(w, t0.Add(time.Hour+time.Duration(i)*time.Minute))
	}
	if tr := troubleOf(w, b, "shipping"); tr == nil || tr.kind != schema.KindResourceGC {
		t.Fatalf("troubleOf = %+v, want resource-gc trouble", tr)
	}
	for i := range 10 {
		gc(b, t0.Add(time.Duration(i)*time.Minute))
	}
	if tr := troubleOf(w, b, "shipping"); tr != nil {
		t.Errorf("troubleOf = %+v, want none: the baseline paused as often", tr)
	}
}

func TestVoteHops(t *testing.T) {
	res := &correlate.Result{
		Origin:  &correlate.Event{Service: "front", Class: schema.KindCircuitOpen},
		Suspect: &correlate.Suspect{Service: "search", Kind: schema.KindDBPoolExhaustion},
		Failures: []correlate.Failure{
			{Service: "front", Class: schema.KindCircuitOpen, Target: "user", Error: true, Role: "origin"},
			{Service: "user", Class: schema.KindCircuitOpen, Target: "search", Error: true, Role: "cascade"},
			{Service: "user", Class: schema.KindTransient, Target: "search", Error: false},                             // a signal, not an error of the chain
			{Service: "user", Class: schema.KindCircuitOpen, Error: true, Role: "cascade"},                             // names nothing
			{Service: "user", Class: schema.KindTransient, Error: true},                                                // a bare 5xx
			{Service: "ledger", Class: schema.KindResourceGC, Error: false},                                            // its own trouble
			{Service: "ledger", Class: schema.KindDependencyTimeout, Target: "ledger", Error: false},                   // a symptom
			{Service: "search", Class: schema.KindDBPoolExhaustion, Target: "search-db", Error: true, Role: "cascade"}, // its own pool [own_trouble_stays]
		},
	}
	got := newVote(res, "", 1, false).hops
	want := []hop{{from: "user", to: "search"}, {from: "ledger", to: "ledger"}, {from: "search", to: "search", own: true}}
	if !slices.Equal(got, want) {
		t.Errorf("hops = %+v, want %+v", got, want)
	}
}

// TestFollowedErrorsAreNotOwn: a bare "Internal Server Error" a service
// logs after its call to a dependency timed out, in most failing traces, is
// not an error of its own; the same line without a failed call before it is.
func TestFollowedErrorsAreNotOwn(t *testing.T) {
	for _, c := range []struct {
		name     string
		callFail bool
		own      bool
	}{
		{"after a failed call", true, false},
		{"alone", false, true},
	} {
		p := newPeriod(t0, t0.Add(time.Hour))
		bare := schema.Record{Type: schema.TypeLog, Service: "booking", Severity: schema.SeverityError, Body: "Internal Server Error"}
		for i := range 10 {
			at := t0.Add(time.Duration(i) * time.Minute)
			r := bare
			r.Time = at.Add(time.Second)
			p.add(&r, 0)
			ts := p.services["booking"].templates[templateOf(&r)]
			res := &correlate.Result{Failures: []correlate.Failure{
				{Service: "booking", Class: schema.KindTransient, Error: true, Time: r.Time, Signature: ts.signature},
			}}
			if c.callFail {
				res.Failures = append(res.Failures, correlate.Failure{Service: "booking", Class: schema.KindDependencyTimeout,
					Target: "email-provider", Error: true, Time: at})
			}
			p.countAfterCalls(res)
		}
		p.markFollowed()
		sp := p.services["booking"]
		ts := sp.templates[templateOf(&bare)]
		if ts.own() != c.own {
			t.Errorf("%s: own() = %v, want %v", c.name, ts.own(), c.own)
		}
		if want := map[bool]int{true: 10, false: 0}[c.own]; sp.ownErrors != want {
			t.Errorf("%s: ownErrors = %d, want %d", c.name, sp.ownErrors, want)
		}
	}
}

// TestPeerCallTimeIsThePeers: the time a service waits on a call to a peer
// that left no span of its own is the peer's latency, not the caller's
// self time.
func TestPeerCallTimeIsThePeers(t *testing.T) {
	p := newPeriod(t0, t0.Add(time.Hour))
	server := schema.Record{Type: schema.TypeSpan, Time: t0, TraceID: "0af7651916cd43dd8448eb211c80319c", SpanID: "b7ad6b7169203331",
		Service: "booking", Name: "POST /book", Duration: 3100 * time.Millisecond}
	client := schema.Record{Type: schema.TypeSpan, Time: t0, TraceID: server.TraceID, SpanID: "00f067aa0ba902b7", ParentSpanID: server.SpanID,
		Service: "booking", Name: "POST", Duration: 3 * time.Second, Attrs: map[string]string{schema.AttrPeerService: "email-provider"}}
	p.addSelfTimes([]schema.Record{server, client}, nil, 1)
	if got := p.services["booking"].selfNs.ns; len(got) != 1 || got[0] != float64(100*time.Millisecond) {
		t.Errorf("booking self times = %v, want only its server span's 100ms", got)
	}
	if got := p.services["email-provider"].peerNs.ns; len(got) != 1 || got[0] != float64(3*time.Second) {
		t.Errorf("email-provider latency seen by callers = %v, want [3s]", got)
	}
}

func TestPeerAtAddress(t *testing.T) {
	p := newPeriod(t0, t0.Add(time.Hour))
	p.failedCalls = map[string]string{
		"connect ECONNREFUSED 10.1.63.206:8080": "promotion-service",
		"dial tcp 10.1.63.20:443: i/o timeout":  "search",
	}
	for addr, want := range map[string]string{"10.1.63.206": "promotion-service", "10.1.63.20": "search", "10.1.63.2": "", "1.63.206": ""} {
		if got := p.peerAt(addr); got != want {
			t.Errorf("peerAt(%s) = %q, want %q", addr, got, want)
		}
	}
}

// TestEchoedVoteIsRepeatedVote: a vote that stands for several failing
// traces (a sampled failing trace's, vote.echoes) moves the pointer chains
// and tallies its suspect as that many copies of it would.
func TestEchoedVoteIsRepeatedVote(t *testing.T) {
	steady := func(string, string) bool { return false }
	base := append(append(mkVotes(1, "checkout", "payments", schema.KindTimeout, 1),
		mkVotes(1, "payments", "ledger-db", schema.KindTimeout, 1)...),
		mkVotes(2, "orders", "payments", schema.KindTimeout, 1)...)
	for i := range base {
		base[i].cascade, base[i].via, base[i].entry = []string{"gateway"}, "", "GET /buy"
		base[i].origin.Signature, base[i].caller = schema.Signature(fmt.Sprint("sig", i)), "gateway"
	}
	const k = 4
	echoed, copied := slices.Clone(base), []vote(nil)
	for i := range echoed {
		echoed[i].echoes = k - 1
		for range k {
			copied = append(copied, base[i])
		}
	}
	che, chc := pointerChains(echoed, steady, nil), pointerChains(copied, steady, nil)
	if !reflect.DeepEqual(che, chc) {
		t.Fatalf("pointer chains of echoed votes %+v, of copies %+v", che, chc)
	}
	te, tc := &traceVotes{services: map[string]*serviceVotes{}}, &traceVotes{services: map[string]*serviceVotes{}}
	for i := range echoed {
		te.tally(&echoed[i], che)
	}
	for i := range copied {
		tc.tally(&copied[i], chc)
	}
	for svc, c := range tc.services {
		e := te.services[svc]
		if e == nil {
			t.Fatalf("%s tallied only from copies", svc)
		}
		// Copies beyond the first are never examples.
		c.examples, c.others, e.examples, e.others = nil, nil, nil, nil
		if !reflect.DeepEqual(e, c) {
			t.Errorf("%s tallied from echoed votes %+v, from copies %+v", svc, *e, *c)
		}
	}
	if te.news != tc.news {
		t.Errorf("news %v from echoed votes, %v from copies", te.news, tc.news)
	}
}
