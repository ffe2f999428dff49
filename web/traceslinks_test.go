package web

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/rootcause"
)

// TestSilentServiceTracesLinks: the incident page narrowed to a service
// links its failing traces; for one that leaves no records of its own
// (in no trace's list of services, so the filter would list none), the
// links list the whole window's and open at its chart, and say why.
func TestSilentServiceTracesLinks(t *testing.T) {
	be := newFixtureBackend()
	be.update(func(r *rootcause.Report) {
		r.Services = append(r.Services, rootcause.ServiceSummary{Service: "fraud-api", Role: "cascade"})
	})
	h := newTestHandler(t, Config{CacheTTL: -1}, be)
	page := getOK(t, h, "/incident?since=1h&service=checkout")
	if want := `id="failing-traces" href="/traces?service=checkout&amp;since=1h&amp;errors=1"`; !strings.Contains(page, want) || strings.Contains(page, "leaves no records of its own: these") {
		t.Errorf("service=checkout: the page lacks %s, or calls checkout silent", want)
	}
	page = getOK(t, h, "/incident?since=1h&service=fraud-api")
	for _, want := range []string{`id="failing-traces" href="/traces?since=1h&amp;errors=1#svc-fraud-api"`,
		`href="/traces?since=1h#svc-fraud-api">All traces`, "fraud-api leaves no records of its own: these list every service"} {
		if !strings.Contains(page, want) {
			t.Errorf("service=fraud-api, which leaves no records: the page lacks %s", want)
		}
	}
}
