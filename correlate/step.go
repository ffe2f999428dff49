package correlate

// Step is one stage of the per-trace analysis. Steps run in order over the
// same *Trace; each reads what earlier steps left and adds its own part.
// A step never fails: a problem it cannot fix becomes a warning
// (Trace.Warnf) and the analysis goes on with what it has.
type Step interface {
	Apply(t *Trace)
}

// Func adapts a plain function to Step.
type Func func(t *Trace)

// Apply calls f(t).
func (f Func) Apply(t *Trace) { f(t) }

// DefaultSteps is the standard pipeline, in the order the steps depend on
// each other: dedupe, span tree, clock-skew correction, classification,
// causal order, origin and cascade, suspect. The slice is new on every call;
// callers may reorder, drop or append steps.
func DefaultSteps() []Step {
	return []Step{
		Func(dedupe),
		Func(buildSpanTree),
		Func(correctClockSkew),
		Func(classifyRecords),
		Func(causalOrder),
		Func(findOriginAndCascade),
		Func(findSuspect),
	}
}

// runDefaultSteps is DefaultSteps without building the slice, for the
// hot path of incident analysis. Keep the two in the same order.
func runDefaultSteps(t *Trace) {
	dedupe(t)
	buildSpanTree(t)
	correctClockSkew(t)
	classifyRecords(t)
	causalOrder(t)
	findOriginAndCascade(t)
	findSuspect(t)
}
