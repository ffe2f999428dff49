package correlate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

// TestAnalyzeKeyedBreakerFollowsItsKeysFailures: queue refuses a claim
// because the breaker of the namespace "builds" is open, a breaker that
// names no dependency. Its own errors before are noise about webhooks;
// what tripped the breaker is the builds jobs that their holder failed,
// which the queue only recorded at info level, and which failed on
// registry timing out.
func TestAnalyzeKeyedBreakerFollowsItsKeysFailures(t *testing.T) {
	wantSuspect(t, storeKeyedBreaker(), "registry")
}

// storeKeyedBreaker is the store of TestAnalyzeKeyedBreakerFollowsItsKeysFailures.
func storeKeyedBreaker() *windowStore {
	const open = 400_000
	refusal := "the circuit breaker for builds is open: 3 jobs failed by their holders since 10:04:10 (threshold 3)"
	st := &windowStore{}
	for k, ms := range []int{open - 200_000, open - 190_000, open - 180_000} {
		// The jobs of builds that tripped the breaker: their holder's call
		// to registry timed out; the queue took the failure it reported.
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xc00+k),
			logAt("", "holder", ms, schema.SeverityError, "request to registry failed: timeout of 2000ms exceeded"),
			logAt("", "queue", ms+10, schema.SeverityInfo, fmt.Sprintf("job %d in builds failed by its holder; recorded", 7+k)))...)
	}
	// A job of builds that went well, and the queue's noise of every
	// namespace: neither tripped the breaker.
	st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xc10),
		logAt("", "queue", open-170_000, schema.SeverityInfo, "job 11 in builds completed"))...)
	for k := range 6 {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xc20+k),
			logAt("", "queue", open-100_000+10_000*k, schema.SeverityError, "webhook delivery failed: 410 Gone"))...)
	}
	return queueRefuses(st, open, refusal)
}

// queueRefuses adds to st queue's refusals with its breaker's refusal, two
// earlier ones and openTrace's at open, each quoted by its caller, driver.
func queueRefuses(st *windowStore, open int, refusal string) *windowStore {
	for k := range 3 {
		id, at := fmt.Sprintf("%032x", 0xc30+k), open-30_000+10_000*k
		if k == 2 {
			id, at = string(openTrace), open
		}
		st.recs = append(st.recs, inTrace(id,
			logAt("", "queue", at, schema.SeverityError, refusal),
			logAt("", "driver", at+10, schema.SeverityError, "failed to call queue: queue returned 423: "+refusal))...)
	}
	return st
}

// TestAnalyzeKeyedBreakerIgnoresUsualTransient: as
// TestAnalyzeKeyedBreakerFollowsItsKeysFailures, and relay, a holder of
// the same namespace, logs at error a claim that raced another holder and
// is retried, as often as all hour: the latest failures naming the key
// are those, and they are noise (trip_filter_usual_suspect), not what
// tripped the breaker.
func TestAnalyzeKeyedBreakerIgnoresUsualTransient(t *testing.T) {
	const open = 400_000
	st := storeKeyedBreaker()
	for k := range 70 {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xe00+k),
			logAt("", "relay", open-3_600_000+k*55_000, schema.SeverityError,
				fmt.Sprintf("claim of job %d in builds raced with another holder, retrying with the next job", 100+k)))...)
	}
	wantSuspect(t, st, "registry")
	off, err := Analyze(context.Background(), st, openTrace, Options{Off: map[string]bool{ruleTripUsualSuspect: true}})
	if err != nil {
		t.Fatal(err)
	}
	if off.Suspect != nil && off.Suspect.Service == "registry" {
		t.Errorf("without %s the suspect is still registry: the test does not need the rule: %s", ruleTripUsualSuspect, off.Suspect.Reason)
	}
}

// TestAnalyzeKeyedBreakerFollowsErrorsThatStoppedWhenItOpened: holder's
// new version fails the builds jobs with an error it never logged before;
// the breaker of builds opens and, refusing every claim since, keeps the
// work away from holder, whose error then stops. Minutes before the
// refusal and never in the older part of the store, the error is no
// usual noise for having stopped (trip_filter_usual_suspect): it is what
// tripped the breaker.
func TestAnalyzeKeyedBreakerFollowsErrorsThatStoppedWhenItOpened(t *testing.T) {
	const open = 2_800_000
	refusal := "the circuit breaker for builds is open: 4 jobs failed by their holders since 10:04:10 (threshold 4)"
	st := &windowStore{}
	for k := range 40 { // the store reaches back 45 minutes, holder quiet
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xb00+k),
			logAt("", "holder", open-2_700_000+k*60_000, schema.SeverityInfo, fmt.Sprintf("job %d in builds completed", k)))...)
	}
	for k := range 4 {
		ms := open - 300_000 + 15_000*k
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xc00+k),
			logAt("", "holder", ms, schema.SeverityError, "TypeError: Cannot read properties of undefined (reading 'region')"),
			logAt("", "queue", ms+10, schema.SeverityInfo, fmt.Sprintf("job %d in builds failed by its holder; recorded", 70+k)))...)
	}
	for k := range 8 { // refused since, holder sees no work of builds
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xd00+k),
			logAt("", "queue", open-230_000+25_000*k, schema.SeverityError, refusal),
			logAt("", "driver", open-230_000+25_000*k+10, schema.SeverityError, "failed to call queue: queue returned 423: "+refusal))...)
	}
	wantSuspect(t, queueRefuses(st, open, refusal), "holder")
}

func TestBreakerKey(t *testing.T) {
	for body, want := range map[string]string{
		"the circuit breaker for data-lake is open: 5 jobs failed":            "data-lake",
		"claim refused: breaker open namespace=infra-tf failed=8 threshold=8": "infra-tf",
		`claim refused: breaker open namespace="mobile-app" failed=8`:         "mobile-app",
		"Circuit breaker of tenant-42 opened":                                 "tenant-42",
		"CircuitBreaker 'payment' is OPEN and does not permit further calls":  "",
		"Error handling request: Breaker is open":                             "",
		"circuit breaker for the namespace is open":                           "",
	} {
		if got := breakerKey(body); got != want {
			t.Errorf("breakerKey(%q) = %q, want %q", body, got, want)
		}
	}
	for _, c := range []struct {
		body, key string
		want      bool
	}{
		{"job 7 in data-lake failed by its holder", "data-lake", true},
		{"job 7 in Data-Lake failed", "data-lake", true},
		{"job 7 in data-lakehouse failed", "data-lake", false},
		{"job 7 in big-data-lake failed", "data-lake", false},
		{"namespace=data-lake", "data-lake", true},
	} {
		if got := namesKey(c.body, c.key); got != c.want {
			t.Errorf("namesKey(%q, %q) = %v, want %v", c.body, c.key, got, c.want)
		}
	}
}

// TestAnalyzeQuotedKeyedBreaker: driver's call to queue fails with queue's
// answer, a refusal of the breaker queue keeps for the namespace builds,
// which driver quotes; queue logs the refusal at info level only. The
// breaker is queue's, kept for builds: what tripped it is the builds jobs
// that failed on registry, not a dependency of driver's.
func TestAnalyzeQuotedKeyedBreaker(t *testing.T) {
	st := storeKeyedBreaker()
	refusal := "namespace builds is paused after repeated failures: 3 jobs failed since 10:04:10, limit 3"
	st.recs = slices.DeleteFunc(st.recs, func(r schema.Record) bool { return r.TraceID == openTrace })
	st.recs = append(st.recs, inTrace(string(openTrace),
		logAt("", "queue", 400_000, schema.SeverityInfo, refusal),
		logAt("", "driver", 400_010, schema.SeverityError, "request to queue failed: queue returned 409: "+refusal))...)
	wantSuspect(t, st, "registry")
}

func TestAnsweredKey(t *testing.T) {
	for _, c := range []struct{ body, tgt, want string }{
		{"request to queue failed: queue returned 409: namespace builds is paused after repeated failures", "queue", "builds"},
		{"namespace builds is paused after repeated failures", "queue", ""},          // no answer quoted
		{"payment returned 503: circuit breaker for payment is open", "payment", ""}, // kept for the callee itself
		{"Request failed with status code 503: tenant=acme-corp: breaker open", "gw", "acme-corp"},
	} {
		if got := answeredKey(c.body, c.tgt); got != c.want {
			t.Errorf("answeredKey(%q, %q) = %q, want %q", c.body, c.tgt, got, c.want)
		}
	}
}

// TestAnalyzeSkipsUsualThrottleNoise: pricing throttles its own writes
// now and then, as steadily in the hour before as now ("KV write
// throttled, retrying"); a trace where that comes first failed on its
// call to fx-rates-api, as the usual noise of any other kind that names no
// callee is passed over.
func TestAnalyzeSkipsUsualThrottleNoise(t *testing.T) {
	st := storeSkipsUsualNoise()
	for i := range st.recs {
		if strings.HasPrefix(st.recs[i].Body, "Could not resolve locale") {
			st.recs[i].Body = "KV write throttled, retrying"
		}
	}
	wantSuspect(t, st, "fx-rates-api")
}
