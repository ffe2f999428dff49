package correlate

import (
	"context"
	"fmt"
	"testing"

	"github.com/faultline/faultline/schema"
)

// TestAnalyzeKeyedBreakerFollowsReportedFailures: queue keeps a breaker
// per namespace, open for builds after three failed jobs. The holders'
// traces of those jobs do not name the namespace: each called registry,
// which timed out, and reported the job failed to queue ("POST
// /jobs/7/fail -> 201"). queue's own noise (a webhook it could not
// deliver) is in other traces. The failures reported to queue are what
// tripped it: registry.
func TestAnalyzeKeyedBreakerFollowsReportedFailures(t *testing.T) {
	wantSuspect(t, storeKeyedBreakerReported(), "registry")
}

// storeKeyedBreakerReported is the store of
// TestAnalyzeKeyedBreakerFollowsReportedFailures.
func storeKeyedBreakerReported() *windowStore {
	const open = 400_000
	refusal := "namespace builds is paused after repeated failures: 3 jobs failed since 10:04:10, limit 3"
	st := &windowStore{}
	for k, ms := range []int{open - 200_000, open - 190_000, open - 180_000} {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xd00+k),
			logAt("", "queue", ms-3_000, schema.SeverityInfo, "POST /jobs/claim -> 201 (12 ms)"),
			logAt("", "holder", ms, schema.SeverityError, "request to registry failed: timeout of 2000ms exceeded"),
			logAt("", "queue", ms+10, schema.SeverityInfo, fmt.Sprintf("POST /jobs/%d/fail -> 201 (9 ms)", 7+k)))...)
	}
	for k := range 6 {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xd20+k),
			logAt("", "queue", open-100_000+10_000*k, schema.SeverityError, "webhook delivery failed: 410 Gone"))...)
	}
	return queueRefuses(st, open, refusal)
}

// TestAnalyzeKeyedBreakerFollowsReportedFailuresPastTheKeysNoise: as
// TestAnalyzeKeyedBreakerFollowsReportedFailures, and the traces that do
// name the namespace are a holder giving a job of builds back ("not done,
// failing it so another holder can take it") while queue throttles its
// own writes, as it has all hour. Those walks end at queue's usual
// throttle (trip_filter_usual_suspect leaves them out), so they say
// nothing of what tripped the breaker, and the failures reported to
// queue do: registry.
func TestAnalyzeKeyedBreakerFollowsReportedFailuresPastTheKeysNoise(t *testing.T) {
	const open = 400_000
	st := storeKeyedBreakerReported()
	for k := range 70 {
		at := open - 3_600_000 + k*55_000
		recs := []schema.Record{logAt("", "queue", at, schema.SeverityError, "KV write throttled, retrying")}
		if at > open-300_000 && at < open {
			recs = append(recs, logAt("", "driver", at-400, schema.SeverityWarn,
				fmt.Sprintf("job %d (builds) not done: 5 items left, failing it so another holder can take it", 300+k)))
		}
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xf00+k), recs...)...)
	}
	wantSuspect(t, st, "registry")
	for _, rule := range []string{ruleLookbackReported, ruleTripUsualSuspect} {
		res, err := Analyze(context.Background(), st, openTrace, Options{Off: map[string]bool{rule: true}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Suspect != nil && res.Suspect.Service == "registry" {
			t.Errorf("without %s the suspect is registry too: the test does not test it", rule)
		}
	}
}
