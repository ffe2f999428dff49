package web

import (
	"fmt"
	"net/url"
	"sort"

	"github.com/faultline/faultline/rootcause"
)

// Graph geometry, in SVG user units: nodes in columns by call depth.
const (
	gNodeW  = 150
	gNodeH  = 44
	gColGap = 70
	gRowGap = 22
	gMargin = 16
)

// graphView is the service dependency graph, laid out left (callers) to
// right (callees), with the failure path from the origin to the edge marked.
type graphView struct {
	W, H   int
	Nodes  []gNode
	Edges  []gEdge
	Hidden int
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

// gEdge is one caller -> callee arrow.
type gEdge struct {
	D     string
	Fail  bool
	Title string
}

// newGraphView lays out rep.Edges. At most max services are drawn: those on
// the failure path first, then the busiest.
func newGraphView(rep *rootcause.Report, roles map[string]string, max int) graphView {
	names := graphServices(rep)
	if len(names) == 0 {
		return graphView{}
	}
	path := failurePath(rep.Edges, roles)
	var v graphView
	names, v.Hidden = keepServices(names, rep, path, roles, max)
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	cols := layerServices(names, rep.Edges, keep)
	pos := v.place(cols, roles, path)
	for _, e := range rep.Edges {
		a, okA := pos[e.From]
		b, okB := pos[e.To]
		if !okA || !okB || e.From == e.To {
			continue
		}
		fail := path[e.From] && path[e.To] && e.Errors > 0
		v.Edges = append(v.Edges, gEdge{D: edgePath(a, b), Fail: fail,
			Title: fmt.Sprintf("%s → %s: %s, %s", e.From, e.To, plural(e.Calls, "call", "calls"), plural(e.Errors, "error", "errors"))})
	}
	sort.SliceStable(v.Edges, func(i, j int) bool { return !v.Edges[i].Fail && v.Edges[j].Fail })
	return v
}

// graphServices lists every service in the edges and summaries.
func graphServices(rep *rootcause.Report) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, e := range rep.Edges {
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
		if ra, rb := roleRank(roles[a]), roleRank(roles[b]); ra != rb {
			return ra < rb
		}
		return errs[a] > errs[b]
	})
	return names[:max], len(names) - max
}

// layerServices puts each service in a column: its longest call depth from
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
	var cols [][]string
	for _, n := range names {
		d := depth[n]
		for len(cols) <= d {
			cols = append(cols, nil)
		}
		cols[d] = append(cols[d], n)
	}
	for _, c := range cols {
		sort.Strings(c)
	}
	return cols
}

// place assigns coordinates and builds the nodes; it returns each node's box.
func (v *graphView) place(cols [][]string, roles map[string]string, path map[string]bool) map[string][2]int {
	pos := map[string][2]int{}
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c))
	}
	v.W = gMargin*2 + len(cols)*gNodeW + (len(cols)-1)*gColGap
	v.H = gMargin*2 + rows*gNodeH + (rows-1)*gRowGap
	for ci, c := range cols {
		x := gMargin + ci*(gNodeW+gColGap)
		off := (rows - len(c)) * (gNodeH + gRowGap) / 2
		for ri, name := range c {
			y := gMargin + off + ri*(gNodeH+gRowGap)
			pos[name] = [2]int{x, y}
			v.Nodes = append(v.Nodes, newGNode(name, roles[name], x, y, path[name]))
		}
	}
	return pos
}

func newGNode(name, role string, x, y int, onPath bool) gNode {
	if role == "" {
		role = "healthy"
	}
	n := gNode{Name: name, Role: role, RoleLabel: roleLabel(role), X: x, Y: y, OnPath: onPath,
		LabelX: x + gNodeW/2, NameY: y + 19, RoleY: y + 35,
		Href: "/incident?" + url.Values{"service": {name}}.Encode()}
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

// edgePath is a curve from the right side of the caller to the left side
// of the callee (or back round when the callee is not to the right).
func edgePath(a, b [2]int) string {
	x1, y1 := a[0]+gNodeW, a[1]+gNodeH/2
	x2, y2 := b[0], b[1]+gNodeH/2
	if x2 <= x1 {
		x2 = b[0] + gNodeW/2
		y2 = b[1]
		if b[1] < a[1] {
			y2 = b[1] + gNodeH
		}
	}
	mx := (x1 + x2) / 2
	return fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, mx, y1, mx, y2, x2-4, y2)
}
