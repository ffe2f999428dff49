package web

import (
	"strings"
	"testing"
)

func TestTimelineOrderAndQuietServices(t *testing.T) {
	rep := fixtureReport()
	v := newTimelineView(rep, serviceRoles(rep), 40)
	var names []string
	for _, r := range v.Rows {
		names = append(names, r.Service)
	}
	if got := strings.Join(names, ","); got != "payments,checkout,api-gateway,frontend,inventory" {
		t.Errorf("rows = %s, want the origin first, then the cascade by onset, then the rest", got)
	}
	if len(v.Quiet) != 2 || v.Quiet[0].Service != "notifications" || v.Quiet[1].Service != "payments-db" {
		t.Errorf("quiet = %+v", v.Quiet)
	}
	origin := v.Rows[0]
	if !origin.HasOnset || origin.OnsetLabel != "first error 04:08:00" || origin.OnsetX != "38.0" || origin.RoleLabel != "ORIGIN" {
		t.Errorf("origin row = %+v", origin)
	}
}

func TestBarsPath(t *testing.T) {
	if got := barsPath([]int{0, 2, 0, 4}); got != "M1 34v-17.0h.85v17.0zM3 34v-34.0h.85v34.0z" {
		t.Errorf("barsPath = %q", got)
	}
	if got := barsPath([]int{0, 0}); got != "" {
		t.Errorf("empty buckets give %q", got)
	}
	if got := barsPath([]int{1000, 1}); !strings.Contains(got, "v-1.5h") {
		t.Errorf("a tiny bucket must stay visible: %q", got)
	}
}
