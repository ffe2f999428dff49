package rootcause

import (
	"fmt"

	"github.com/faultline/faultline/schema"
)

// kindRule is a rule that may change a candidate's kind once its own
// lines have chosen one (describe, in rank.go), from the service's window
// w and baseline b (nil when none): the kind, and why when it changed it.
type kindRule struct {
	name  string
	apply func(k schema.Kind, w, b *serviceProfile) (schema.Kind, string)
}

// kindRules are the kind rules, in order.
func kindRules() []kindRule {
	return []kindRule{
		{ruleMemoryWeight, weighMemory},
	}
}

// ruleMemoryWeight chooses between the two kinds of memory trouble a
// service's own new lines tell of, GC pauses (resource-gc) and running out
// of memory (oom), by how many lines tell each, not by which ends the
// other alone: one OOM kill among a hundred GC-pause warnings is an
// episode of the pressure the pauses tell of, and a hundred kills are not
// outweighed by a pause. An OOM line counts as oomPauses GC lines: a
// process that is killed for memory logs a few pauses before each kill
// (young and full collections back to back as its heap fills), and its
// restarts bound how often it can be killed.
//
// A process killed for memory often writes nothing as it dies (the kernel
// kills it): it is then seen starting again, on the version it ran
// before, over and over. Each such restart beyond the baseline's counts
// as a kill when the restarts outnumber the out-of-memory lines.
//
// Condition: the kind chosen so far is oom or resource-gc and the
// service's own new error and warning lines tell of GC pauses and of
// kills (lines or restarts); the one whose weight is larger wins, oom on
// a tie. Constant: oomPauses.
// Scenarios: testdata/memory_weight.txtar, memory_weight_restarts.txtar.
const ruleMemoryWeight = "memory_weight"

// oomPauses is how many GC-pause lines one out-of-memory line weighs.
const oomPauses = 10

// weighMemory returns the kind of memory trouble the service's own new
// lines (absent from the baseline b) tell of more, and the evidence that
// says why when it differs from k; k itself when k is no memory kind or
// the lines tell of only one.
func weighMemory(k schema.Kind, w, b *serviceProfile) (schema.Kind, string) {
	if k != schema.KindOOM && k != schema.KindResourceGC {
		return k, ""
	}
	var oom, gc int
	for t, ts := range w.templates {
		if !ts.own() || (b != nil && b.templates[t] != nil) {
			continue
		}
		switch ts.kind {
		case schema.KindOOM:
			oom += ts.errors + ts.warns
		case schema.KindResourceGC:
			gc += ts.errors + ts.warns
		}
	}
	kills, told := oom, plural(oom, "out-of-memory line")
	if n := restarts(w, b); n > oom {
		kills, told = n, fmt.Sprintf("%s on a version it ran before (%s)", plural(n, "restart"), plural(oom, "out-of-memory line"))
	}
	if kills == 0 || gc == 0 {
		return k, ""
	}
	win := schema.KindOOM
	if gc > oomPauses*kills {
		win = schema.KindResourceGC
	}
	if win == k {
		return k, ""
	}
	return win, fmt.Sprintf("its own new lines tell of memory: %s against %s, a kill weighing %d [%s]",
		plural(gc, "GC-pause line"), told, oomPauses, ruleMemoryWeight)
}

// restarts counts the startup lines of the service in the window, beyond
// the baseline's, that name a version the baseline ran: starts that no
// rollout explains.
func restarts(w, b *serviceProfile) int {
	if b == nil {
		return 0
	}
	n := 0
	for v, seen := range w.versions {
		if bs := b.versions[v]; bs != nil && seen.starts > bs.starts {
			n += seen.starts - bs.starts
		}
	}
	return n
}
