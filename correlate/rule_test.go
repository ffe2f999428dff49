package correlate

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

// TestRules runs, for every rule of the registries in rules.go, the
// scenario that needs it: with every rule the suspect is want (and a rule
// that writes a reason clause names itself in it); with the rule left out
// it is not. A rule added to a registry needs an entry here.
func TestRules(t *testing.T) {
	cases := []struct {
		rule   string
		st     func() *windowStore
		id     schema.TraceID
		want   string
		tagged bool // the rule writes a reason clause
	}{
		{ruleUsualNoise, storeSkipsUsualNoise, openTrace, "fx-rates-api", true},
		{ruleBreakerFollow, storeAnalyzeFollowsOpenBreakerToTrippingTraces, openTrace, "payment", false},
		{ruleCalleeNamedBefore, storeCalleeNamedBefore, openTrace, "ledger-eu", true},
		{ruleCalleeNamedElsewhere, storeCalleeNamedElsewhere, openTrace, "model-api", true},
		{ruleTroubledCaller, func() *windowStore { return troubledStore(12, 2) }, tid, "shipping", true},
		{ruleCallerDeploy, callerDeployStore(3_000_000, 0, false, "a7"), tid, "orders", true},

		{ruleLookbackDependency, storeAnalyzeBlindBreakerNamedByItsOwnLines, openTrace, "identity-provider", false},
		{ruleLookbackKey, storeKeyedBreaker, openTrace, "registry", true},
		{ruleLookbackReported, storeKeyedBreakerReported, openTrace, "registry", true},
		{ruleLookbackCallers, storeAnalyzeBreakerStartsAtTheFailedCalls, openTrace, "promotion", true},
		{ruleLookbackCalls, storeCallsOnly, openTrace, "ledger", true},
		{ruleBreakerWeigh, storeAnalyzeFollowsOpenBreakerToTrippingTraces, openTrace, "payment", false},
		{ruleLookbackFar, storeAnalyzeBlindBreakerLooksFurtherBack, openTrace, "identity-provider", true},
		{ruleBreakerGuard, storeAnalyzeBlindBreakerNamedByItsOwnLines, openTrace, "identity-provider", true},

		{ruleHitServerSpan, storeServerSpan, openTrace, "payment", false},
		{ruleHitFastFailure, storeAnalyzeBlindBreakerSkipsItsOwnRefusals, openTrace, "ledger", false},
		{ruleHitOwnWork, storeOwnWork, openTrace, "payment", false},
		{ruleHitOwnRefusals, storeAnalyzeBlindBreakerSkipsItsOwnRefusals, openTrace, "ledger", false},

		{ruleTripUnfelt, storeAnalyzeBreakerIgnoresErrorsNoCallerFelt, openTrace, "payment", false},
		{ruleTripUsualSuspect, storeAnalyzeBreakerIgnoresUsualErrorsAWalkEndsAt, openTrace, "payment", false},
		{ruleTripSilentCall, storeSilentCall, openTrace, "payment", false},
		{ruleTripBlindDependency, storeAnalyzeBlindBreakerLooksFurtherBack, openTrace, "identity-provider", false},
		{ruleTripRefusalEcho, storeRefusalEcho, openTrace, "psp", false},

		{ruleVoteMost, storeAnalyzeFollowsOpenBreakerToTrippingTraces, openTrace, "payment", true},
		{ruleVoteDescend, storeAnalyzeBreakerDescendsPastBareTimeouts, openTrace, "identity-provider", true},
		{ruleBreakerChained, storeChainedBreaker, openTrace, "region-api", false},

		{ruleBreakerKind, storeBreakerKind, openTrace, "ledger", true},
	}
	// The rules that decide the suspect's kind, not its service: the kind
	// wanted with every rule.
	kinds := map[string]schema.Kind{ruleBreakerKind: schema.KindDependencyTimeout}
	var covered []string
	for _, c := range cases {
		covered = append(covered, c.rule)
		t.Run(c.rule, func(t *testing.T) {
			res, err := Analyze(context.Background(), c.st(), c.id, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Suspect == nil || res.Suspect.Service != c.want {
				t.Fatalf("suspect = %+v, want %s", res.Suspect, c.want)
			}
			wantKind, byKind := kinds[c.rule]
			if byKind && res.Suspect.Kind != wantKind {
				t.Fatalf("suspect kind = %s, want %s (%s)", res.Suspect.Kind, wantKind, res.Suspect.Reason)
			}
			if c.tagged && !slices.Contains(reasonRules(res.Suspect.Reason), c.rule) {
				t.Errorf("the reason does not name %s: %q", c.rule, res.Suspect.Reason)
			}
			off, err := Analyze(context.Background(), c.st(), c.id, Options{Off: map[string]bool{c.rule: true}})
			if err != nil {
				t.Fatal(err)
			}
			if off.Suspect != nil && off.Suspect.Service == c.want && (!byKind || off.Suspect.Kind == wantKind) {
				t.Errorf("without %s the suspect is still %s %s: the scenario does not need the rule", c.rule, c.want, off.Suspect.Kind)
			}
		})
	}
	for _, n := range storeRuleNames() {
		if !slices.Contains(covered, n) {
			t.Errorf("rule %s has no scenario in TestRules", n)
		}
	}
}

// reasonRules lists the rule names of the " [a b]" tags of a reason.
func reasonRules(reason string) []string {
	var out []string
	tag := regexp.MustCompile(` \[([a-z_]+(?: [a-z_]+)*)\]`)
	for _, m := range tag.FindAllStringSubmatch(reason, -1) {
		out = append(out, strings.Fields(m[1])...)
	}
	return out
}

// storeSkipsUsualNoise is the first store of TestAnalyzeSkipsUsualNoise:
// pricing's locale error, once a minute all hour, before its call to
// fx-rates-api timed out.
func storeSkipsUsualNoise() *windowStore {
	const open = 4_000_000
	noise := "Could not resolve locale 'xx-YY', falling back to en-US"
	st := &windowStore{}
	for k := range 62 {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 300+k),
			logAt("", "pricing", open-3_700_000+k*60_000, schema.SeverityError, noise))...)
	}
	st.recs = append(st.recs, inTrace(string(openTrace),
		logAt("", "pricing", open, schema.SeverityError, noise),
		logAt("", "pricing", open+2000, schema.SeverityError, `Get "http://fx-rates-api:8080/rates": context deadline exceeded`),
		logAt("", "gateway", open+2010, schema.SeverityError,
			"request to pricing failed: unexpected status 500 Internal Server Error from pricing"))...)
	return st
}

// storeCallsOnly: gateway's breaker names nothing, and gateway's own
// lines carry no service field, so only a read of every service's
// records finds its call to ledger timing out.
func storeCallsOnly() *windowStore {
	st := &windowStore{}
	st.recs = append(st.recs, inTrace(tripTrace,
		logAt("", "", 5_000, schema.SeverityError,
			`[ERROR] gateway: Get "http://ledger:8080/api": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`))...)
	st.recs = append(st.recs, openBreaker(20_000, "upstream call failed: circuit breaker is open", nil)...)
	return st
}

// storeOwnWork: session warned of GC pauses in the latest traces; that
// is about its own work, not about what tripped gateway's breaker on it.
func storeOwnWork() *windowStore {
	st := &windowStore{}
	for k := range 3 {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xd00+k),
			logAt("", "session", 30_000+1000*k, schema.SeverityWarn, "GC pause of 1200ms (allocation failure)"))...)
	}
	return paymentTripped(st, 10_000, 40_000)
}

// storeSilentCall: in the last seconds mobile's calls to session timed
// out while session only warned of GC pauses: no error of its own to tell
// what tripped gateway's breaker on it.
func storeSilentCall() *windowStore {
	st := &windowStore{}
	for k := range 3 {
		at := 30_000 + 1000*k
		r := logAt("", "mobile", at+5, schema.SeverityError, "request to session failed: context deadline exceeded")
		r.Attrs = map[string]string{schema.AttrPeerService: "session"}
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0x1200+k),
			logAt("", "session", at, schema.SeverityWarn, "GC pause of 1200ms (allocation failure)"), r)...)
	}
	return paymentTripped(st, 10_000, 40_000)
}

// storeBreakerKind: gateway's breaker on ledger opened after mobile's
// calls to ledger timed out, ledger logging nothing: what tripped it is
// ledger's timeout, and that is the suspect's kind.
func storeBreakerKind() *windowStore {
	st := &windowStore{}
	for k := range 3 {
		r := logAt("", "mobile", 30_000+1000*k, schema.SeverityError,
			`Get "http://ledger:8080/balance": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0x1500+k), r)...)
	}
	st.recs = append(st.recs, openBreaker(40_000, "failed to call ledger: hystrix: circuit open",
		map[string]string{schema.AttrPeerService: "ledger"})...)
	return st
}

// storeServerSpan: session's server spans failed, naming no peer, in the
// latest traces (with an exception type, so that the walks would settle
// on session); a server span's status says nothing of why it failed.
func storeServerSpan() *windowStore {
	st := &windowStore{}
	for k := range 3 {
		s := span(fmt.Sprintf("%016x", 0xe00+k), "", "session", "h1", 60_000+1000*k, 20)
		s.Status = schema.StatusError
		s.Attrs[schema.AttrExceptionType] = "java.lang.OutOfMemoryError"
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xe00+k), s,
			logAt("", "gateway", 60_030+1000*k, schema.SeverityError, "GET /profile failed: 500 Internal Server Error from session"))...)
	}
	return paymentTripped(st, 30_000, 100_000)
}
