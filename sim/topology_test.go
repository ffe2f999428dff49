package sim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

func topoCfg(seed int64, topo string) Config {
	cfg := small(seed, schema.KindOOM)
	cfg.Topology = topo
	return cfg
}

func TestJobQueueShape(t *testing.T) {
	inc := mustGenerate(t, topoCfg(51, topoJobQueue))
	g := inc.g
	if g.queue == nil || len(g.entries) != 1 || !slices.Contains(jobAPINames(), g.entries[0].name) {
		t.Fatalf("queue %v, entries %d", g.queue, len(g.entries))
	}
	worker := g.queue.consumer.owner
	if !strings.HasSuffix(worker.name, "-worker") || len(worker.pods) < 3 {
		t.Errorf("consumer %s with %d pods, want a pool of workers", worker.name, len(worker.pods))
	}
	var audit, db, services int
	for _, e := range g.queue.consumer.calls {
		switch {
		case slices.Contains(jobAuditNames(), e.to.name):
			audit++
		case e.to.role == roleDatabase:
			db++
		case e.to.role == roleService:
			services++
		}
	}
	if audit != 1 || db == 0 || services < 2 {
		t.Errorf("workers call audit %d, databases %d, services %d", audit, db, services)
	}
	// Traces span producer → queue → worker: a consumer span's parent is a producer span of the API.
	spans := spanIndex(inc)
	var linked int
	for i := range inc.Records {
		r := &inc.Records[i]
		if r.Type == schema.TypeSpan && inc.meta[i].kind == kindConsumer && r.Service == worker.name {
			if p, ok := spans[r.ParentSpanID]; ok && inc.meta[p].kind == kindProducer && inc.Records[p].Service == g.entries[0].name {
				linked++
			}
		}
	}
	if linked == 0 {
		t.Error("no worker span is the child of the API's producer span")
	}
	checkOwnNames(t, g)
}

func TestEdgeShape(t *testing.T) {
	inc := mustGenerate(t, topoCfg(52, topoEdge))
	g := inc.g
	router := g.entries[0]
	if len(g.entries) != 1 || !slices.Contains(edgeRouterNames(), router.name) {
		t.Fatalf("entries %v", g.entries)
	}
	var cached, alt int
	backends := map[string]bool{}
	for _, o := range router.ops {
		for _, e := range o.calls {
			if e.to.role == roleCache && o.hit > 0 {
				cached++
			}
			if e.alt != nil {
				alt++
			}
			if e.to.level == 2 {
				backends[e.to.name] = true
			}
		}
	}
	if cached == 0 || alt == 0 || len(backends) < 2 {
		t.Errorf("routes with a cache %d, with a fallback backend %d, backends %v", cached, alt, backends)
	}
	// A hit answers at once: some router spans have a cache call and no backend call.
	children := map[schema.SpanID][]string{}
	for i := range inc.Records {
		r := &inc.Records[i]
		if r.Type == schema.TypeSpan && r.Service == router.name && inc.meta[i].kind == kindClient {
			children[r.ParentSpanID] = append(children[r.ParentSpanID], r.Attrs[schema.AttrPeerService])
		}
	}
	var hits, misses int
	for _, peers := range children {
		var cache, backend bool
		for _, p := range peers {
			cache = cache || nodeNamed(t, g, p).role == roleCache
			backend = backend || backends[p]
		}
		if cache && !backend {
			hits++
		} else if cache {
			misses++
		}
	}
	if hits == 0 || misses == 0 {
		t.Errorf("%d cache hits, %d misses", hits, misses)
	}
	checkOwnNames(t, g)
}

// checkOwnNames fails when a service of a topology other than the shop
// carries a name from the shop's vocabulary.
func checkOwnNames(t *testing.T, g *graph) {
	t.Helper()
	shop := append(append(businessNames(), entryNames()...), "payment-provider-api", "sms-gateway", "carrier-rates-api",
		"fx-rates-api", "tax-calc-api", "fraud-score-api", "identity-provider", "geo-api", "email-provider")
	for _, n := range g.nodes {
		for _, w := range shop {
			if n.name == w || strings.HasPrefix(n.name, w+"-") || baseName(n) == w {
				t.Errorf("%s: %s has a shop name", g.topology, n.name)
			}
		}
	}
}

// TestEveryFaultEveryTopology injects every fault in every topology and
// holds the truth against the records; the case writes and loads back.
func TestEveryFaultEveryTopology(t *testing.T) {
	for _, topo := range Topologies() {
		for i, f := range Faults() {
			inc := mustGenerate(t, silentCfg(int64(60+i), f, topo))
			if inc.Truth.Topology != topo || inc.Truth.RootCause.FaultType != f.Type {
				t.Fatalf("%s %s: truth says %s %s", topo, f.Type, inc.Truth.Topology, inc.Truth.RootCause.FaultType)
			}
			nodeNamed(t, inc.g, inc.Truth.RootCause.Service)
			if slowOnly(f.Kind) || len(inc.Truth.FailedTraces) >= 10 {
				checkTruth(t, inc)
			} else if len(inc.Truth.FailedTraces) == 0 {
				t.Errorf("%s %s seed %d: no failed traces", topo, f.Type, inc.Config.Seed)
			}
		}
	}
}

func TestTopologyCaseLoads(t *testing.T) {
	for _, topo := range Topologies()[1:] {
		inc := mustGenerate(t, silentCfg(70, Fault{schema.KindNetworkDelay, "network-delay"}, topo))
		dir := t.TempDir()
		if err := inc.WriteCase(dir); err != nil {
			t.Fatal(err)
		}
		p := parseCase(t, dir)
		if p.spans == 0 || p.logs == 0 {
			t.Errorf("%s: %d spans, %d logs in the files", topo, p.spans, p.logs)
		}
		b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
		if err != nil {
			t.Fatal(err)
		}
		var tr Truth
		if err := json.Unmarshal(b, &tr); err != nil || tr.Topology != topo || tr.RootCause.Kind != schema.KindNetworkDelay {
			t.Errorf("%s: truth.json %v: topology %q kind %q", topo, err, tr.Topology, tr.RootCause.Kind)
		}
	}
}

func TestConfigTopologyAndFaultType(t *testing.T) {
	bad := []Config{
		{Topology: "mesh"},
		{Fault: schema.KindOOM, FaultType: typeSilentDB},
		{FaultType: "volcano"},
	}
	for _, cfg := range bad {
		if _, err := Generate(cfg); err == nil {
			t.Errorf("Generate(%+v) accepted a bad config", cfg)
		}
	}
	inc := mustGenerate(t, Config{Seed: 3, FaultType: typeSilentDeploy, Baseline: 1, Window: 3 * 60e9, TracesPerSecond: 0.5})
	if inc.Config.Fault != schema.KindBadDeploy || inc.Truth.Topology != topoShop {
		t.Errorf("fault type alone: fault %q, topology %q", inc.Config.Fault, inc.Truth.Topology)
	}
}
