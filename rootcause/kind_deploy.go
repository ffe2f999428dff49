package rootcause

import (
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
)

// ruleDeployKind: a new version followed by deterministic errors is a bad
// deploy. The deploy rule knows a version is new by the baseline; when
// the baseline cannot tell (it recorded no version of the service, or
// there is none), the window can: the service ran one version, then
// another appeared, and its own new deterministic errors (the same input
// failing the same way every time: a regression) began after it.
//
// Condition: no signal named the kind, the kind chosen so far is
// deterministic, and a version of the service first seen in the window at
// least deployGap after another of its versions was, and not run in the
// baseline, came at most deployRecent before the first of its own new
// deterministic errors. Constants: deployGap, deployRecent.
// Scenario: testdata/deploy_kind.txtar.
const ruleDeployKind = "deploy_kind"

const (
	// deployGap is how much later than the service's first version a
	// version must first be seen to have replaced it: replicas of one
	// rollout report theirs within seconds of each other.
	deployGap = 30 * time.Second
	// deployRecent is how soon after a version its errors must begin to be
	// its doing.
	deployRecent = 10 * time.Minute
)

// deployedKind returns bad-deploy and the evidence when the rule holds for
// the service's window w and baseline b (nil when none), else k.
func deployedKind(k schema.Kind, w, b *serviceProfile) (schema.Kind, string) {
	if k != schema.KindDeterministic || len(w.versions) < 2 {
		return k, ""
	}
	var firstErr time.Time
	for t, ts := range w.templates {
		if ts.kind != schema.KindDeterministic || ts.errors == 0 || !ts.own() || (b != nil && b.templates[t] != nil) {
			continue
		}
		if firstErr.IsZero() || ts.first.Before(firstErr) {
			firstErr = ts.first
		}
	}
	if firstErr.IsZero() {
		return k, ""
	}
	var oldest time.Time
	for _, seen := range w.versions {
		if oldest.IsZero() || seen.first.Before(oldest) {
			oldest = seen.first
		}
	}
	for _, v := range sortedKeys(w.versions) {
		seen := w.versions[v]
		if seen.first.Sub(oldest) < deployGap || seen.first.After(firstErr) || firstErr.Sub(seen.first) > deployRecent ||
			(b != nil && b.versionsHas(v)) {
			continue
		}
		return schema.KindBadDeploy, fmt.Sprintf("version %s first seen at %s, %s after the one it ran before and %s before its own new deterministic errors [%s]",
			quoteCut(seen.name, 40), seen.first.UTC().Format(time.TimeOnly), seen.first.Sub(oldest).Round(time.Second),
			firstErr.Sub(seen.first).Round(time.Second), ruleDeployKind)
	}
	return k, ""
}
