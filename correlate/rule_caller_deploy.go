package correlate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// Limits of looking for a caller's new version.
const (
	// deployLookback is how long before the failure a caller's previous
	// version is looked for: a rollout that broke its callee a few minutes
	// in.
	deployLookback = 30 * time.Minute
	// deploySettle is how precisely the moment the new version appeared
	// is found (by halving the lookback).
	deploySettle = time.Second
	// deployRecentMin is the shortest recent stretch whose rejections are
	// compared with those before the new version.
	deployRecentMin = time.Minute
	// newScan is how many of a caller's records are read at each step of
	// looking for its new version's first moment: a few dozen requests,
	// among which a new pod of a few serves some.
	newScan = 128
)

// ruleCallerDeploy blames a caller's new version for the requests its
// callee rejects.
//
// Condition: the suspect failed on its own with a rejection (rejection: a
// request it refused as invalid, 400, a validation failure; as not
// allowed, 401, 403; or of nothing it has, 404; or, when its own words
// name no kind, a failed call into it its caller read as one) in an
// operation called by another service of the trace (the parent of its
// span, or, when it left none, the service whose failed call names it,
// or, when nothing tells, the one other service of the trace deployed
// since deployLookback; or, when that caller ran the same version all
// along, the one other service of the trace deployed since: the caller
// passed on its answer, a label or a price the callee then refused);
// that caller runs a
// version (service.version, else its pod's template hash) in this trace
// that its records of
// deployLookback earlier do not (it was deployed since: the moment is
// found to deploySettle by halving, newScan records read at each step, as a
// rollout's old pods keep serving beside the new); the suspect
// itself ran the same version all along; and the suspect's errors of this
// signature came at least riseFactor times as often since the new
// version as before it (at least troubleMin of them). A new version that
// sends what its callee refuses fails nothing of its own: the callee logs
// the error. The suspect becomes the caller, of kind bad-deploy.
//
// The failure's time is taken at the end of its tripQuantum.
//
// Constants: deployLookback, deploySettle, deployRecentMin, newScan, tripQuantum; troubleMin and
// riseFactor of lineRise.
// Test: TestRules/caller_deploy (TestBlameCallerDeploy; an answer passed
// on: TestBlameAnsweringDeploy).
const ruleCallerDeploy = "caller_deploy"

func blameCallerDeploy(ctx context.Context, st WindowStore, a *storeAnalysis) {
	res := a.res
	if res.Suspect == nil || res.ownSig == "" || !rejected(res) || int(res.ownRec) >= len(a.recs) {
		return
	}
	own := res.Suspect.Service
	at := quantumEnd(res.ownAt) // the failure's own record counts
	if r := &a.recs[res.ownRec]; r.Service != own || signatureOf(r) != res.ownSig {
		return // the suspect's error is another trace's (an open breaker followed)
	}
	caller := callerOfRecord(a.recs, int(res.ownRec))
	if caller == "" {
		caller = namedBy(res.Failures, own)
	}
	if caller == "" {
		// Neither spans nor a failed call tell who called it (a trace of
		// log lines only, whose caller took the refusal in its stride):
		// the one other service of the trace deployed since is.
		caller = onlyDeployed(ctx, st, a.memo, a.recs, own, at)
	}
	if caller == own {
		caller = ""
	}
	version, since, before := deployedSince(ctx, st, a.memo, a.recs, caller, at)
	if since.IsZero() {
		// The caller runs what it ran before: it may only pass on what a
		// service it called earlier in the request answered (a label, a
		// price): the one other service of the trace deployed since (by
		// the trace's clocks it may seem to answer after the failure).
		caller = onlyDeployed(ctx, st, a.memo, a.recs, own, at)
		if caller == "" {
			return
		}
		version, since, before = deployedSince(ctx, st, a.memo, a.recs, caller, at)
		if since.IsZero() {
			return
		}
	}
	if v := versionIn(a.recs, own); v != "" {
		if _, ownBefore, err := versionSince(ctx, st, a.memo, own, v, at); err != nil || ownBefore != "" {
			return // the suspect was deployed too: its own change is as likely
		}
	}
	sig := res.ownSig
	recent := max(at.Sub(since), deployRecentMin)
	rise, err := memoized(a.memo, memoKey(ruleCallerDeploy, own, sig, at, recent), func() (rise, error) {
		of := func(r *schema.Record) bool { return signatureOf(r) == sig }
		return lineRise(ctx, st, own, at, recent, deployLookback, of)
	})
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("cannot read the errors of %s: %v", own, err))
		return
	}
	if rise.recent < troubleMin || !rise.rose() {
		return // it rejected such calls before the new version as often
	}
	res.Suspect.Reason += fmt.Sprintf("; but %s rejected a call of %s, which runs %s, first seen at %s (before it, %s): "+
		"%d such errors since, %.1f a minute before; a new version that sends what its callee refuses fails nothing of its own",
		own, caller, version, since.UTC().Format("15:04:05"), before, rise.recent, rise.perMinute(false)) + ruleTag(ruleCallerDeploy)
	res.Suspect.Service, res.Suspect.Kind = caller, schema.KindBadDeploy
}

// rejection reports whether a kind is a callee's refusal of what a request
// asked: invalid (400, 422), not allowed (401, 403), of nothing it has
// (404): what a new version can start sending.
func rejection(k schema.Kind) bool {
	return k == schema.KindDeterministic || k == schema.KindAuth || k == schema.KindNotFound
}

// rejected reports whether the suspect's failure was a rejection: by its
// own kind, or, when its own words name none ("policy: payment actions
// require an approval token"), by the kind its caller's failed call into
// it was given (the 403 the caller read).
func rejected(res *Result) bool {
	if rejection(res.Suspect.Kind) {
		return true
	}
	if res.Suspect.Kind != schema.KindUnknown {
		return false
	}
	own := res.Suspect.Service
	for _, f := range res.Failures {
		if f.Target == own && f.Service != own && rejection(f.Class) {
			return true
		}
	}
	return false
}

// deployedSince is the version svc runs in recs, when it first appeared
// in deployLookback before at and the version it replaced; a zero time
// when svc is "", names no version or ran it all along.
func deployedSince(ctx context.Context, st WindowStore, m *storeMemo, recs []schema.Record, svc string, at time.Time) (string, time.Time, string) {
	if svc == "" {
		return "", time.Time{}, ""
	}
	version := versionIn(recs, svc)
	if version == "" {
		return "", time.Time{}, ""
	}
	since, before, err := versionSince(ctx, st, m, svc, version, at)
	if err != nil {
		return "", time.Time{}, ""
	}
	return version, since, before
}

// callerOfRecord is the service that called the operation record i of
// recs belongs to: the first service other than its own up the spans'
// parents; "" when the spans do not tell.
func callerOfRecord(recs []schema.Record, i int) string {
	spans := make(map[schema.SpanID]int, len(recs))
	for j := range recs {
		if recs[j].Type == schema.TypeSpan && recs[j].SpanID != "" {
			spans[recs[j].SpanID] = j
		}
	}
	own := recs[i].Service
	id := recs[i].SpanID
	if recs[i].Type == schema.TypeSpan {
		id = recs[i].ParentSpanID
	}
	for hops := 0; id != "" && hops < len(recs); hops++ {
		j, ok := spans[id]
		if !ok {
			return ""
		}
		if s := recs[j].Service; s != "" && s != own {
			return s
		}
		id = recs[j].ParentSpanID
	}
	return ""
}

// onlyDeployed is the one service of the trace other than own whose
// version there is new since deployLookback before at; "" when none is or
// several are.
func onlyDeployed(ctx context.Context, st WindowStore, m *storeMemo, recs []schema.Record, own string, at time.Time) string {
	found := ""
	seen := map[string]bool{own: true}
	for i := range recs {
		svc := recs[i].Service
		if svc == "" || seen[svc] {
			continue
		}
		seen[svc] = true
		v := versionIn(recs, svc)
		if v == "" {
			continue
		}
		since, _, err := versionSince(ctx, st, m, svc, v, at)
		if err != nil || since.IsZero() {
			continue
		}
		if found != "" {
			return ""
		}
		found = svc
	}
	return found
}

// namedBy is the service of the first failure that points at svc (its
// failed call to svc), when svc left no span to climb from.
func namedBy(fs []Failure, svc string) string {
	for _, f := range fs {
		if f.Target == svc && f.Service != svc && f.Service != "" {
			return f.Service
		}
	}
	return ""
}

// versionIn is the version svc's records of the trace carry, "" when none
// does or they disagree: their service.version, else, when none carries
// one, their pod's template hash (recordVersion).
func versionIn(recs []schema.Record, svc string) string {
	for _, pods := range [...]bool{false, true} {
		v := ""
		for i := range recs {
			if recs[i].Service != svc {
				continue
			}
			if x := recordVersion(&recs[i], pods); x != "" {
				if v != "" && x != v {
					return ""
				}
				v = x
			}
		}
		if v != "" {
			return v
		}
	}
	return ""
}

// podVersion is the prefix of a version told by a pod's template hash.
const podVersion = "pod template "

// recordVersion is the version a record tells its service runs: its
// service.version, or, with pods, the template hash of its Kubernetes
// pod's name (a Deployment's new pod template is a rollout, whether or not
// the service reports a version); "" when it does not tell.
func recordVersion(r *schema.Record, pods bool) string {
	if !pods {
		return r.Attrs[schema.AttrServiceVersion]
	}
	if h := schema.PodTemplate(r.Attrs[schema.AttrPod]); h != "" {
		return podVersion + h
	}
	return ""
}

// versionSince finds when svc began to run version before at: when its
// first record of deployLookback earlier ran another version (before),
// the moment since which its records run this one, to deploySettle.
// since is zero when the first record already ran it, or none tells, or
// it came more than deployLookback before at. m remembers the answer per
// service and version: the moment a version first showed is one, whichever
// trace asks (found from the first that does).
func versionSince(ctx context.Context, st WindowStore, m *storeMemo, svc, version string, at time.Time) (since time.Time, before string, err error) {
	// A version's first appearance is one moment, whichever trace asks:
	// found once per service and version, from the first trace's time.
	v, err := memoized(m, memoKey(ruleCallerDeploy, svc, version), func() (deployed, error) {
		since, before, err := findVersionSince(ctx, st, svc, version, at)
		return deployed{since, before}, err
	})
	if err == nil && !v.since.IsZero() && at.Sub(v.since) > deployLookback {
		return time.Time{}, "", nil // deployed, but too long before this trace
	}
	return v.since, v.before, err
}

// deployed is what versionSince found.
type deployed struct {
	since  time.Time
	before string
}

// findVersionSince is versionSince, read from the store.
func findVersionSince(ctx context.Context, st WindowStore, svc, version string, at time.Time) (since time.Time, before string, err error) {
	pods := strings.HasPrefix(version, podVersion) // compare like with like
	// scan reads up to n of svc's records at or after t and returns the
	// version and time of the first whose version ok accepts.
	scan := func(t time.Time, n int, ok func(string) bool) (string, time.Time, error) {
		q := schema.WindowQuery{From: t, To: at, Service: svc, Limit: n, Attrs: []string{schema.AttrServiceVersion, schema.AttrPod}}
		for r, err := range st.WindowRecords(ctx, q) {
			if err != nil {
				return "", time.Time{}, err
			}
			if v := recordVersion(&r, pods); ok(v) {
				return v, r.Time, nil
			}
		}
		return "", time.Time{}, nil
	}
	// versionAt is the version of svc's first record carrying one at or
	// after t; newAt the time of the first of the newScan read there that
	// runs version: while a rollout replaces pods one by one, the first
	// records (one request's lines) may still come from an old one.
	versionAt := func(t time.Time) (string, time.Time, error) {
		return scan(t, 16, func(v string) bool { return v != "" })
	}
	newAt := func(t time.Time) (time.Time, error) {
		_, when, err := scan(t, newScan, func(v string) bool { return v == version })
		return when, err
	}
	lo := at.Add(-deployLookback)
	v, t, err := versionAt(lo)
	if err != nil || v == "" || v == version {
		return time.Time{}, "", err
	}
	before, lo = v, t
	hi, first := at, at
	for hi.Sub(lo) > deploySettle {
		mid := lo.Add(hi.Sub(lo) / 2)
		t, err := newAt(mid)
		if err != nil {
			return time.Time{}, "", err
		}
		if !t.IsZero() {
			hi = mid
			if t.Before(first) {
				first = t
			}
		} else {
			lo = mid
		}
	}
	return first, before, nil
}
