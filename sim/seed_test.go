package sim

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

func seedCfg(seed int64, faultType string) Config {
	f, topo, _ := seedFaultNamed(faultType)
	return Config{Seed: seed, Fault: f.Kind, FaultType: f.Type, Topology: topo, Baseline: 5 * time.Minute,
		Window: 6 * time.Minute, TracesPerSecond: 3}
}

// checkSeedTruth holds a seed system's truth against its records: every
// failed trace has a fault-caused error after onset, and its origin is the
// root cause, a node of the system.
func checkSeedTruth(t *testing.T, inc *Incident) {
	t.Helper()
	tr := inc.Truth
	nodeNamed(t, inc.g, tr.RootCause.Service)
	if len(tr.FailedTraces) < 10 {
		t.Fatalf("%s seed %d: %d failed traces", tr.Scenario, inc.Config.Seed, len(tr.FailedTraces))
	}
	traces := byTrace(inc)
	for id, tt := range tr.FailedTraces {
		first := firstFaultProblem(inc, traces[id])
		if tt.OriginService != tr.RootCause.Service || first < 0 {
			t.Fatalf("%s trace %s: origin %q, first fault-caused error %d", tr.Scenario, id, tt.OriginService, first)
		}
		if known(inc, first).Before(tr.Onset.Add(-10 * time.Second)) {
			t.Errorf("%s trace %s: first fault-caused error at %v, before onset %v", tr.Scenario, id, known(inc, first), tr.Onset)
		}
	}
}

// TestSeedSystems generates every seed system's own faults and checks the
// truth, the scenario's name and that the same seed gives the same records.
func TestSeedSystems(t *testing.T) {
	for _, topo := range SeedTopologies() {
		for i, f := range TopologyFaults(topo) {
			inc := mustGenerate(t, seedCfg(int64(90300+i), f.Type))
			tr := inc.Truth
			if tr.Topology != topo || tr.RootCause.FaultType != f.Type || tr.RootCause.Kind != f.Kind ||
				tr.Scenario != "sim-"+topo+"-"+f.Type+"-"+strconv.Itoa(90300+i) {
				t.Fatalf("%s %s: truth %+v", topo, f.Type, tr)
			}
			checkSeedTruth(t, inc)
		}
	}
	a := mustGenerate(t, seedCfg(90310, typeHolderAPI))
	b := mustGenerate(t, seedCfg(90310, typeHolderAPI))
	if len(a.Records) != len(b.Records) || a.Records[len(a.Records)/2].Body != b.Records[len(b.Records)/2].Body {
		t.Error("the same seed gave another job queue incident")
	}
}

// TestSeedSystemsTakeEveryFault: every fault of Faults applies to every
// seed system too.
func TestSeedSystemsTakeEveryFault(t *testing.T) {
	for _, topo := range SeedTopologies() {
		for i, f := range Faults() {
			cfg := silentCfg(int64(90400+i), f, topo)
			cfg.Window = 4 * time.Minute
			inc := mustGenerate(t, cfg)
			nodeNamed(t, inc.g, inc.Truth.RootCause.Service)
			few := slowOnly(f.Kind) || f.Kind == schema.KindResourceGC // pauses may stay under every timeout
			if inc.Truth.RootCause.FaultType != f.Type || !few && len(inc.Truth.FailedTraces) == 0 {
				t.Errorf("%s %s: root cause %+v, %d failed traces", topo, f.Type, inc.Truth.RootCause, len(inc.Truth.FailedTraces))
			}
		}
	}
}

func TestSeedConfigChecked(t *testing.T) {
	for _, cfg := range []Config{
		{Topology: topoPayment, Fault: schema.KindBadDeploy, FaultType: typeGatewayTimeout},
		{Topology: topoShop, FaultType: typeNewLabel},
		{Topology: topoEdge, Fault: schema.KindDependencyTimeout, FaultType: typeRegionAPI},
	} {
		if _, err := Generate(cfg); err == nil {
			t.Errorf("Generate(%+v) accepted a seed fault outside its system", cfg)
		}
	}
	for _, sys := range Systems() {
		if topo, ok := SystemTopology(sys); !ok || !slices.Contains(SeedTopologies(), topo) {
			t.Errorf("system %q: topology %q", sys, topo)
		}
	}
	// Without a fault a seed system takes one of its own.
	inc := mustGenerate(t, Config{Seed: 90320, Topology: topoTriage, Baseline: time.Minute, Window: 3 * time.Minute, TracesPerSecond: 1})
	if !slices.Contains(TopologyFaults(topoTriage), Fault{inc.Config.Fault, inc.Config.FaultType}) {
		t.Errorf("triage without a fault took %s %s", inc.Config.Fault, inc.Config.FaultType)
	}
}

var refusalCount = regexp.MustCompile(`(\d+) jobs failed|failed=(\d+)`)

// TestNamespaceBreaker: the job queue refuses claims of a namespace whose
// holders failed its threshold of jobs; the refusal names the namespace,
// not what failed the jobs; the count restarts when a person resets it.
func TestNamespaceBreaker(t *testing.T) {
	inc := mustGenerate(t, seedCfg(90330, typeHolderAPI))
	tr, sys := inc.Truth, inc.g.sys
	var spaces []string
	for _, o := range inc.g.entries[0].ops {
		spaces = append(spaces, o.ns)
	}
	var refusals, faulty, resets int
	for i, r := range inc.Records {
		if r.Type != schema.TypeLog || !slices.ContainsFunc(inc.meta[i].node.ops, func(o *op) bool { return o.gate }) {
			continue // the job queue's own lines
		}
		ns := r.Attrs["job.namespace"]
		switch {
		case strings.Contains(r.Body, "job-breaker-reset") || strings.Contains(r.Body, " reset by "):
			resets++
			if !slices.Contains(spaces, ns) || !strings.Contains(r.Body, ns) {
				t.Errorf("reset %q names namespace %q", r.Body, ns)
			}
		case refusalCount.MatchString(r.Body) && strings.Contains(r.Body, "breaker"):
			refusals++
			m := refusalCount.FindStringSubmatch(r.Body)
			n, _ := strconv.Atoi(m[1] + m[2])
			if !slices.Contains(spaces, ns) || !strings.Contains(r.Body, ns) || n < sys.claims.threshold {
				t.Errorf("refusal %q: namespace %q, %d failed against a threshold of %d", r.Body, ns, n, sys.claims.threshold)
			}
			if strings.Contains(r.Body, tr.RootCause.Service) || r.Attrs[schema.AttrPeerService] != "" {
				t.Errorf("refusal %q names a dependency", r.Body)
			}
			if inc.meta[i].fault {
				faulty++
				if inc.meta[i].at.Before(tr.Onset) {
					t.Errorf("a fault-caused refusal at %v, before onset %v", inc.meta[i].at, tr.Onset)
				}
			}
		}
	}
	if refusals < 20 || faulty*2 < refusals || resets == 0 {
		t.Errorf("%d refusals, %d of them the fault's, %d resets", refusals, faulty, resets)
	}
	// A refused trace reached no stage: the refusal is its only failure, and its origin is the root cause.
	var refusedOnly int
	for id, idx := range byTrace(inc) {
		if _, ok := tr.FailedTraces[id]; !ok {
			continue
		}
		var stage bool
		for _, i := range idx {
			stage = stage || slices.Contains(sys.stages, inc.meta[i].node)
		}
		if !stage {
			refusedOnly++
		}
	}
	if refusedOnly < 10 {
		t.Errorf("%d failed traces end at a refused claim", refusedOnly)
	}
}

// TestClassifierNewLabel: the classifier's new version logs no error and
// shows only as a version (startup lines, new pods); its callers fail at
// other services, quoting them.
func TestClassifierNewLabel(t *testing.T) {
	for _, seed := range []int64{90340, 90341, 90342} {
		inc := mustGenerate(t, seedCfg(seed, typeNewLabel))
		c, p := inc.g.sys.classifier, inc.p
		var started, failedElsewhere int
		for i, r := range inc.Records {
			m := inc.meta[i]
			if m.node == c && (r.Type == schema.TypeLog && r.Severity >= schema.SeverityError || m.fault && r.IsError()) {
				t.Fatalf("seed %d: the classifier wrote %s %q", seed, r.Severity, r.Body)
			}
			if m.node == c && r.Type == schema.TypeLog && strings.Contains(r.Body, c.versions[1]) && m.at.Before(p.onset) {
				started++
			}
			if m.fault && r.Type == schema.TypeLog && r.Severity >= schema.SeverityError && m.node != c {
				failedElsewhere++
			}
		}
		if started == 0 && c.seedStart {
			t.Errorf("seed %d: no startup line names the new version %s", seed, c.versions[1])
		}
		if failedElsewhere < 20 {
			t.Errorf("seed %d: %d errors at the classifier's callers and their callees", seed, failedElsewhere)
		}
		checkSeedTruth(t, inc)
	}
}

// TestRegionBreakerAndFallbacks: the provisioner's breakers are named by
// provider:region, and a failing D1 lookup is logged as an error before
// the router falls back to the Durable Object's state.
func TestRegionBreakerAndFallbacks(t *testing.T) {
	inc := mustGenerate(t, seedCfg(90350, typeRegionAPI))
	key := inc.g.sys.keyOf[inc.p.target]
	var keyed int
	for _, r := range inc.Records {
		if r.Type == schema.TypeLog && strings.Contains(r.Body, key) && strings.Contains(strings.ToLower(r.Body), "open") {
			keyed++
		}
	}
	if !regexp.MustCompile(`^[a-z]+:[a-z0-9-]+$`).MatchString(key) || keyed == 0 {
		t.Errorf("breaker key %q named by %d lines", key, keyed)
	}
	inc = mustGenerate(t, seedCfg(90351, typeD1Down))
	d1, monitor := inc.g.sys.d1, inc.g.sys.monitor
	var lookups, fallbacks int
	for id, idx := range byTrace(inc) {
		if _, ok := inc.Truth.FailedTraces[id]; !ok {
			continue
		}
		var errAt time.Time
		for _, i := range idx {
			r, m := &inc.Records[i], inc.meta[i]
			if r.Type == schema.TypeLog && m.node.role == roleEntry && r.Severity >= schema.SeverityError && m.cause != okay && strings.Contains(r.Body, "Durable Object") {
				errAt = m.at
				lookups++
			}
			if !errAt.IsZero() && m.node == monitor && m.at.After(errAt) {
				fallbacks++
				break
			}
		}
	}
	if lookups < 10 || fallbacks == 0 {
		t.Errorf("%s: %d failed D1 lookups logged as errors, %d followed by the Durable Object", d1.name, lookups, fallbacks)
	}
}

var deadLettered = regexp.MustCompile(`after (\d+) (failed delivery )?attempts`)

// TestDeadLetterQueue: a payment that fails every delivery moves to the
// dead letter queue after the queue's maximum, and the order is cancelled.
func TestDeadLetterQueue(t *testing.T) {
	inc := mustGenerate(t, seedCfg(90360, typeGatewayTimeout))
	q := inc.g.queue
	var moved, cancels int
	for i, r := range inc.Records {
		if m := deadLettered.FindStringSubmatch(r.Body); m != nil && r.Type == schema.TypeLog && inc.meta[i].node == q.consumer.owner {
			moved++
			if m[1] != strconv.Itoa(q.maxDelivery) || !strings.Contains(r.Body, q.deadLetter) && !strings.Contains(r.Body, "DLT") {
				t.Errorf("dead-lettered %q; the queue's maximum is %d, its DLQ %s", r.Body, q.maxDelivery, q.deadLetter)
			}
		}
		if r.Type == schema.TypeSpan && inc.meta[i].node == q.compensation.to && r.Name == q.compensation.toOp.spanName() {
			cancels++
		}
	}
	if moved < 5 || cancels == 0 {
		t.Errorf("%d messages dead-lettered, %d orders cancelled", moved, cancels)
	}
	// Callers name their callees in attributes of their own choosing.
	keys := map[string]bool{}
	for _, r := range inc.Records {
		for _, k := range []string{"remote.service", "peer", schema.AttrPeerService} {
			if r.Attrs[k] != "" {
				keys[k] = true
			}
		}
	}
	checkSeedTruth(t, inc)
	for _, sys := range []string{typeRegionAPI, typeHolderStage} {
		for k := range mustGenerateKeys(t, seedCfg(90361, sys)) {
			keys[k] = true
		}
	}
	if len(keys) < 3 {
		t.Errorf("callees named by %v only", keys)
	}
}

func mustGenerateKeys(t *testing.T, cfg Config) map[string]bool {
	keys := map[string]bool{}
	for _, r := range mustGenerate(t, cfg).Records {
		for _, k := range []string{"remote.service", "peer", schema.AttrPeerService} {
			if r.Attrs[k] != "" {
				keys[k] = true
			}
		}
	}
	return keys
}
