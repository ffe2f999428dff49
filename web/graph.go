package web

import (
	"fmt"
	"sort"

	"github.com/faultline/faultline/rootcause"
)

// Graph geometry, in SVG user units: nodes in rows by call depth.
const (
	gNodeW  = 150
	gNodeH  = 44
	gColGap = 20
	gRowGap = 46
	gMargin = 12
	// gMaxPerRow wraps a wide layer onto several rows, so the graph stays
	// legible on a laptop instead of shrinking.
	gMaxPerRow = 7
	// gWide is the width above which the graph takes the page's full width.
	gWide = 560
)

// graphView is the service dependency graph, laid out top (callers) to
// bottom (callees), with the failure path from the origin to the edge marked.
type graphView struct {
	W, H   int
	Wide   bool
	Nodes  []gNode
	Edges  []gEdge
	Hidden int
	// Rows are the edges with call times (addTimes), for the table under
	// the map; Slowed the first few that slowed, SlowMore the others.
	Rows     []gEdge
	Slowed   []gEdge
	SlowMore int
}

// gNode is one service box. Role shows as shape and label as well as colour.
type gNode struct {
	Name, Role, RoleLabel string
	X, Y                  int
	Errors                int
	OnPath                bool
	Points                string // the origin's octagon
	LabelX, NameY, RoleY  int
	Href                  string
	Title                 string
}

// gEdge is one caller -> callee arrow. With call times (addTimes), P95
// and BaseP95 are its calls' p95 in the window and the baseline, Slow
// marks an edge whose calls slowed, and Label, when set, is drawn at
// (LabelX, LabelY) on its curve.
type gEdge struct {
	From, To       string
	D              string
	Fail           bool
	Inferred       bool
	Title          string
	Slow           bool
	P95, BaseP95   string
	Label          string
	LabelX, LabelY int
	Calls          int // timed calls in the window
	Errors         int
	ratio          float64
	curve          bezier
}

// newGraphView lays out rep.Edges. At most max services are drawn: those on
// the failure path first, then the busiest.
func newGraphView(rep *rootcause.Report, roles map[string]string, max int) graphView {
	edges := withInferredEdges(rep)
	names := graphServices(rep, edges)
	if len(names) == 0 {
		return graphView{}
	}
	path := failurePath(edges, roles)
	var v graphView
	names, v.Hidden = keepServices(names, rep, path, roles, max)
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	cols := layerServices(names, edges, keep)
	pos := v.place(cols, edges, roles, path)
	v.Wide = v.W > gWide
	for _, e := range edges {
		a, okA := pos[e.From]
		b, okB := pos[e.To]
		if !okA || !okB || e.From == e.To {
			continue
		}
		ge := gEdge{From: e.From, To: e.To, Errors: e.Errors, Fail: path[e.From] && path[e.To] && e.Errors > 0, Inferred: e.Calls == 0,
			Title: fmt.Sprintf("%s → %s: %s, %s", e.From, e.To, plural(e.Calls, "call", "calls"), plural(e.Errors, "error", "errors"))}
		if ge.Inferred {
			ge.Title = fmt.Sprintf("%s → %s: no spans seen, but %s's errors point at %s", e.From, e.To, e.From, e.To)
		}
		ge.D, ge.curve = edgePath(a, b)
		v.Edges = append(v.Edges, ge)
	}
	sort.SliceStable(v.Edges, func(i, j int) bool { return !v.Edges[i].Fail && v.Edges[j].Fail })
	for i := range v.Nodes {
		v.Nodes[i].Href = serviceHref(rep.Window, v.Nodes[i].Name)
	}
	return v
}

// withInferredEdges adds, for the top candidate, a caller -> candidate edge
// for every service whose errors point at it (Candidate.PointedFrom) when
// no span showed that call: an open breaker or a timeout often leaves no
// span at the callee. Inferred edges have Calls == 0.
func withInferredEdges(rep *rootcause.Report) []rootcause.Edge {
	edges := rep.Edges
	if len(rep.Candidates) == 0 || rep.Candidates[0].Service == "" {
		return edges
	}
	top := rep.Candidates[0]
	for _, from := range top.PointedFrom {
		if from == "" || from == top.Service || hasEdge(edges, from, top.Service) {
			continue
		}
		edges = append(edges[:len(edges):len(edges)], rootcause.Edge{From: from, To: top.Service, Errors: max(top.Traces, 1)})
	}
	return edges
}

func hasEdge(edges []rootcause.Edge, from, to string) bool {
	for _, e := range edges {
		if e.From == from && e.To == to {
			return true
		}
	}
	return false
}

// graphServices lists every service in the edges and summaries.
func graphServices(rep *rootcause.Report, edges []rootcause.Edge) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, e := range edges {
		add(e.From)
		add(e.To)
	}
	if len(out) == 0 {
		return nil
	}
	for _, s := range rep.Services {
		add(s.Service)
	}
	return out
}

// failurePath is the set of services on the way from the origin up to the
// entry points: walk callers backwards from the origin while they failed too.
func failurePath(edges []rootcause.Edge, roles map[string]string) map[string]bool {
	path := map[string]bool{}
	var queue []string
	for s, r := range roles {
		if r == "origin" {
			path[s] = true
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, e := range edges {
			if e.To == cur && !path[e.From] && e.Errors > 0 && roles[e.From] != "healthy" {
				path[e.From] = true
				queue = append(queue, e.From)
			}
		}
	}
	return path
}

// keepServices caps the services at max, keeping the failure path first.
func keepServices(names []string, rep *rootcause.Report, path map[string]bool, roles map[string]string, max int) ([]string, int) {
	if len(names) <= max {
		return names, 0
	}
	errs := map[string]int{}
	for _, s := range rep.Services {
		errs[s.Service] = s.Errors
	}
	sort.SliceStable(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if path[a] != path[b] {
			return path[a]
		}
		if ra, rb := rootcause.RoleRank(roles[a]), rootcause.RoleRank(roles[b]); ra != rb {
			return ra < rb
		}
		return errs[a] > errs[b]
	})
	return names[:max], len(names) - max
}

// layerServices puts each service in a row: its longest call depth from
// a service nobody calls. Cycles are cut by bounding the depth.
func layerServices(names []string, edges []rootcause.Edge, keep map[string]bool) [][]string {
	depth := map[string]int{}
	for range len(names) {
		changed := false
		for _, e := range edges {
			if !keep[e.From] || !keep[e.To] || e.From == e.To {
				continue
			}
			if d := depth[e.From] + 1; d > depth[e.To] && d < len(names) {
				depth[e.To], changed = d, true
			}
		}
		if !changed {
			break
		}
	}
	var layers [][]string
	for _, n := range names {
		d := depth[n]
		for len(layers) <= d {
			layers = append(layers, nil)
		}
		layers[d] = append(layers[d], n)
	}
	return wrapRows(layers, edges)
}

// wrapRows splits layers wider than gMaxPerRow onto several rows, ordering
// each layer by its callers first so that related services stay together.
func wrapRows(layers [][]string, edges []rootcause.Edge) [][]string {
	var rows [][]string
	rank := map[string]int{}
	for _, l := range layers {
		sort.SliceStable(l, func(i, j int) bool { return callerRank(l[i], edges, rank) < callerRank(l[j], edges, rank) })
		for len(l) > 0 {
			n := min(len(l), gMaxPerRow)
			rows = append(rows, l[:n])
			l = l[n:]
		}
		for _, r := range rows {
			for i, name := range r {
				rank[name] = i
			}
		}
	}
	return rows
}

// callerRank is the smallest position of any already placed caller of s.
func callerRank(s string, edges []rootcause.Edge, rank map[string]int) int {
	best := 1 << 30
	for _, e := range edges {
		if r, ok := rank[e.From]; ok && e.To == s {
			best = min(best, r)
		}
	}
	return best
}

// place assigns coordinates, one row per call depth, each row ordered by
// where its callers sit to limit crossings; it returns each node's corner.
func (v *graphView) place(rows [][]string, edges []rootcause.Edge, roles map[string]string, path map[string]bool) map[string][2]int {
	pos := map[string][2]int{}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	v.W = gMargin*2 + cols*gNodeW + (cols-1)*gColGap
	v.H = gMargin*2 + len(rows)*gNodeH + (len(rows)-1)*gRowGap
	for ri, r := range rows {
		orderByCallers(r, edges, pos)
		y := gMargin + ri*(gNodeH+gRowGap)
		off := (cols - len(r)) * (gNodeW + gColGap) / 2
		for ci, name := range r {
			x := gMargin + off + ci*(gNodeW+gColGap)
			pos[name] = [2]int{x, y}
			v.Nodes = append(v.Nodes, newGNode(name, roles[name], x, y, path[name]))
		}
	}
	return pos
}

// orderByCallers sorts a row by the mean x of the already placed callers.
func orderByCallers(row []string, edges []rootcause.Edge, pos map[string][2]int) {
	bary := map[string]float64{}
	for _, n := range row {
		sum, k := 0, 0
		for _, e := range edges {
			if p, ok := pos[e.From]; ok && e.To == n {
				sum, k = sum+p[0], k+1
			}
		}
		bary[n] = -1
		if k > 0 {
			bary[n] = float64(sum) / float64(k)
		}
	}
	sort.SliceStable(row, func(i, j int) bool {
		if bary[row[i]] != bary[row[j]] {
			return bary[row[i]] < bary[row[j]]
		}
		return row[i] < row[j]
	})
}

func newGNode(name, role string, x, y int, onPath bool) gNode {
	if role == "" {
		role = "healthy"
	}
	n := gNode{Name: name, Role: role, RoleLabel: roleLabel(role), X: x, Y: y, OnPath: onPath,
		LabelX: x + gNodeW/2, NameY: y + 19, RoleY: y + 35,
	}
	if role == "origin" {
		n.Points = octagon(x, y, gNodeW, gNodeH)
	}
	n.Title = name + " — " + n.RoleLabel
	if onPath {
		n.Title += ", on the failure path"
	}
	return n
}

func octagon(x, y, w, h int) string {
	c := 10
	return fmt.Sprintf("%d,%d %d,%d %d,%d %d,%d %d,%d %d,%d %d,%d %d,%d",
		x+c, y, x+w-c, y, x+w, y+c, x+w, y+h-c, x+w-c, y+h, x+c, y+h, x, y+h-c, x, y+c)
}

// edgePath is a curve from the bottom of the caller to the top of the
// callee, or between their sides when the callee is not below, and its
// four Bézier points (where a label may go).
func edgePath(a, b [2]int) (string, bezier) {
	x1, y1 := a[0]+gNodeW/2, a[1]+gNodeH
	x2, y2 := b[0]+gNodeW/2, b[1]
	c := bezier{{x1, y1}, {x1, (y1 + y2) / 2}, {x2, (y1 + y2) / 2}, {x2, y2 - 4}}
	if y2 <= y1 {
		x1, y1 = a[0]+gNodeW, a[1]+gNodeH/2
		x2, y2 = b[0]+gNodeW, b[1]+gNodeH/2
		c = bezier{{x1, y1}, {x1 + 40, y1}, {x2 + 40, y2}, {x2 + 4, y2}}
	}
	return fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", c[0][0], c[0][1], c[1][0], c[1][1], c[2][0], c[2][1], c[3][0], c[3][1]), c
}

// bezier is a cubic Bézier curve's start, two control points and end.
type bezier [4][2]int

// at is the curve's point at t in [0, 1].
func (c bezier) at(t float64) (x, y int) {
	u := 1 - t
	w := [4]float64{u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t}
	var fx, fy float64
	for i, p := range c {
		fx += w[i] * float64(p[0])
		fy += w[i] * float64(p[1])
	}
	return int(fx + .5), int(fy + .5)
}
