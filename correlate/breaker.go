package correlate

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/faultline/faultline/schema"
)

// WindowStore is a Store that also reads the records of a time window, as
// both store backends do. Analyze uses it to follow an open circuit
// breaker to the earlier traces that tripped it.
//
// WindowRecords yields the records of q (From inclusive, To exclusive,
// one service when q.Service is set, errors and warnings only when
// q.ErrorsOnly), in no guaranteed order, at most q.Limit of them.
type WindowStore interface {
	Store
	WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error]
}

const debugBreaker = false

// Limits of following an open breaker across traces.
const (
	// breakerLookback is how far before the fast failure the traces that
	// tripped the breaker are looked for: a breaker stays open for tens of
	// seconds and re-opens on failed probes.
	breakerLookback = 2 * time.Minute
	// breakerTraces is how many of the latest tripping traces are analysed.
	breakerTraces = 5
	// breakerCandidates caps the traces read to find them: those in which
	// the dependency only failed fast do not count.
	breakerCandidates = 20
	// breakerDepth caps breakers followed behind breakers.
	breakerDepth = 3
	// breakerScan caps the error records of the dependency read from the
	// window; breakerScanAll those of every service, read when the
	// dependency's records carry no service field.
	breakerScan    = 400
	breakerScanAll = 4000
)

// breakerLead is what a fast failure of an open breaker leaves to follow
// across traces: the protected dependency, silent in this trace, and when
// the breaker refused the call.
type breakerLead struct {
	dep string
	at  time.Time
}

// followBreaker resolves a suspect that is only the silent dependency of
// an open breaker. The breaker opened because calls to that dependency
// failed in earlier traces; those traces, analysed in turn, say where the
// failure began. The suspect becomes the service most of the latest
// tripping traces point at, and keeps the dependency when none is found.
func followBreaker(ctx context.Context, st WindowStore, res *Result, opts Options) {
	seen := map[schema.TraceID]bool{res.TraceID: true}
	for depth := 0; depth < breakerDepth && res.lead != nil && res.Suspect != nil; depth++ {
		lead := res.lead
		res.lead = nil
		got, n, of, example, next := tripping(ctx, st, lead, opts, seen)
		if got == "" {
			return
		}
		res.Suspect.Reason += fmt.Sprintf("; the breaker opened on earlier failures of %s: %d of the latest %d traces where %s failed point at %s (e.g. trace %s)",
			lead.dep, n, of, lead.dep, got, example)
		if got != res.Suspect.Service {
			res.Suspect.Service = got
		}
		res.lead = next
	}
	res.lead = nil
}

// tripping analyses the latest traces before lead.at in which lead.dep
// logged an error or a failure signal, and returns the suspect most of
// them name, how many did, of how many, one example trace, and the lead
// of the winner when it is itself a silent breaker dependency.
func tripping(ctx context.Context, st WindowStore, lead *breakerLead, opts Options,
	seen map[schema.TraceID]bool) (string, int, int, schema.TraceID, *breakerLead) {
	ids := trippingTraces(ctx, st, lead, seen)
	votes := map[string]int{}
	var order []string
	examples := map[string]schema.TraceID{}
	leads := map[string]*breakerLead{}
	total := 0
	for _, id := range ids {
		if total == breakerTraces {
			break
		}
		seen[id] = true
		var recs []schema.Record
		for r, err := range st.TraceRecords(ctx, id, DefaultRecordLimit) {
			if err != nil {
				break
			}
			recs = append(recs, r)
		}
		if debugBreaker {
			println("DBG trip", lead.dep, string(id), len(recs))
		}
		r := AnalyzeRecords(recs, Options{MaxSkew: opts.MaxSkew, SkewTolerance: opts.SkewTolerance,
			SkipTimeline: true, suspectFrom: lead.dep})
		if r.fastOnly || r.Suspect == nil || r.Suspect.Service == "" {
			continue
		}
		s := r.Suspect.Service
		if votes[s] == 0 {
			order = append(order, s)
			examples[s] = id
			leads[s] = r.lead
		}
		votes[s]++
		total++
	}
	best := ""
	for _, s := range order {
		if votes[s] > votes[best] {
			best = s
		}
	}
	if best == "" {
		return "", 0, 0, "", nil
	}
	return best, votes[best], total, examples[best], leads[best]
}

// trippingTraces lists up to breakerTraces traces, latest first, in which
// lead.dep logged an error or a failure signal in the lookback before
// lead.at, leaving out those already seen.
func trippingTraces(ctx context.Context, st WindowStore, lead *breakerLead, seen map[schema.TraceID]bool) []schema.TraceID {
	q := schema.WindowQuery{From: lead.at.Add(-breakerLookback), To: lead.at, Service: lead.dep,
		ErrorsOnly: true, Limit: breakerScan}
	hits := causeHits(ctx, st, q, lead.dep, seen)
	if len(hits) == 0 {
		// Lines shipped without a service field name it only in their
		// text: read every service's errors of a shorter window.
		q.Service, q.From, q.Limit = "", lead.at.Add(-breakerLookback/4), breakerScanAll
		hits = causeHits(ctx, st, q, lead.dep, seen)
	}
	slices.SortFunc(hits, func(a, b traceHit) int { return b.at.Compare(a.at) })
	var ids []schema.TraceID
	for _, h := range hits {
		if !slices.Contains(ids, h.id) {
			ids = append(ids, h.id)
			if len(ids) == breakerCandidates {
				break
			}
		}
	}
	return ids
}

// traceHit is one record of a trace in which a dependency failed.
type traceHit struct {
	id schema.TraceID
	at time.Time
}

// causeHits reads the records of q that are failures of service dep
// other than an open breaker's fast failure, in traces not yet seen.
func causeHits(ctx context.Context, st WindowStore, q schema.WindowQuery, dep string,
	seen map[schema.TraceID]bool) []traceHit {
	var hits []traceHit
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			break
		}
		if r.TraceID == "" || seen[r.TraceID] || serviceOf(&r) != dep {
			continue
		}
		// A fast failure of the open breaker says nothing of why it opened,
		// nor does the failed status of the span serving the request.
		if r.Type == schema.TypeSpan && hintFromAttrs(&r) == "" {
			continue
		}
		if k := Classify(&r); isFastFailure(k) || (!r.IsError() && k == "") {
			continue
		}
		hits = append(hits, traceHit{r.TraceID, r.Time})
	}
	return hits
}
