package sim

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// silentCfg is a small incident of fault f in topology topo.
func silentCfg(seed int64, f Fault, topo string) Config {
	cfg := small(seed, f.Kind)
	cfg.FaultType, cfg.Topology = f.Type, topo
	return cfg
}

// spanIndex maps span id to record index, for spans only.
func spanIndex(inc *Incident) map[schema.SpanID]int {
	out := map[schema.SpanID]int{}
	for i := range inc.Records {
		if inc.Records[i].Type == schema.TypeSpan {
			out[inc.Records[i].SpanID] = i
		}
	}
	return out
}

// selfTimes are the self times (duration less the time its client spans
// cover) of svc's server and consumer spans started in [from, to), true time.
func selfTimes(inc *Incident, svc string, from, to time.Time) []time.Duration {
	type iv struct{ from, to time.Time }
	children := map[schema.SpanID][]iv{}
	for i := range inc.Records {
		r := &inc.Records[i]
		if r.Type == schema.TypeSpan && r.Service == svc && inc.meta[i].kind != kindServer && inc.meta[i].kind != kindConsumer {
			children[r.ParentSpanID] = append(children[r.ParentSpanID], iv{inc.meta[i].at, inc.meta[i].at.Add(r.Duration)})
		}
	}
	var out []time.Duration
	for i := range inc.Records {
		r := &inc.Records[i]
		at := inc.meta[i].at
		if r.Type != schema.TypeSpan || r.Service != svc || (inc.meta[i].kind != kindServer && inc.meta[i].kind != kindConsumer) ||
			at.Before(from) || !at.Before(to) {
			continue
		}
		cs := children[r.SpanID]
		slices.SortFunc(cs, func(a, b iv) int { return a.from.Compare(b.from) })
		self, cur := r.Duration, at
		for _, c := range cs { // subtract the union of the children
			if c.from.After(cur) {
				cur = c.from
			}
			if c.to.After(cur) {
				self -= c.to.Sub(cur)
				cur = c.to
			}
		}
		out = append(out, self)
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// fullStrength is the stretch of the window in which the fault acts at full strength.
func fullStrength(inc *Incident) (time.Time, time.Time) {
	to := inc.Truth.Window.To
	if inc.p.end.Before(to) {
		to = inc.p.end
	}
	return inc.p.onset.Add(inc.p.ramp), to
}

// tracedTarget generates incidents of cfg from its seed on until the
// target exports spans.
func tracedTarget(t *testing.T, cfg Config) *Incident {
	t.Helper()
	for i := 0; i < 20; i++ {
		inc := mustGenerate(t, cfg)
		if inc.p.target.traced {
			return inc
		}
		cfg.Seed++
	}
	t.Fatalf("no traced target from seed %d on", cfg.Seed)
	return nil
}

// checkQuiet fails when the target wrote a fault-caused warning or error,
// or a line naming its fault.
func checkQuiet(t *testing.T, inc *Incident, words ...string) {
	t.Helper()
	target := inc.Truth.RootCause.Service
	for i := range inc.Records {
		r := &inc.Records[i]
		if r.Service != target {
			continue
		}
		if inc.meta[i].fault && isProblem(r) {
			t.Fatalf("%s: target %s wrote a fault-caused problem: %s", inc.Truth.RootCause.FaultType, target, r.Body)
		}
		for _, w := range words {
			if r.Type == schema.TypeLog && strings.Contains(strings.ToLower(r.Body), w) {
				t.Fatalf("%s: target %s logs about its fault: %s", inc.Truth.RootCause.FaultType, target, r.Body)
			}
		}
	}
}

func TestNetworkDelayIsSilent(t *testing.T) {
	for _, topo := range Topologies() {
		inc := tracedTarget(t, silentCfg(31, Fault{schema.KindNetworkDelay, "network-delay"}, topo))
		target := inc.Truth.RootCause.Service
		checkQuiet(t, inc, "network", "latency", "delay")
		from, to := fullStrength(inc)
		base := median(selfTimes(inc, target, inc.Truth.Baseline.From, inc.Truth.Baseline.To))
		win := median(selfTimes(inc, target, from, to))
		if base == 0 || win == 0 || win > base*3/2 || win < base/2 {
			t.Errorf("%s: target %s self time %v in the window, %v in the baseline; want about the same", topo, target, win, base)
		}
		// The wire: a caller's client span less the target's server span under it.
		spans := spanIndex(inc)
		gaps := map[bool]map[string][]time.Duration{false: {}, true: {}}
		for i := range inc.Records {
			r := &inc.Records[i]
			if r.Type != schema.TypeSpan || r.Service != target || inc.meta[i].kind != kindServer {
				continue
			}
			c, ok := spans[r.ParentSpanID]
			if !ok || inc.Records[c].Service == target {
				continue
			}
			at := inc.meta[c].at
			inWindow := !at.Before(from) && at.Before(to)
			if inWindow || at.Before(inc.Truth.Baseline.To) {
				gaps[inWindow][r.Attrs[schema.AttrPod]] = append(gaps[inWindow][r.Attrs[schema.AttrPod]], inc.Records[c].Duration-r.Duration)
			}
		}
		var worst time.Duration
		for _, g := range gaps[true] {
			worst = max(worst, median(g))
		}
		var baseGap []time.Duration
		for _, g := range gaps[false] {
			baseGap = append(baseGap, g...)
		}
		if b := median(baseGap); b > 10*time.Millisecond || worst < 20*time.Millisecond {
			t.Errorf("%s: callers' wait on %s beyond its own span: %v at worst in the window, %v in the baseline", topo, target, worst, b)
		}
	}
}

func TestCPUStarvationIsSilent(t *testing.T) {
	for _, topo := range Topologies() {
		inc := tracedTarget(t, silentCfg(32, Fault{schema.KindCPUStarvation, "cpu-starvation"}, topo))
		target := nodeNamed(t, inc.g, inc.Truth.RootCause.Service)
		checkQuiet(t, inc, "cpu", "throttl", "starv")
		from, to := fullStrength(inc)
		base := median(selfTimes(inc, target.name, inc.Truth.Baseline.From, inc.Truth.Baseline.To))
		win := median(selfTimes(inc, target.name, from, to))
		if win < 2*base {
			t.Errorf("%s: target %s self time %v in the window, %v in the baseline; want it much slower", topo, target.name, win, base)
		}
		for _, d := range target.deps {
			if d.role != roleService {
				continue
			}
			b := median(selfTimes(inc, d.name, inc.Truth.Baseline.From, inc.Truth.Baseline.To))
			w := median(selfTimes(inc, d.name, from, to))
			if w > b*3/2+time.Millisecond {
				t.Errorf("%s: callee %s of the starved %s slowed too: %v, baseline %v", topo, d.name, target.name, w, b)
			}
		}
	}
}

func TestSilentDatabase(t *testing.T) {
	for _, topo := range Topologies() {
		inc := mustGenerate(t, silentCfg(33, Fault{schema.KindDependencyTimeout, typeSilentDB}, topo))
		db := inc.Truth.RootCause.Service
		if nodeNamed(t, inc.g, db).role != roleDatabase {
			t.Fatalf("%s: root cause %s is not a database", topo, db)
		}
		var named, timeouts int
		for i := range inc.Records {
			r := &inc.Records[i]
			if r.Service == db {
				t.Fatalf("%s: database %s wrote a record of its own: %+v", topo, db, r)
			}
			if r.Attrs[schema.AttrPeerService] == db {
				named++
				if r.Type == schema.TypeLog && r.Severity >= schema.SeverityError && inc.meta[i].fault {
					timeouts++
				}
			}
		}
		if named == 0 || timeouts == 0 || len(inc.Truth.FailedTraces) < 5 {
			t.Errorf("%s: %d records name %s as peer.service, %d fault errors, %d failed traces", topo, named, db, timeouts, len(inc.Truth.FailedTraces))
		}
	}
}

func TestSilentAPISpellings(t *testing.T) {
	for _, topo := range Topologies() {
		inc := mustGenerate(t, silentCfg(34, Fault{schema.KindDependencyTimeout, typeSilentAPI}, topo))
		api := inc.Truth.RootCause.Service
		host := externalHost(api)
		spellers := map[string]map[string]bool{} // spelling → services using it
		for i := range inc.Records {
			r := &inc.Records[i]
			if r.Service == api {
				t.Fatalf("%s: the API %s wrote a record of its own", topo, api)
			}
			var sp string
			switch {
			case r.Attrs[schema.AttrPeerService] == api:
				sp = "peer.service"
			case r.Attrs["server.address"] == host:
				sp = "server.address"
			case strings.Contains(r.Attrs["url.full"], host):
				sp = "url"
			default:
				continue
			}
			if spellers[sp] == nil {
				spellers[sp] = map[string]bool{}
			}
			spellers[sp][r.Service] = true
		}
		if len(spellers["peer.service"]) == 0 || len(spellers) < 2 {
			t.Errorf("%s: %s is spelled %v", topo, api, spellers)
		}
		for sp, svcs := range spellers {
			for s := range svcs {
				for other, o := range spellers {
					if other != sp && o[s] {
						t.Errorf("%s: %s names %s both as %s and %s", topo, s, api, sp, other)
					}
				}
			}
		}
	}
}

func TestSilentDeploy(t *testing.T) {
	for _, topo := range Topologies() {
		inc := mustGenerate(t, silentCfg(35, Fault{schema.KindBadDeploy, typeSilentDeploy}, topo))
		n := nodeNamed(t, inc.g, inc.Truth.RootCause.Service)
		oldPods, newPods := map[string]bool{}, map[string]bool{}
		var callee int
		errs := map[bool]int{} // the deployed service's errors: in the window or not
		for i := range inc.Records {
			r := &inc.Records[i]
			if r.Service != n.name {
				if r.Type == schema.TypeLog && r.Severity >= schema.SeverityError && inc.meta[i].fault {
					callee++
				}
				continue
			}
			if r.Attrs[schema.AttrServiceVersion] == n.versions[1] {
				newPods[r.Attrs[schema.AttrPod]] = true
				if inc.meta[i].at.Before(inc.Truth.Window.From) {
					t.Fatalf("%s: new version %s in the baseline at %v", topo, n.versions[1], inc.meta[i].at)
				}
			} else {
				oldPods[r.Attrs[schema.AttrPod]] = true
			}
			if r.Type == schema.TypeLog && r.Severity >= schema.SeverityWarn && inc.meta[i].fault {
				t.Fatalf("%s: deployed %s logged %s", topo, n.name, r.Body)
			}
			if r.Type == schema.TypeLog && r.Severity >= schema.SeverityError {
				errs[!inc.meta[i].at.Before(inc.Truth.Window.From)]++
			}
		}
		for p := range newPods {
			if oldPods[p] {
				t.Errorf("%s: pod %s runs both versions; a rollout makes new pods", topo, p)
			}
		}
		if errs[true] > 2*errs[false]+3 { // baseline and window are as long
			t.Errorf("%s: deployed %s logged %d errors in the window, %d in the baseline", topo, n.name, errs[true], errs[false])
		}
		if len(newPods) == 0 || callee < 3 {
			t.Errorf("%s: %d new pods, %d fault errors by other services", topo, len(newPods), callee)
		}
	}
}

// A silent database's name is in the files a case writes (a client span's
// peer.service, a structured line's attribute): an incident whose cause is
// named nowhere in the data is one no analysis could name.
func TestSilentDatabaseIsNamedInTheFiles(t *testing.T) {
	for _, topo := range Topologies() {
		for seed := int64(40); seed < 44; seed++ {
			inc := mustGenerate(t, silentCfg(seed, Fault{schema.KindDependencyTimeout, typeSilentDB}, topo))
			db := inc.Truth.RootCause.Service
			dir := t.TempDir()
			if err := inc.WriteCase(dir); err != nil {
				t.Fatal(err)
			}
			if !filesMention(t, dir, db) {
				t.Errorf("%s seed %d: no file but truth.json names the database %s", topo, seed, db)
			}
		}
	}
}

// filesMention reports whether a case file other than truth.json holds s.
func filesMention(t *testing.T, dir, s string) bool {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Name() == "truth.json" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.Name(), ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}
