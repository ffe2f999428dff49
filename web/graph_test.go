package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/faultline/faultline/rootcause"
)

func TestGraphLayoutAndFailurePath(t *testing.T) {
	rep := fixtureReport()
	g := newGraphView(rep, serviceRoles(rep), 40)
	y := map[string]int{}
	roles := map[string]string{}
	for _, n := range g.Nodes {
		y[n.Name], roles[n.Name] = n.Y, n.Role
	}
	// Callers sit above their callees.
	for _, e := range rep.Edges {
		if y[e.From] >= y[e.To] {
			t.Errorf("%s (y=%d) is not above its callee %s (y=%d)", e.From, y[e.From], e.To, y[e.To])
		}
	}
	if roles["payments"] != "origin" || roles["checkout"] != "cascade" || roles["inventory"] != "healthy" {
		t.Errorf("roles = %v", roles)
	}
	fail := 0
	for _, e := range g.Edges {
		if e.Fail {
			fail++
			if !strings.Contains(e.Title, "frontend → api-gateway") && !strings.Contains(e.Title, "api-gateway → checkout") && !strings.Contains(e.Title, "checkout → payments") {
				t.Errorf("unexpected failure-path edge %q", e.Title)
			}
		}
	}
	if fail != 3 {
		t.Errorf("%d failure-path edges, want 3 (frontend → api-gateway → checkout → payments)", fail)
	}
}

func TestGraphInfersEdgesFromPointers(t *testing.T) {
	rep := fixtureReport()
	rep.Edges = rep.Edges[:2] // frontend -> api-gateway -> checkout; no span reached payments
	rep.Candidates[0].PointedFrom = []string{"checkout"}
	g := newGraphView(rep, serviceRoles(rep), 40)
	var inferred []gEdge
	for _, e := range g.Edges {
		if e.Inferred {
			inferred = append(inferred, e)
		}
	}
	if len(inferred) != 1 || !inferred[0].Fail || !strings.Contains(inferred[0].Title, "checkout → payments") {
		t.Errorf("inferred edges = %+v, want checkout → payments on the failure path", inferred)
	}
}

func TestGraphWrapsAndCaps(t *testing.T) {
	rep := &rootcause.Report{}
	for i := range 30 {
		rep.Edges = append(rep.Edges, rootcause.Edge{From: "gateway", To: fmt.Sprintf("svc-%02d", i), Calls: 1})
	}
	g := newGraphView(rep, serviceRoles(rep), 20)
	if len(g.Nodes) != 20 || g.Hidden != 11 {
		t.Errorf("nodes %d hidden %d, want 20 and 11", len(g.Nodes), g.Hidden)
	}
	if g.W > gMargin*2+gMaxPerRow*(gNodeW+gColGap) {
		t.Errorf("graph is %d wide; rows should wrap at %d nodes", g.W, gMaxPerRow)
	}
	if !g.Wide {
		t.Errorf("a %d-wide graph should take the full width", g.W)
	}
	// A cycle must not hang or explode the layering.
	rep = &rootcause.Report{Edges: []rootcause.Edge{{From: "a", To: "b", Calls: 1}, {From: "b", To: "a", Calls: 1}, {From: "b", To: "b", Calls: 1}}}
	if g := newGraphView(rep, serviceRoles(rep), 40); len(g.Nodes) != 2 {
		t.Errorf("cycle: %d nodes", len(g.Nodes))
	}
}
