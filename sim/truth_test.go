package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// originLogsFirst lists the kinds whose faulty service itself writes the
// first sign of trouble in every failed trace.
func originLogsFirst(k schema.Kind) bool {
	return k == schema.KindDBPoolExhaustion || k == schema.KindBadDeploy || k == schema.KindPoisonMessage
}

func TestEveryFaultKind(t *testing.T) {
	for _, k := range FaultKinds() {
		t.Run(string(k), func(t *testing.T) {
			for seed := int64(1); seed <= 3; seed++ {
				checkTruth(t, mustGenerate(t, small(seed, k)))
			}
		})
	}
}

// checkTruth holds the truth of an incident against its records.
func checkTruth(t *testing.T, inc *Incident) {
	t.Helper()
	tr := inc.Truth
	if tr.RootCause.Kind != inc.Config.Fault || tr.RootCause.Service == "" || tr.RootCause.FaultType == "" {
		t.Fatalf("seed %d: root cause %+v", inc.Config.Seed, tr.RootCause)
	}
	if tr.Onset.Before(tr.Window.From) || !tr.Onset.Before(tr.Window.To) {
		t.Errorf("seed %d: onset %v outside window %v", inc.Config.Seed, tr.Onset, tr.Window)
	}
	traces := byTrace(inc)
	if slowOnly(tr.RootCause.Kind) { // few or no failed traces; their origin is the silent target
		for id, tt := range tr.FailedTraces {
			first := firstFaultError(inc, traces[id])
			if first < 0 || tt.OriginService != tr.RootCause.Service {
				t.Fatalf("%s trace %s: origin %q (root cause %s), first fault-caused error %d", tr.RootCause.Kind, id, tt.OriginService, tr.RootCause.Service, first)
			}
			if inc.Records[first].Service == tt.OriginService {
				t.Fatalf("%s trace %s: the silent target %s wrote the first error", tr.RootCause.Kind, id, tt.OriginService)
			}
		}
		return
	}
	if len(tr.FailedTraces) < 10 {
		t.Fatalf("seed %d: only %d failed traces", inc.Config.Seed, len(tr.FailedTraces))
	}
	points := upstream(inc.g, nodeNamed(t, inc.g, tr.RootCause.Service))
	var originFirst int
	for id, tt := range tr.FailedTraces {
		if tt.OriginService != tr.RootCause.Service || len(id) != 32 {
			t.Fatalf("trace %s: origin %q, root cause %q", id, tt.OriginService, tr.RootCause.Service)
		}
		first := firstFaultProblem(inc, traces[id])
		if first < 0 {
			t.Fatalf("failed trace %s has no fault-caused error", id)
		}
		r := &inc.Records[first]
		if known(inc, first).Before(tr.Onset) {
			t.Errorf("trace %s: first fault record at %v, before onset %v", id, known(inc, first), tr.Onset)
		}
		if r.Service == tt.OriginService {
			originFirst++
		} else if !points[r.Attrs[schema.AttrPeerService]] && !silentlyPoints(inc, r) {
			t.Errorf("%s trace %s: first fault record by %s points at %q, not at the origin %s or its callers",
				tr.RootCause.Kind, id, r.Service, r.Attrs[schema.AttrPeerService], tt.OriginService)
		}
	}
	// Where the origin itself fails, it logs first in the failed traces that
	// reached it; the others fail fast at an open breaker or a full bulkhead.
	if originLogsFirst(tr.RootCause.Kind) && tr.RootCause.FaultType == faultTypes(tr.RootCause.Kind)[0] && originFirst*10 < 9*reached(inc, traces) {
		t.Errorf("%s seed %d: origin %s logged first in %d of %d failed traces it took part in",
			tr.RootCause.Kind, inc.Config.Seed, tr.RootCause.Service, originFirst, reached(inc, traces))
	}
}

// slowOnly lists the kinds that only slow their target down: the target
// writes no error, and the first fault-caused error of a failed trace is a
// caller's.
func slowOnly(k schema.Kind) bool {
	return k == schema.KindNetworkDelay || k == schema.KindCPUStarvation
}

// firstFaultError is the fault-caused error of a trace known first (true time).
func firstFaultError(inc *Incident, idx []int) int {
	best := -1
	for _, i := range idx {
		if inc.meta[i].fault && inc.Records[i].IsError() && (best < 0 || known(inc, i).Before(known(inc, best))) {
			best = i
		}
	}
	return best
}

// firstFaultProblem is the first (true time) fault-caused error or warning of a trace.
func firstFaultProblem(inc *Incident, idx []int) int {
	for _, i := range idx {
		if inc.meta[i].fault && isProblem(&inc.Records[i]) {
			return i
		}
	}
	return -1
}

func TestOriginPrecedesCallers(t *testing.T) {
	for _, k := range []schema.Kind{schema.KindDBPoolExhaustion, schema.KindBadDeploy, schema.KindRateLimit} {
		inc := mustGenerate(t, small(21, k))
		traces := byTrace(inc)
		origin := inc.Truth.RootCause.Service
		var checked int
		for id := range inc.Truth.FailedTraces {
			if rejectedFast(inc, traces[id]) {
				continue // an open breaker or a full bulkhead fails before the origin is called
			}
			o, c := firstProblemBy(inc, traces[id], func(s string) bool { return s == origin })
			if o.IsZero() || c.IsZero() {
				continue
			}
			checked++
			if !o.Before(c) {
				t.Errorf("%s trace %s: origin's first problem at %v, a caller's at %v", k, id, o, c)
			}
		}
		if checked == 0 {
			t.Errorf("%s: no failed trace with problems at both the origin and a caller", k)
		}
	}
}

// firstProblemBy returns the true times of the first fault-caused problem
// by a service that isOrigin and by any other service.
func firstProblemBy(inc *Incident, idx []int, isOrigin func(string) bool) (origin, other time.Time) {
	for _, i := range idx {
		r := &inc.Records[i]
		if !isProblem(r) || !inc.meta[i].fault {
			continue
		}
		at := known(inc, i)
		if isOrigin(r.Service) && origin.IsZero() {
			origin = at
		} else if !isOrigin(r.Service) && other.IsZero() {
			other = at
		}
	}
	return origin, other
}

func TestNoFaultInBaseline(t *testing.T) {
	for _, k := range FaultKinds() {
		inc := mustGenerate(t, small(8, k))
		for i := range inc.Records {
			if inc.meta[i].fault && inc.Records[i].IsError() && known(inc, i).Before(inc.Truth.Onset) {
				t.Errorf("%s: fault error before onset at %v: %s", k, known(inc, i), inc.Records[i].Body)
				break
			}
		}
	}
}

func TestNoiseServicesLogErrorInBaseline(t *testing.T) {
	inc := mustGenerate(t, small(4, schema.KindResourceGC))
	noisy := map[string]bool{}
	for _, n := range inc.g.nodes {
		if n.noisy {
			noisy[n.name] = true
		}
	}
	if len(noisy) == 0 || noisy[inc.Truth.RootCause.Service] {
		t.Fatalf("noisy services %v, root cause %s", noisy, inc.Truth.RootCause.Service)
	}
	base, window := map[string]int{}, map[string]int{}
	for i := range inc.Records {
		r := &inc.Records[i]
		if r.Type != schema.TypeLog || r.Severity < schema.SeverityError || !noisy[r.Service] || inc.meta[i].fault {
			continue
		}
		if inc.meta[i].at.Before(inc.Truth.Window.From) {
			base[r.Service]++
		} else {
			window[r.Service]++
		}
	}
	for s := range noisy {
		// Baseline and window are both five minutes long: similar counts.
		if base[s] < 20 || window[s] < 20 || base[s] > 3*window[s] || window[s] > 3*base[s] {
			t.Errorf("noisy %s: %d errors in baseline, %d in window", s, base[s], window[s])
		}
	}
}

func TestSkewedClocks(t *testing.T) {
	inc := mustGenerate(t, small(6, schema.KindOOM))
	var maxSkew time.Duration
	for i := range inc.Records {
		d := inc.Records[i].Time.Sub(inc.meta[i].at)
		maxSkew = max(maxSkew, d, -d)
	}
	if maxSkew < 100*time.Millisecond || maxSkew > inc.Config.MaxSkew {
		t.Errorf("largest clock skew %v, want between 100ms and %v", maxSkew, inc.Config.MaxSkew)
	}
}

func TestSomeTracesHaveNoSpans(t *testing.T) {
	inc := mustGenerate(t, small(7, schema.KindBadDeploy))
	spans := map[schema.TraceID]bool{}
	logs := map[schema.TraceID]bool{}
	for i := range inc.Records {
		r := &inc.Records[i]
		if r.Type == schema.TypeSpan {
			spans[r.TraceID] = true
		} else if r.TraceID != "" {
			logs[r.TraceID] = true
		}
	}
	var spanless int
	for id := range logs {
		if !spans[id] {
			spanless++
		}
	}
	if share := float64(spanless) / float64(len(logs)); share < 0.1 || share > 0.4 {
		t.Errorf("%.2f of traces have no spans, want about %.2f", share, inc.Config.SpanlessShare)
	}
}

// rejectedFast reports whether a trace holds a call rejected by an open
// breaker or a full bulkhead.
func rejectedFast(inc *Incident, idx []int) bool {
	for _, i := range idx {
		if c := inc.meta[i].cause; c == failBreaker || c == failBulkhead {
			return true
		}
	}
	return false
}

// reached counts the failed traces not rejected fast in which the origin
// wrote a fault-caused problem.
func reached(inc *Incident, traces map[schema.TraceID][]int) int {
	k := 0
	for id := range inc.Truth.FailedTraces {
		if rejectedFast(inc, traces[id]) {
			continue
		}
		for _, i := range traces[id] {
			if inc.meta[i].fault && isProblem(&inc.Records[i]) && inc.Records[i].Service == inc.Truth.RootCause.Service {
				k++
				break
			}
		}
	}
	return k
}

// silentlyPoints reports whether a silent variant's first fault record
// points at its cause in that variant's own way: a caller naming the API
// by server.address or URL, the callee rejecting the deployed service's calls.
func silentlyPoints(inc *Incident, r *schema.Record) bool {
	switch inc.Truth.RootCause.FaultType {
	case typeSilentAPI:
		host := externalHost(inc.Truth.RootCause.Service)
		return r.Attrs["server.address"] == host || strings.Contains(r.Attrs["url.full"], host)
	case typeSilentDeploy:
		return r.Service == inc.p.badEdge.to.name
	}
	return false
}
