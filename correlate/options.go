package correlate

import (
	"slices"
	"time"

	"github.com/faultline/faultline/schema"
)

// Defaults of Options.
const (
	// DefaultMaxSkew is the largest clock-skew correction applied to a span
	// subtree. Hosts of one deployment rarely disagree by more; a larger
	// apparent skew is more likely an async span than a wrong clock.
	DefaultMaxSkew = time.Minute
	// DefaultSkewTolerance is how far a child span may stick out of its
	// parent before it counts as skewed (timer resolution, rounding).
	DefaultSkewTolerance = time.Millisecond
	// DefaultRecordLimit caps the records Analyze reads for one trace.
	DefaultRecordLimit = 100_000
)

// Options tune the analysis. The zero value is the default everywhere.
type Options struct {
	// MaxSkew caps a clock-skew correction: a span that would need a larger
	// shift is left where it is and the trace gets a warning. 0 means
	// DefaultMaxSkew; negative disables clock-skew correction.
	MaxSkew time.Duration
	// SkewTolerance is how far a child may start before or end after its
	// parent without being corrected. 0 means DefaultSkewTolerance.
	SkewTolerance time.Duration
	// SkipTimeline leaves Result.Timeline empty. Incident analysis, which
	// runs over tens of thousands of traces, sets it.
	SkipTimeline bool
	// Steps replaces DefaultSteps when non-nil.
	Steps []Step
	// Limit caps the records Analyze reads; 0 means DefaultRecordLimit.
	Limit int

	// suspectFrom starts the suspect walk at this service's first error
	// that is not a breaker's fast failure, instead of at the origin: what
	// a breaker's dependency failed on in a trace that tripped the breaker.
	suspectFrom string
	// startAt, with suspectFrom, is the failure to start the walk at
	// when the trace holds it: a caller's failed call to a breaker's
	// dependency.
	startAt *hitRef
	// usual lists signatures of errors their services log as often as in
	// the hour before: noise, treated as incidental by the suspect walk.
	usual []schema.Signature
	// Off names rules (Rules) to leave out: tests show with it that each
	// rule decides its own scenario, and `analyze eval --ablate` what each
	// rule is worth. Nil leaves every rule on.
	Off map[string]bool
}

func (o Options) maxSkew() time.Duration {
	if o.MaxSkew == 0 {
		return DefaultMaxSkew
	}
	return o.MaxSkew
}

func (o Options) tolerance() time.Duration {
	if o.SkewTolerance <= 0 {
		return DefaultSkewTolerance
	}
	return o.SkewTolerance
}

func (o Options) isUsual(sig schema.Signature) bool { return slices.Contains(o.usual, sig) }

// hitRef identifies one record of a trace: its service, time and text.
type hitRef struct {
	svc  string
	at   time.Time
	body string
}
