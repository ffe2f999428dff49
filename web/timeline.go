package web

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/faultline/faultline/rootcause"
)

// Timeline geometry, in SVG user units: one unit per bucket across, tlPlot
// units up for the peak; the chart is stretched to its box.
const tlPlot = 34

// timelineView is the per-service error timeline: one small chart per service.
type timelineView struct {
	Rows      []tlRow
	Quiet     []tlRow // services without a single error: listed, not charted
	Hidden    int
	FromLabel string
	ToLabel   string
	BucketSec int
}

// tlRow is one service's chart.
type tlRow struct {
	Service, Role, RoleLabel string
	Errors, Records, Peak    int
	Buckets                  int
	Bars                     string // one SVG path for all bars: compact for many services
	HasOnset                 bool
	OnsetX                   string
	OnsetLabel               string
	FilterHref               string
	// TracesHref lists the window's traces through the service: for one
	// that left no records of its own, its callers' calls to it are
	// charted there (requests, errors, p95).
	TracesHref string
	Silent     bool
}

// newTimelineView lays out the services' error buckets, origin first, then
// by onset, then by errors; at most max rows.
func newTimelineView(rep *rootcause.Report, roles map[string]string, max int) timelineView {
	svcs := append([]rootcause.ServiceSummary(nil), rep.Services...)
	sort.SliceStable(svcs, func(i, j int) bool { return rowLess(svcs[i], svcs[j], roles) })
	v := timelineView{FromLabel: fmtClock(rep.Window.From), ToLabel: fmtClock(rep.Window.To)}
	if len(svcs) > max {
		v.Hidden, svcs = len(svcs)-max, svcs[:max]
	}
	for _, s := range svcs {
		if s.BucketSec > 0 {
			v.BucketSec = s.BucketSec
		}
		r := newTLRow(s, roles[s.Service], rep.Window)
		if s.Errors == 0 && r.Peak == 0 && roles[s.Service] != "origin" {
			v.Quiet = append(v.Quiet, r)
			continue
		}
		v.Rows = append(v.Rows, r)
	}
	return v
}

func rowLess(a, b rootcause.ServiceSummary, roles map[string]string) bool {
	ra, rb := rootcause.RoleRank(roles[a.Service]), rootcause.RoleRank(roles[b.Service])
	if ra != rb {
		return ra < rb
	}
	if a.Onset.IsZero() != b.Onset.IsZero() {
		return !a.Onset.IsZero()
	}
	if !a.Onset.Equal(b.Onset) {
		return a.Onset.Before(b.Onset)
	}
	if a.Errors != b.Errors {
		return a.Errors > b.Errors
	}
	return a.Service < b.Service
}

func newTLRow(s rootcause.ServiceSummary, role string, w rootcause.Window) tlRow {
	r := tlRow{Service: s.Service, Role: role, RoleLabel: roleLabel(role), Errors: s.Errors, Records: s.Records,
		FilterHref: serviceHref(w, s.Service), Silent: s.Records == 0}
	q := url.Values{"from": {w.From.UTC().Format(time.RFC3339)}, "to": {w.To.UTC().Format(time.RFC3339)}}
	r.TracesHref = "/traces?" + q.Encode() + "#svc-" + url.PathEscape(s.Service)
	r.Buckets = max(len(s.Buckets), 1)
	r.Bars = barsPath(s.Buckets)
	for _, n := range s.Buckets {
		r.Peak = max(r.Peak, n)
	}
	span := w.To.Sub(w.From)
	if !s.Onset.IsZero() && span > 0 {
		x := float64(s.Onset.Sub(w.From)) / float64(span) * float64(r.Buckets)
		r.HasOnset, r.OnsetX = true, fmtFloat(min(max(x, 0), float64(r.Buckets)))
		r.OnsetLabel = "first error " + s.Onset.UTC().Format("15:04:05")
	}
	return r
}

// barsPath draws every non-empty bucket as a bar scaled to the peak, in one
// path: bucket i spans x = i .. i+0.85, bars grow up from y = tlPlot.
func barsPath(buckets []int) string {
	peak := 0
	for _, n := range buckets {
		peak = max(peak, n)
	}
	if peak == 0 {
		return ""
	}
	var b strings.Builder
	for i, n := range buckets {
		if n <= 0 {
			continue
		}
		h := max(float64(n)/float64(peak)*tlPlot, 1.5)
		fmt.Fprintf(&b, "M%d %dv-%sh.85v%sz", i, tlPlot, fmtFloat(h), fmtFloat(h))
	}
	return b.String()
}
