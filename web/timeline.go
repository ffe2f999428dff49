package web

import (
	"net/url"
	"sort"
	"time"

	"github.com/faultline/faultline/rootcause"
)

// Timeline geometry, in SVG user units.
const (
	tlWidth  = 600
	tlHeight = 44
	tlPlot   = 34 // the height the bars may use; the rest is the onset label
)

// timelineView is the per-service error timeline: one small chart per service.
type timelineView struct {
	Rows      []tlRow
	Hidden    int
	FromLabel string
	ToLabel   string
	BucketSec int
}

// tlRow is one service's chart.
type tlRow struct {
	Service, Role, RoleLabel string
	Errors, Records, Peak    int
	Bars                     []tlBar
	HasOnset                 bool
	OnsetX                   string
	OnsetLabel               string
	FilterHref               string
}

// tlBar is one bucket's bar.
type tlBar struct {
	X, Y, W, H string
	Title      string
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
		v.Rows = append(v.Rows, newTLRow(s, roles[s.Service], rep.Window))
	}
	return v
}

func rowLess(a, b rootcause.ServiceSummary, roles map[string]string) bool {
	ra, rb := roleRank(roles[a.Service]), roleRank(roles[b.Service])
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

func roleRank(r string) int {
	switch r {
	case "origin":
		return 0
	case "cascade":
		return 1
	}
	return 2
}

func newTLRow(s rootcause.ServiceSummary, role string, w rootcause.Window) tlRow {
	r := tlRow{Service: s.Service, Role: role, RoleLabel: roleLabel(role), Errors: s.Errors, Records: s.Records,
		FilterHref: "/incident?" + url.Values{"service": {s.Service}}.Encode()}
	for _, n := range s.Buckets {
		r.Peak = max(r.Peak, n)
	}
	if n := len(s.Buckets); n > 0 && r.Peak > 0 {
		bw := float64(tlWidth) / float64(n)
		for i, c := range s.Buckets {
			if c <= 0 {
				continue
			}
			h := max(float64(c)/float64(r.Peak)*tlPlot, 1.5)
			at := w.From.Add(time.Duration(i*s.BucketSec) * time.Second)
			r.Bars = append(r.Bars, tlBar{X: fmtFloat(float64(i) * bw), Y: fmtFloat(tlPlot - h), W: fmtFloat(max(bw-1, 0.5)), H: fmtFloat(h),
				Title: at.UTC().Format("15:04:05") + ": " + plural(c, "error", "errors")})
		}
	}
	span := w.To.Sub(w.From)
	if !s.Onset.IsZero() && span > 0 {
		x := float64(s.Onset.Sub(w.From)) / float64(span) * tlWidth
		r.HasOnset, r.OnsetX = true, fmtFloat(min(max(x, 1), tlWidth-1))
		r.OnsetLabel = "onset " + s.Onset.UTC().Format("15:04:05")
	}
	return r
}
