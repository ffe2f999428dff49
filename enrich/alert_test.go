package enrich

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readFixtureFile(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", name))
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := readFixtureFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t *testing.T, name string) *Group {
	t.Helper()
	g, err := Parse(readFixture(t, name), ParseOptions{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return g
}

func TestParseAlertmanager(t *testing.T) {
	g, err := ParseAlertmanager(readFixture(t, "alertmanager_firing.json"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := Group{Source: SourceAlertmanager, Status: StatusFiring, Title: "CheckoutHighErrorRate",
		Summary: "Checkout error rate above 2% for 5 minutes", Severity: "critical", Service: "checkout",
		RunbookURL: "https://wiki.example.com/runbooks/checkout-high-error-rate", Firing: 2}
	if g.Source != want.Source || g.Status != want.Status || g.Title != want.Title || g.Summary != want.Summary ||
		g.Severity != want.Severity || g.Service != want.Service || g.RunbookURL != want.RunbookURL || g.Firing != want.Firing {
		t.Errorf("got %+v\nwant %+v", g, want)
	}
	if !g.StartsAt.Equal(time.Date(2026, 11, 30, 10, 4, 30, 123e6, time.UTC)) {
		t.Errorf("StartsAt %v, want the earliest alert's start", g.StartsAt)
	}
	if !strings.HasPrefix(g.ID, "alertmanager-") || g.Hash == "" || !strings.Contains(g.Key, "CheckoutHighErrorRate") {
		t.Errorf("id %q hash %q key %q", g.ID, g.Hash, g.Key)
	}
	if !strings.HasPrefix(g.SourceURL, "http://prometheus.shop.svc:9090/graph") {
		t.Errorf("SourceURL %q", g.SourceURL)
	}
}

func TestParseResolvedKeepsGroupAndEnd(t *testing.T) {
	f, r := mustParse(t, "alertmanager_firing.json"), mustParse(t, "alertmanager_resolved.json")
	if r.Status != StatusResolved || r.ID != f.ID || r.Resolved != 2 || r.Firing != 0 {
		t.Errorf("resolved: status %s id %s (firing id %s) resolved %d firing %d", r.Status, r.ID, f.ID, r.Resolved, r.Firing)
	}
	if !r.EndsAt.Equal(time.Date(2026, 11, 30, 10, 28, 15, 0, time.UTC)) {
		t.Errorf("EndsAt %v, want the latest end", r.EndsAt)
	}
	if r.Hash == f.Hash {
		t.Error("a resolution must not look like a resend of the firing")
	}
}

func TestParseGrafana(t *testing.T) {
	g, err := ParseGrafana(readFixture(t, "grafana_firing.json"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Source != SourceGrafana || g.Service != "payment-gateway" || g.Title != "Payment gateway latency p99" ||
		g.Severity != "warning" || g.RunbookURL != "https://wiki.example.com/runbooks/payment-gateway-latency" {
		t.Errorf("got %+v", g)
	}
	if d, _ := Parse(readFixture(t, "grafana_firing.json"), ParseOptions{}); d == nil || d.Source != SourceGrafana {
		t.Error("Parse did not detect Grafana")
	}
}

func TestServiceLabelsConfigurable(t *testing.T) {
	data := readFixture(t, "alertmanager_firing.json")
	g, _ := ParseAlertmanager(data, ParseOptions{ServiceLabels: []string{"team", "service"}})
	if g.Service != "payments" {
		t.Errorf("service %q, want the first configured label (team)", g.Service)
	}
	g, _ = ParseAlertmanager(data, ParseOptions{ServiceLabels: []string{"nope"}})
	if g.Service != "" {
		t.Errorf("service %q, want none", g.Service)
	}
}

func TestParseRejects(t *testing.T) {
	am := string(readFixture(t, "alertmanager_firing.json"))
	cases := map[string]string{
		"garbage":   "not json",
		"version 3": strings.Replace(am, `"version": "4"`, `"version": "3"`, 1),
		"bad status": strings.Replace(am, `"status": "firing",
  "alerts"`, `"status": "pending",
  "alerts"`, 1),
		"no alerts":   `{"version":"4","status":"firing","alerts":[]}`,
		"bad time":    strings.Replace(am, "2026-11-30T10:04:30.123Z", "yesterday", 1),
		"wrong types": `{"version":"4","status":"firing","alerts":{"a":1}}`,
	}
	for name, body := range cases {
		if _, err := ParseAlertmanager([]byte(body), ParseOptions{}); !errors.Is(err, ErrBadAlert) {
			t.Errorf("%s: err %v, want ErrBadAlert", name, err)
		}
	}
	if _, err := ParseAlertmanager([]byte(strings.Replace(am, "2026-11-30T10:04:30.123Z", "<script>", 1)), ParseOptions{}); err == nil || strings.Contains(err.Error(), "<script>") {
		t.Errorf("the error echoes the input: %v", err)
	}
}

func TestWindow(t *testing.T) {
	g := mustParse(t, "alertmanager_firing.json")
	now := time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	from, to := g.Window(now, 15*time.Minute, 6*time.Hour)
	if !from.Equal(g.StartsAt.Add(-15*time.Minute)) || !to.Equal(now) {
		t.Errorf("firing window %v..%v", from, to)
	}
	r := mustParse(t, "alertmanager_resolved.json")
	if _, to := r.Window(now.Add(time.Hour), 15*time.Minute, 6*time.Hour); !to.Equal(r.EndsAt) {
		t.Errorf("resolved window ends %v, want endsAt %v", to, r.EndsAt)
	}
	// Delivered (or replayed) two days later: still the stretch it fired in.
	later := now.Add(48 * time.Hour)
	if from, to := g.Window(later, 15*time.Minute, 6*time.Hour); !from.Equal(g.StartsAt.Add(-15*time.Minute)) || !to.Equal(g.StartsAt.Add(6*time.Hour)) {
		t.Errorf("a long-firing alert's window is %v..%v, want from its start less the look-back to its start plus the cap", from, to)
	}
	if from, to := r.Window(later, 15*time.Minute, 6*time.Hour); !from.Equal(r.StartsAt.Add(-15*time.Minute)) || !to.Equal(r.EndsAt) {
		t.Errorf("a resolved alert replayed later: window %v..%v, want its own %v..%v", from, to, r.StartsAt.Add(-15*time.Minute), r.EndsAt)
	}
}

// TestWindowEdges: an end before the start is ignored, a start in the
// future is now, and the window never ends after now.
func TestWindowEdges(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	lb, cap := 15*time.Minute, 6*time.Hour
	cases := []struct {
		name             string
		starts, ends     time.Time
		wantFrom, wantTo time.Time
	}{
		{"ends before it starts", now.Add(-time.Hour), now.Add(-2 * time.Hour), now.Add(-time.Hour - lb), now},
		{"ends after the cap", now.Add(-48 * time.Hour), now.Add(-30 * time.Hour), now.Add(-48*time.Hour - lb), now.Add(-42 * time.Hour)},
		{"ends in the future", now.Add(-time.Hour), now.Add(time.Hour), now.Add(-time.Hour - lb), now},
		{"starts in the future", now.Add(time.Hour), time.Time{}, now.Add(-lb), now},
		{"no start", time.Time{}, time.Time{}, now.Add(-lb), now},
	}
	for _, c := range cases {
		g := &Group{Status: StatusResolved, StartsAt: c.starts, EndsAt: c.ends}
		from, to := g.Window(now, lb, cap)
		if !from.Equal(c.wantFrom) || !to.Equal(c.wantTo) {
			t.Errorf("%s: window %v..%v, want %v..%v", c.name, from, to, c.wantFrom, c.wantTo)
		}
	}
}
