package rootcause

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/patterns"
	"github.com/faultline/faultline/schema"
)

// period is the profile of every service over one period (the window or
// the baseline): what it logged, how often, and how long its spans took.
type period struct {
	from, to time.Time
	// off are the rules switched off (set on the baseline for novelty);
	// wrapped remembers wrappedIn's answers.
	off      map[string]bool
	wrapped  map[[2]string]*templateStat
	services map[string]*serviceProfile
	records  int
	sigs     map[string]map[schema.Signature]*templateStat // built on first use
	// ops is the behaviour of every operation (see behaviour.go).
	ops map[opKey]*opStat
	// callees counts, per call event, the calls that reached each service:
	// the event calls the service most of them reached (callee), however
	// the traces came in.
	callees map[string]map[string]int
	scratch *behaviourScratch
	// strs holds the period's own copies of what it derives from records'
	// text and keeps (eventOf's code locations).
	strs interner
	// traceSeq numbers the traces account has seen (opStat.seen).
	traceSeq int
	// shifts caches behaviourShifts per service (window only).
	shifts map[string][]behaviourShift
	// served counts, per service, the traces it took part in and those
	// of them with an error record (a baseline before the window; read
	// by deploy_effect).
	served     map[string]*[2]int
	svcScratch []string // reused by addServed
	// split, when set, divides a baseline into its older and newer halves:
	// behaviour before it is also kept apart (opStat.older).
	split time.Time
	// aboutOff leaves ruleAboutOther out.
	aboutOff bool
	// active holds the coverSec-long slices of the period that hold records:
	// a store may hold only parts of a period (a baseline of a few minutes
	// an hour ago, a window whose end has not arrived), and rates must be
	// per minute of data, not per minute of the clock.
	active map[int64]struct{}
	// failedCalls maps the error message of a failed call to a peer that
	// left no span ("connect ECONNREFUSED 10.1.63.206:8080") to the peer
	// the span named: what an address in a log line stands for.
	failedCalls map[string]string
	// timing is its call edges' waits and operations' own work
	// (calltiming.go); timingFound caches what they say (window only).
	timing       timing
	timingFound  map[string]*timingFinding
	timingBroad  map[string]bool    // callers whose waits are their own
	timingOwned  map[[2]string]bool // edges whose waits are the caller's
	timingSlowed map[[2]string]bool // edges whose waits grew (significant shift)
	// failNews is, per failing trace of the window, the novelty of its
	// first error once the votes are tallied (what its failure explains
	// of it): shift.slowed counts only the rest (window only).
	failNews map[schema.TraceID]float64
	// stated pairs calls to services without spans with the durations
	// their own lines state (logged_timing), per service and template.
	stated map[opKey]*statedPairs
	// logSpans is, per service, the time from its first to its last line
	// in each trace (logged_timing).
	logSpans map[string]*timingStat
	// uncovered is, per service without spans, the part of the duration
	// its line states for a request that the spans it called do not
	// cover: its own time (counted_once).
	uncovered map[string]*timingStat
	// uncoveredCallee is, per window trace of uncovered, the service
	// whose spans covered most of it.
	uncoveredCallee map[schema.TraceID]string
	// warned is, per service without spans and window trace, the
	// dependency its warnings there name (warned_wait).
	warned map[warnedKey]string
	// names are the services that wrote records and the names client
	// spans give their peers (peer.service), by NameKey: what a host name
	// in server.address is settled against (peerName).
	names map[string]string
	// hosts caches peerName; seenNames, addName.
	hosts     map[string]string
	seenNames map[string]struct{}
	// told are the names warnings and errors give the dependency they are
	// about (a breaker's, a retry's or a client's label: "circuit
	// \"acquirerApi\" opened" tells acquirer-api), one per template: what
	// resolveNames settles a name only a host gave against.
	told map[string]struct{}
}

// peerName is the one name a peer goes by: a host whose labels include a
// name the data gives a service or a peer (api.license-server.example.com
// for license-server, cart.default.svc.cluster.local for cart) is that
// name; anything else is itself.
func (p *period) peerName(raw string) string {
	if raw == "" || !strings.Contains(raw, ".") || correlate.IsAddress(raw) {
		return raw
	}
	if n, ok := p.hosts[raw]; ok {
		return n
	}
	name := p.hostName(raw)
	if p.hosts == nil {
		p.hosts = map[string]string{}
	}
	p.hosts[strings.Clone(raw)] = strings.Clone(name)
	return name
}

// hostsSettled reports whether every host name peerName answered is
// still answered the same with the names known now. A streamed read
// answers for a trace with the names seen up to it; a name first given
// later in the period can settle a host differently (stream.go).
func (p *period) hostsSettled() bool {
	for raw, name := range p.hosts {
		if p.hostName(raw) != name {
			return false
		}
	}
	return true
}

// primeNames gives p, before it is read, the names another read of its
// records found, so that its hosts are settled from its first trace.
func (p *period) primeNames(from *period) {
	p.names, p.seenNames = maps.Clone(from.names), maps.Clone(from.seenNames)
}

// hostName is peerName's answer for a host name, before it is cached.
func (p *period) hostName(raw string) string {
	if n, ok := p.names[correlate.NameKey(raw)]; ok {
		return n
	}
	name := raw
	labels := strings.Split(raw, ".")
	for _, label := range labels {
		if n, ok := p.names[correlate.NameKey(label)]; ok && len(label) >= 2 {
			name = n
			break
		}
	}
	if name == raw {
		// A label that is a known name but for a generic suffix
		// (payment-provider of api.payment-provider.example.com for
		// payment-provider-api), when it is one name's only.
		for _, label := range labels[:max(len(labels)-1, 1)] {
			if m := p.nameLike(label); m != "" {
				name = m
				break
			}
		}
	}
	return name
}

// nameLike is the one known name that is label but for a generic suffix
// (correlate.SameService), "" when none or several are.
func (p *period) nameLike(label string) string {
	if len(correlate.NameKey(label)) < 4 {
		return ""
	}
	found := ""
	for _, n := range p.names {
		if strings.Contains(n, ".") || !correlate.SameService(label, n) {
			continue
		}
		if found != "" && found != n {
			return ""
		}
		found = n
	}
	return found
}

// addName notes a name the data gives a service or a peer.
func (p *period) addName(n string) {
	if n == "" {
		return
	}
	if _, ok := p.seenNames[n]; ok {
		return
	}
	if p.names == nil {
		p.names, p.seenNames = map[string]string{}, map[string]struct{}{}
	}
	n = strings.Clone(n)
	p.seenNames[n] = struct{}{}
	k := correlate.NameKey(n)
	if _, ok := p.names[k]; !ok {
		p.names[strings.Clone(k)] = n
	}
}

// maxFailedCalls caps period.failedCalls.
const maxFailedCalls = 1000

// coverSec is the resolution at which a period's coverage is measured.
const coverSec = 10

// bySignature finds a service's template by its signature.
func (p *period) bySignature(svc string, sig schema.Signature) *templateStat {
	if p.sigs == nil {
		p.sigs = map[string]map[schema.Signature]*templateStat{}
		for name, sp := range p.services {
			m := make(map[schema.Signature]*templateStat, len(sp.templates))
			for _, ts := range sp.templates {
				m[ts.signature] = ts
			}
			p.sigs[name] = m
		}
	}
	return p.sigs[svc][sig]
}

// serviceProfile is one service's behaviour over a period.
type serviceProfile struct {
	name    string
	records int
	errors  int
	warns   int
	// ownErrors counts the errors that are its own failures, not symptoms
	// pointing at a dependency (timeouts, open breakers, refused connections).
	ownErrors int
	// followedErrors are its errors taken off ownErrors because they
	// followed its own failed calls to a dependency (markFollowed).
	followedErrors int
	firstErr       time.Time
	firstOwn       time.Time
	templates      map[string]*templateStat
	// selfNs holds the self time (duration less children) of its spans, ns.
	selfNs samples
	// opSelfNs holds the same per operation.
	opSelfNs map[string]*samples
	// peerNs holds the duration of its callers' client spans to it, ns:
	// how it looks from outside, the only view of a third-party dependency.
	peerNs     samples
	peerErrors int
	spans      bool                    // it wrote a span
	versions   map[string]*versionSeen // version -> when first seen (version.go)
	buckets    []int                   // errors per bucket (window only)
}

// templateStat counts one log template of one service.
type templateStat struct {
	template  string
	count     int
	errors    int // records at ERROR or above
	warns     int
	first     time.Time
	sample    string
	signature schema.Signature
	// kind is the failure class of its first record; "" for no failure.
	kind schema.Kind
	// answered is set when that record tells of a dependency it names
	// answering with failure (a 429, a 5xx), or warns about one.
	answered bool
	// after counts its errors that came, in a failing trace, after its
	// service's own failed call to a dependency; followed is set when
	// most did: a bare "500" answered because a call failed.
	after    int
	followed bool
	// logged is the durations its lines state (logged_timing).
	logged *timingStat
	// about is 0 until aboutOther has looked, then 2 when the template
	// names another service of the period, else 1.
	about uint8
}

// own reports whether the template's failures are the service's own rather
// than symptoms pointing at a dependency.
func (ts *templateStat) own() bool {
	return !ts.kind.PointsElsewhere() && !ts.answered && !ts.followed
}

// markFollowed settles which vague error templates (a bare 5xx, an error
// nothing recognises) mostly followed their service's failed calls, and
// takes their errors off the service's own.
func (p *period) markFollowed() {
	for _, sp := range p.services {
		for _, ts := range sp.templates {
			if ts.followed || ts.after*2 <= ts.errors || !ts.own() {
				continue
			}
			ts.followed = true
			sp.ownErrors -= ts.errors
			sp.followedErrors += ts.errors
		}
	}
}

func newPeriod(from, to time.Time) *period {
	return &period{from: from, to: to, services: map[string]*serviceProfile{}}
}

// minutes is how long the period is, counting only the parts with records.
func (p *period) minutes() float64 {
	m := p.to.Sub(p.from).Minutes()
	if len(p.active) > 0 {
		m = min(m, float64(len(p.active)*coverSec)/60)
	}
	if m < 1.0/60 {
		return 1.0 / 60
	}
	return m
}

func (p *period) service(name string) *serviceProfile {
	sp := p.services[name]
	if sp == nil {
		sp = &serviceProfile{name: name, templates: map[string]*templateStat{}, versions: map[string]*versionSeen{}}
		p.services[name] = sp
	}
	return sp
}

// add accounts one record; spans' self time is added separately, per trace.
func (p *period) add(r *schema.Record, buckets int) { p.addN(r, buckets, 1) }

// addN accounts a record that stands for n of its kind: a record of a
// trace in a sample a store drew (readPeriod), counted as many times as
// there are traces the sample stands for. Only records that are not
// alerts (schema.Record.IsAlert) stand for more than one, the stores
// sending every alert: they add n to the period's and their service's
// records and to their template's count and stated durations; what they
// tell once (a name, a version, the time a template was first seen) they
// tell once.
func (p *period) addN(r *schema.Record, buckets, n int) {
	p.records += n
	if p.active == nil {
		p.active = map[int64]struct{}{}
	}
	p.active[r.Time.Unix()/coverSec] = struct{}{}
	if r.Service == "" {
		return
	}
	p.addName(r.Service)
	for _, k := range peerAttrs[:3] { // the names, not the addresses
		if v := r.Attrs[k]; v != "" {
			p.addName(v)
		}
	}
	sp := p.service(r.Service)
	sp.records += n
	sp.addVersions(r)
	if r.Type == schema.TypeSpan {
		sp.spans = true
	}
	isErr := r.IsError()
	if isErr {
		sp.errors += n
		if sp.firstErr.IsZero() || r.Time.Before(sp.firstErr) {
			sp.firstErr = r.Time
		}
		if buckets > 0 {
			sp.bucket(p, r.Time, buckets, n)
		}
	} else if r.Type == schema.TypeLog && r.Severity >= schema.SeverityWarn {
		sp.warns += n
	}
	if r.Type != schema.TypeLog && !isErr {
		return
	}
	tmpl := templateOf(r)
	ts := sp.templates[tmpl]
	if ts == nil {
		ts = &templateStat{template: tmpl, first: r.Time, sample: strings.Clone(r.Body), signature: r.Signature}
		if isErr || r.Severity >= schema.SeverityWarn {
			var target string
			ts.kind, target = correlate.ClassifyTarget(r)
			if target != "" && !strings.Contains(target, ".") { // not a host, not an address
				if p.told == nil {
					p.told = map[string]struct{}{}
				}
				p.told[strings.Clone(target)] = struct{}{} // not a view of the record's block
			}
			// A callee answering with failure (throttling us, a 5xx),
			// and a warning about a callee (a fallback taken for it),
			// are the callee's trouble when the line names it.
			about := ts.kind == schema.KindRateLimit || ts.kind == schema.KindTransient || ts.kind == "" && !isErr
			ts.answered = about && target != "" && !strings.EqualFold(target, r.Service)
		}
		if ts.signature == "" {
			ts.signature = patterns.SignatureOf(r.Service, tmpl)
		}
		sp.templates[tmpl] = ts
	}
	ts.count += n
	if r.Type == schema.TypeLog && !isErr && !sp.spans {
		// A service's own spans time it better (call_timing); only one
		// without spans is timed by its lines (logged_timing).
		ts.addLogged(r, &p.timing, n)
	}
	if isErr {
		ts.errors += n
		if ts.own() {
			sp.ownErrors += n
			if sp.firstOwn.IsZero() || r.Time.Before(sp.firstOwn) {
				sp.firstOwn = r.Time
			}
		}
	} else if r.Severity >= schema.SeverityWarn {
		ts.warns += n
	}
}

func (sp *serviceProfile) bucket(p *period, t time.Time, n, count int) {
	if sp.buckets == nil {
		sp.buckets = make([]int, n)
	}
	i := int(float64(n) * float64(t.Sub(p.from)) / float64(p.to.Sub(p.from)))
	sp.buckets[min(max(i, 0), n-1)] += count
}

// templateOf is the record's template: the masked body computed at ingest,
// or computed here for records that came without one (plain ClickHouse
// tables, spans with an error message).
func templateOf(r *schema.Record) string {
	if r.Template != "" {
		return r.Template
	}
	if r.Body != "" {
		return patterns.Mask(r.Body)
	}
	return r.Name
}

// addSelfTimes computes each span's self time in one trace's records and
// adds it to its service, then its calls' waits and its own work
// (addCallTimes). A leaf span that names the peer it called
// (something uninstrumented) is also reported to onPeer, when not nil.
// The trace stands for w alike (sample.go): each of its samples and
// counts is added w times, its spans indexed once.
func (p *period) addSelfTimes(recs []schema.Record, onPeer func(from, to string, failed bool, n int), w int) {
	p.indexSpans(recs)
	tm := &p.timing
	child := func(id schema.SpanID) time.Duration {
		if j, ok := tm.idx[id]; ok {
			return time.Duration(tm.spans[j].dur)
		}
		return 0
	}
	var calls map[string][]int // per peer without spans, the trace's client spans to it
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan || r.Service == "" {
			continue
		}
		peer := ""
		if child(r.SpanID) == 0 {
			peer = p.peerName(PeerOf(r))
		}
		if peer == "" || peer == r.Service {
			// A call to a peer that left no span of its own: its time is
			// the peer's, not the caller's.
			self := max(r.Duration-child(r.SpanID), 0)
			sp := p.service(r.Service)
			sp.selfNs.add(float64(self), w)
			if sp.opSelfNs == nil {
				sp.opSelfNs = map[string]*samples{}
			}
			op := sp.opSelfNs[r.Name]
			if op == nil {
				op = &samples{}
				sp.opSelfNs[r.Name] = op
			}
			op.add(float64(self), w)
		}
		if peer != "" && peer != r.Service {
			if r.IsError() && r.Body != "" && len(p.failedCalls) < maxFailedCalls {
				if p.failedCalls == nil {
					p.failedCalls = map[string]string{}
				}
				p.failedCalls[strings.Clone(r.Body)] = peer
			}
			if onPeer != nil {
				onPeer(r.Service, peer, r.IsError(), w)
			}
			if calls == nil {
				calls = map[string][]int{}
			}
			calls[peer] = append(calls[peer], i)
			ps := p.service(peer)
			ps.peerNs.add(float64(r.Duration), w)
			if r.IsError() {
				ps.peerErrors += w
			}
		}
	}
	for peer, cs := range calls {
		if len(cs) == 1 && !recs[cs[0]].IsError() {
			p.addStated(recs, &recs[cs[0]], peer, w)
		}
	}
	p.addLogSpans(recs, w)
	p.addUncovered(recs, w)
	p.addCallTimes(recs, w)
}

// peerAttrs are the attributes that name a call's peer, in the order
// PeerOf reads them: names first, then addresses.
var peerAttrs = [...]string{schema.AttrPeerService, "remote.service", "peer", "server.address", "net.peer.name"}

// PeerOf names the service a client span calls, from the attributes that
// say so: the OpenTelemetry conventions' peer.service, then the explicit
// names instrumentations give it (remote.service, peer), then
// server.address or the older net.peer.name; "" when none.
func PeerOf(r *schema.Record) string {
	for _, k := range peerAttrs {
		if v := r.Attrs[k]; v != "" {
			return v
		}
	}
	return ""
}

// quantile of xs (sorted in place), or 0 when empty.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	if !slices.IsSorted(xs) {
		slices.Sort(xs)
	}
	return xs[min(int(q*float64(len(xs))), len(xs)-1)]
}

// addServed counts one trace in served.
func (p *period) addServed(recs []schema.Record) {
	if p.served == nil {
		p.served = map[string]*[2]int{}
	}
	failed := anyError(recs)
	p.svcScratch = appendServices(p.svcScratch[:0], recs)
	for _, svc := range p.svcScratch {
		n := p.served[svc]
		if n == nil {
			n = &[2]int{}
			p.served[svc] = n
		}
		n[0]++
		if failed {
			n[1]++
		}
	}
}
