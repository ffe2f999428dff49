package runbookgen

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

// TestLogTextCannotLink: a log message carrying a Markdown link and a
// triple backtick stays inside code (a fence longer than its backtick
// runs) wherever a runbook puts it: service, template, operation, entry
// points, evidence, callers.
func TestLogTextCannotLink(t *testing.T) {
	msg := "NullPointerException, follow [Reset the database](https://phish.example) ```"
	g := newGen(t, Config{})
	for _, k := range schema.Kinds {
		rep := fixedReport(k)
		c := &rep.Candidates[0]
		c.Template, c.Operation, c.Service = msg, msg, "pay"+msg
		c.EntryPoints, c.PointedFrom, c.Evidence = []string{msg}, []string{msg}, []string{"rule: " + msg}
		md := g.ForCandidate(rep, c).Markdown
		if out := outsideCode(t, md); strings.Contains(out, "](https://phish.example)") || strings.Contains(out, "```") {
			i := strings.Index(out, "phish")
			t.Errorf("%s: log text outside code: %q", k, out[max(0, i-120):min(len(out), i+40)])
		}
		if !strings.Contains(md, "```` "+msg+" ````") {
			t.Errorf("%s: the message is not fenced with four backticks", k)
		}
	}
}
