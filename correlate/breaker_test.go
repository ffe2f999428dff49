package correlate

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

// windowStore is a memStore that also reads windows, in time order, as
// both store backends do.
type windowStore struct{ memStore }

func (w *windowStore) WindowRecords(_ context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		n := 0
		recs := slices.Clone(w.recs)
		slices.SortStableFunc(recs, func(a, b schema.Record) int { return a.Time.Compare(b.Time) })
		if q.Newest && q.Limit > 0 {
			// The newest Limit of the query's records, still in time order.
			var in []schema.Record
			for _, r := range recs {
				if !r.Time.Before(q.From) && r.Time.Before(q.To) && (q.Service == "" || r.Service == q.Service) &&
					(!q.ErrorsOnly || r.IsError() || r.Severity >= schema.SeverityWarn) {
					in = append(in, r)
				}
			}
			recs = in[max(0, len(in)-q.Limit):]
		}
		for _, r := range recs {
			if r.Time.Before(q.From) || !r.Time.Before(q.To) || q.Service != "" && r.Service != q.Service {
				continue
			}
			if q.ErrorsOnly && !r.IsError() && r.Severity < schema.SeverityWarn {
				continue
			}
			if q.Limit > 0 && n >= q.Limit {
				return
			}
			n++
			if !yield(r, nil) {
				return
			}
		}
	}
}

var _ WindowStore = (*windowStore)(nil)

func inTrace(id string, rs ...schema.Record) []schema.Record {
	for i := range rs {
		rs[i].TraceID = schema.TraceID(id)
	}
	return rs
}

const (
	openTrace = schema.TraceID("00000000000000000000000000000001")
	tripTrace = "00000000000000000000000000000002"
)

// openBreaker is a trace that only shows gateway's breaker refusing a
// call to session: session leaves no record in it.
func openBreaker(ms int, msg string, attrs map[string]string) []schema.Record {
	r := logAt("", "gateway", ms, schema.SeverityError, msg)
	r.Attrs = attrs
	return inTrace(string(openTrace), r)
}

func TestAnalyzeFollowsOpenBreakerToTrippingTraces(t *testing.T) {
	st := storeAnalyzeFollowsOpenBreakerToTrippingTraces()

	alone := AnalyzeRecords(openBreaker(40_000, "failed to call session: hystrix: circuit open",
		map[string]string{schema.AttrPeerService: "session"}), Options{})
	if alone.Suspect == nil || alone.Suspect.Service != "session" {
		t.Fatalf("on its own, the trace should point at the breaker's dependency: %+v", alone.Suspect)
	}
	res, err := Analyze(context.Background(), st, openTrace, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Suspect == nil || res.Suspect.Service != "payment" {
		t.Fatalf("suspect = %+v, want payment (what tripped the breaker)", res.Suspect)
	}
	if !strings.Contains(res.Suspect.Reason, "breaker opened on earlier failures of session") {
		t.Errorf("reason does not explain the hop: %q", res.Suspect.Reason)
	}
}

// storeAnalyzeFollowsOpenBreakerToTrippingTraces is the store of TestAnalyzeFollowsOpenBreakerToTrippingTraces.
func storeAnalyzeFollowsOpenBreakerToTrippingTraces() *windowStore {
	st := &windowStore{}
	// Seconds before, session failed because payment answered 500s: those
	// calls tripped gateway's breaker.
	for k, id := range []string{tripTrace, "00000000000000000000000000000003"} {
		ms := 10_000 + 1000*k
		st.recs = append(st.recs, inTrace(id,
			logAt("", "payment", ms, schema.SeverityError, "NullPointerException: price is null"),
			logAt("", "session", ms+5, schema.SeverityError,
				"request to payment failed: unexpected status 500 Internal Server Error from payment"))...)
	}
	st.recs = append(st.recs, openBreaker(40_000, "failed to call session: hystrix: circuit open",
		map[string]string{schema.AttrPeerService: "session"})...)
	return st
}

// ledgerTimedOut is a store where gateway's calls to ledger timed out
// before its breaker opened.
func ledgerTimedOut() *windowStore {
	st := &windowStore{}
	st.recs = append(st.recs, inTrace(tripTrace,
		logAt("", "gateway", 5_000, schema.SeverityError,
			`Get "http://ledger:8080/api": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`))...)
	return st
}

// wantSuspect analyses the open breaker's trace and wants the suspect want.
func wantSuspect(t *testing.T, st *windowStore, want string) {
	t.Helper()
	res, err := Analyze(context.Background(), st, openTrace, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Suspect == nil || res.Suspect.Service != want {
		t.Fatalf("suspect = %+v, want %s", res.Suspect, want)
	}
}

func TestAnalyzeBreakerWithoutNameFollowsItsOwnService(t *testing.T) {
	wantSuspect(t, storeAnalyzeBreakerWithoutNameFollowsItsOwnService(), "ledger")
}

// storeAnalyzeBreakerWithoutNameFollowsItsOwnService is the store of TestAnalyzeBreakerWithoutNameFollowsItsOwnService.
func storeAnalyzeBreakerWithoutNameFollowsItsOwnService() *windowStore {
	st := ledgerTimedOut()
	st.recs = append(st.recs, openBreaker(20_000, "upstream call failed: circuit breaker is open", nil)...)
	return st
}

// TestAnalyzeBlindBreakerSkipsItsOwnRefusals: a breaker that names nothing
// and has been open a while leaves, in the lookback, mostly traces where
// it refused (and answered a bare 503); those say nothing of what tripped
// it, the older trace where its call timed out does.
func TestAnalyzeBlindBreakerSkipsItsOwnRefusals(t *testing.T) {
	wantSuspect(t, storeAnalyzeBlindBreakerSkipsItsOwnRefusals(), "ledger")
}

// storeAnalyzeBlindBreakerSkipsItsOwnRefusals is the store of TestAnalyzeBlindBreakerSkipsItsOwnRefusals.
func storeAnalyzeBlindBreakerSkipsItsOwnRefusals() *windowStore {
	st := ledgerTimedOut()
	for k := range breakerCandidates + 5 {
		ms := 10_000 + 100*k
		st.recs = append(st.recs, inTrace(fmt.Sprintf("1%031x", k),
			logAt("", "gateway", ms, schema.SeverityError, "Error handling request: Breaker is open"),
			logAt("", "gateway", ms+1, schema.SeverityError, "request completed DELETE /api/v1/cart/8 503 2ms"))...)
	}
	st.recs = append(st.recs, openBreaker(20_000, "Error handling request: Breaker is open", nil)...)
	return st
}

func TestAnalyzeBreakerKeepsSilentDependency(t *testing.T) {
	st := storeAnalyzeBreakerKeepsSilentDependency()
	res, err := Analyze(context.Background(), st, openTrace, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Suspect == nil || res.Suspect.Service != "fraud-score-api" {
		t.Fatalf("suspect = %+v, want fraud-score-api", res.Suspect)
	}
}

// storeAnalyzeBreakerKeepsSilentDependency is the store of TestAnalyzeBreakerKeepsSilentDependency.
func storeAnalyzeBreakerKeepsSilentDependency() *windowStore {
	st := &windowStore{}
	// Only fast failures before: nothing says why the breaker opened, and
	// an unrelated error of another service must not take the blame.
	st.recs = append(st.recs, inTrace(tripTrace,
		logAt("", "gateway", 5_000, schema.SeverityError, "failed to call fraud-score-api: breaker open"),
		logAt("", "audit", 5_000, schema.SeverityError, "failed to send audit event: 413 Payload Too Large"))...)
	st.recs = append(st.recs, openBreaker(20_000, "Error calling fraud-score-api: CircuitBreaker 'fraudScore' is OPEN", nil)...)
	return st
}

func TestSameService(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"shipping", "shipping-service", true},
		{"emailprovider", "email-provider", true},
		{"fraud", "fraud-svc", true},
		{"payment.default.svc.cluster.local", "payment", true},
		{"api", "api-gateway", false}, // too short to tell
		{"order", "ledger", false},
		{"payment", "payment-provider-api", false}, // a service of its own
		{"fraudScore", "fraud-score-api", true},
	} {
		if got := sameService(c.a, c.b); got != c.want {
			t.Errorf("sameService(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestServiceOf(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"2026-01-15T09:23:40.470Z [ERROR] notification-service: Failed to process message", "notification-service"},
		{"2026-01-15 09:17:56,973 ERROR [app.web] [trace_id=f2 span_id=b6 resource.service.name=payment-svc trace_sampled=True]", "payment-svc"},
		{"2026-01-15T09:22:17.752Z [WARN] service=mobile-bff retrying request to session", "mobile-bff"},
		{"ERROR something failed: no name here", ""},
	} {
		r := schema.Record{Type: schema.TypeLog, Body: c.body}
		if got := serviceOf(&r); got != c.want {
			t.Errorf("serviceOf(%q) = %q, want %q", c.body, got, c.want)
		}
	}
	named := schema.Record{Type: schema.TypeLog, Service: "checkout", Body: "[ERROR] other: x"}
	if got := serviceOf(&named); got != "checkout" {
		t.Errorf("a record's own service must win, got %q", got)
	}
}

// TestAnalyzeBreakerIgnoresErrorsNoCallerFelt: session logs a harmless
// error in many traces while answering its callers as usual; those did not
// trip gateway's breaker, the two in which payment failed it did.
func TestAnalyzeBreakerIgnoresErrorsNoCallerFelt(t *testing.T) {
	wantSuspect(t, storeAnalyzeBreakerIgnoresErrorsNoCallerFelt(), "payment")
}

// storeAnalyzeBreakerIgnoresErrorsNoCallerFelt is the store of TestAnalyzeBreakerIgnoresErrorsNoCallerFelt.
func storeAnalyzeBreakerIgnoresErrorsNoCallerFelt() *windowStore {
	st := &windowStore{}
	for k := range 4 {
		ms := 20_000 + 1000*k
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 100+k),
			logAt("", "session", ms, schema.SeverityError, "failed to send audit event: audit-sink returned 413 Payload Too Large"),
			logAt("", "gateway", ms+20, schema.SeverityInfo, "GET /profile 200"))...)
	}
	return paymentTripped(st, 10_000, 40_000)
}

// TestAnalyzeBreakerIgnoresUsualErrors: session has rejected expired
// tokens all hour, a caller failing with it each time; those did not trip
// gateway's breaker just now, the calls failing on payment did.
func TestAnalyzeBreakerIgnoresUsualErrors(t *testing.T) {
	wantSuspect(t, storeAnalyzeBreakerIgnoresUsualErrors(), "payment")
}

// storeAnalyzeBreakerIgnoresUsualErrors is the store of TestAnalyzeBreakerIgnoresUsualErrors.
func storeAnalyzeBreakerIgnoresUsualErrors() *windowStore {
	st := &windowStore{}
	const open = 4_000_000 // ms after the epoch: an hour of history before
	usual := func(id string, ms int) []schema.Record {
		return inTrace(id,
			logAt("", "session", ms, schema.SeverityError, "token validation failed: jwt expired"),
			logAt("", "gateway", ms+9, schema.SeverityError, "GET /profile failed: 401 Unauthorized from session"))
	}
	for k := range 60 { // one a minute, all hour, as in the last two minutes
		st.recs = append(st.recs, usual(fmt.Sprintf("%032x", 300+k), open-3_600_000+k*60_000)...)
	}
	for k := range 2 {
		st.recs = append(st.recs, usual(fmt.Sprintf("%032x", 400+k), open-20_000+k*1000)...)
	}
	return paymentTripped(st, open-60_000, open)
}

// TestAnalyzeBreakerIgnoresUsualErrorsAWalkEndsAt: in some traces another
// breaker failed first, and session's own error there is one it has logged
// all hour (a rejected token). The walk from session ends at that error;
// it is noise beside what tripped gateway's breaker on session.
func TestAnalyzeBreakerIgnoresUsualErrorsAWalkEndsAt(t *testing.T) {
	wantSuspect(t, storeAnalyzeBreakerIgnoresUsualErrorsAWalkEndsAt(), "payment")
}

// storeAnalyzeBreakerIgnoresUsualErrorsAWalkEndsAt is the store of TestAnalyzeBreakerIgnoresUsualErrorsAWalkEndsAt.
func storeAnalyzeBreakerIgnoresUsualErrorsAWalkEndsAt() *windowStore {
	st := &windowStore{}
	const open = 4_000_000
	usual := func(id string, ms int) []schema.Record {
		return inTrace(id,
			logAt("", "gateway", ms, schema.SeverityError, "request to ledger failed: breaker ledger: circuit breaker is open"),
			logAt("", "session", ms+3, schema.SeverityError, "token validation failed: jwt expired"))
	}
	for k := range 60 {
		st.recs = append(st.recs, usual(fmt.Sprintf("%032x", 300+k), open-3_600_000+k*60_000)...)
	}
	for k := range 2 {
		st.recs = append(st.recs, usual(fmt.Sprintf("%032x", 400+k), open-20_000+k*1000)...)
	}
	return paymentTripped(st, open-60_000, open)
}

// wantPaymentTripped adds two traces from ms on in which session failed
// because payment did (failing gateway with it), then gateway's breaker on
// session refusing a call at open, and checks that the refused call is
// blamed on payment.
func wantPaymentTripped(t *testing.T, st *windowStore, ms, open int) {
	t.Helper()
	res, err := Analyze(context.Background(), paymentTripped(st, ms, open), openTrace, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Suspect == nil || res.Suspect.Service != "payment" {
		t.Fatalf("suspect = %+v, want payment (what tripped the breaker)", res.Suspect)
	}
}

// paymentTripped adds to st the records of wantPaymentTripped and returns it.
func paymentTripped(st *windowStore, ms, open int) *windowStore {
	for k := range 2 {
		at := ms + 1000*k
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 200+k),
			logAt("", "payment", at, schema.SeverityError, "NullPointerException: price is null"),
			logAt("", "session", at+5, schema.SeverityError,
				"request to payment failed: unexpected status 500 Internal Server Error from payment"),
			logAt("", "gateway", at+9, schema.SeverityError, "GET /profile failed: 500 Internal Server Error from session"))...)
	}
	st.recs = append(st.recs, openBreaker(open, "failed to call session: hystrix: circuit open",
		map[string]string{schema.AttrPeerService: "session"})...)
	return st
}

// TestAnalyzeSkipsUsualNoise: pricing logs a locale it cannot resolve
// about once a minute, all hour. In this trace that line comes first, but
// the request failed on pricing's call to fx-rates-api timing out.
func TestAnalyzeSkipsUsualNoise(t *testing.T) {
	const open = 4_000_000
	noise := "Could not resolve locale 'xx-YY', falling back to en-US"
	st := storeSkipsUsualNoise() // the noise all hour, and this trace
	trace := func(id string) []schema.Record {
		return inTrace(id,
			logAt("", "pricing", open, schema.SeverityError, noise),
			logAt("", "pricing", open+2000, schema.SeverityError,
				`Get "http://fx-rates-api:8080/rates": context deadline exceeded`),
			logAt("", "gateway", open+2010, schema.SeverityError,
				"request to pricing failed: unexpected status 500 Internal Server Error from pricing"))
	}
	alone := AnalyzeRecords(trace(string(openTrace)), Options{})
	if alone.Suspect == nil || alone.Suspect.Service != "pricing" {
		t.Fatalf("without the store, the first error should be blamed: %+v", alone.Suspect)
	}
	res, err := Analyze(context.Background(), st, openTrace, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Suspect == nil || res.Suspect.Service != "fx-rates-api" {
		t.Fatalf("suspect = %+v, want fx-rates-api", res.Suspect)
	}
	if !strings.Contains(res.Suspect.Reason, "as often as in the hour before") {
		t.Errorf("the reason should say why the first error was passed over: %q", res.Suspect.Reason)
	}

	// The same line, new in the window, is what failed the trace.
	st.recs = slices.DeleteFunc(st.recs, func(r schema.Record) bool { return r.TraceID != openTrace })
	if res, err = Analyze(context.Background(), st, openTrace, Options{}); err != nil {
		t.Fatal(err)
	}
	if res.Suspect == nil || res.Suspect.Service != "pricing" {
		t.Fatalf("a new error must stay the suspect: %+v", res.Suspect)
	}

	// The same line, steady for the last ten minutes only, in a store that
	// holds the hour before: it began with this failure, it is no noise.
	for k := range 60 {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 700+k),
			logAt("", "gateway", open-3_700_000+k*60_000, schema.SeverityInfo, "GET /prices 200"))...)
	}
	for k := range 9 {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 800+k),
			logAt("", "pricing", open-540_000+k*60_000, schema.SeverityError, noise))...)
	}
	if res, err = Analyze(context.Background(), st, openTrace, Options{}); err != nil {
		t.Fatal(err)
	}
	if res.Suspect == nil || res.Suspect.Service != "pricing" {
		t.Fatalf("an error that began minutes ago must stay the suspect: %+v", res.Suspect)
	}
}

// TestAnalyzeBreakerStartsAtTheFailedCalls: gateway's breaker on
// promotion opened on 429s that promotion answered its callers. Its own
// errors in those traces are about a third-party API, which it calls for
// other requests: the walks start at the callers' failed calls, and a 429
// names the service that throttles.
func TestAnalyzeBreakerStartsAtTheFailedCalls(t *testing.T) {
	wantSuspect(t, storeAnalyzeBreakerStartsAtTheFailedCalls(), "promotion")
}

// storeAnalyzeBreakerStartsAtTheFailedCalls is the store of TestAnalyzeBreakerStartsAtTheFailedCalls.
func storeAnalyzeBreakerStartsAtTheFailedCalls() *windowStore {
	st := &windowStore{}
	const open = 60_000
	for k := range 2 {
		at := open - 20_000 + 10_000*k
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 950+k),
			logAt("", "promotion", at, schema.SeverityError,
				"upstream call failed: unexpected status 503 Service Unavailable from api.tax-calc.example.com"),
			logAt("", "ads", at+20, schema.SeverityError, "GET: unexpected status 429 Too Many Requests from promotion"))...)
	}
	st.recs = append(st.recs, openBreaker(open, "failed to call promotion: hystrix: circuit open",
		map[string]string{schema.AttrPeerService: "promotion"})...)
	return st
}

// TestAnalyzeBreakerSkipsCallsThatSayNothing: two callers' calls to fraud
// timed out in traces where fraud logged nothing; they say no more than
// the breaker did. Fraud's own errors say its calls to fraud-score-api
// timed out.
func TestAnalyzeBreakerSkipsCallsThatSayNothing(t *testing.T) {
	wantSuspect(t, storeAnalyzeBreakerSkipsCallsThatSayNothing(), "fraud-score-api")
}

// storeAnalyzeBreakerSkipsCallsThatSayNothing is the store of TestAnalyzeBreakerSkipsCallsThatSayNothing.
func storeAnalyzeBreakerSkipsCallsThatSayNothing() *windowStore {
	st := &windowStore{}
	const open = 60_000
	for k := range 2 {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 960+k),
			logAt("", "fraud", 35_000+1000*k, schema.SeverityError,
				`Get "https://api.fraud-score-api.example.com/v2/score": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`),
			logAt("", "ledger", 35_005+1000*k, schema.SeverityError,
				"request to fraud failed: unexpected status 500 Internal Server Error from fraud"))...)
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 970+k),
			logAt("", "ledger", 45_000+5000*k, schema.SeverityError,
				`Get "http://fraud:8080/score": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`))...)
	}
	st.recs = append(st.recs, openBreaker(open, "failed to call fraud: hystrix: circuit open",
		map[string]string{schema.AttrPeerService: "fraud"})...)
	return st
}

// TestAnalyzeBreakerIgnoresCallsRefusedFast: in the last seconds, callers'
// calls to catalog got 503s that catalog's own breaker answered. Those
// echo a refusal; the traces where catalog failed on account say what
// tripped gateway's breaker on catalog.
func TestAnalyzeBreakerIgnoresCallsRefusedFast(t *testing.T) {
	wantSuspect(t, storeAnalyzeBreakerIgnoresCallsRefusedFast(), "account")
}

// storeAnalyzeBreakerIgnoresCallsRefusedFast is the store of TestAnalyzeBreakerIgnoresCallsRefusedFast.
func storeAnalyzeBreakerIgnoresCallsRefusedFast() *windowStore {
	st := &windowStore{}
	const open = 60_000
	for k := range 2 {
		at := 10_000 + 1000*k
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 980+k),
			logAt("", "account", at, schema.SeverityError, "NullPointerException: balance is null"),
			logAt("", "catalog", at+5, schema.SeverityError,
				"request to account failed: unexpected status 500 Internal Server Error from account"))...)
	}
	for k := range 3 {
		at := 45_000 + 1000*k
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 990+k),
			logAt("", "catalog", at, schema.SeverityError, "Error handling request: Breaker is open"),
			logAt("", "mobile-bff", at+3, schema.SeverityError, "GET: unexpected status 503 Service Unavailable from catalog"))...)
	}
	st.recs = append(st.recs, openBreaker(open, "failed to call catalog: hystrix: circuit open",
		map[string]string{schema.AttrPeerService: "catalog"})...)
	return st
}

// TestAnalyzeBlindBreakerLooksFurtherBack: account's breaker names nothing
// and has refused for minutes. In the last two minutes account only
// refused; the failures that tripped it are older. Two of them are bare
// timeouts that name no callee, which say no more than the breaker did;
// the one that names identity-provider says where.
func TestAnalyzeBlindBreakerLooksFurtherBack(t *testing.T) {
	wantSuspect(t, storeAnalyzeBlindBreakerLooksFurtherBack(), "identity-provider")
}

// storeAnalyzeBlindBreakerLooksFurtherBack is the store of TestAnalyzeBlindBreakerLooksFurtherBack.
func storeAnalyzeBlindBreakerLooksFurtherBack() *windowStore {
	const open = 700_000
	refused := func(id string, ms int) []schema.Record {
		return inTrace(id,
			logAt("", "account", ms, schema.SeverityError, "Error handling request: Breaker is open"),
			logAt("", "shipping", ms+5, schema.SeverityError, "request to account failed: unexpected status 503 Service Unavailable from account"))
	}
	st := &windowStore{}
	st.recs = append(st.recs, inTrace("00000000000000000000000000000a01",
		logAt("", "account", open-300_000, schema.SeverityError,
			"Error handling request: giving up after 2 attempts: timeout of 3000ms exceeded calling identity-provider"),
		logAt("", "shipping", open-299_990, schema.SeverityError, "request to account failed: unexpected status 503 Service Unavailable from account"))...)
	for k, ms := range []int{open - 250_000, open - 200_000} {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xa02+k),
			logAt("", "account", ms, schema.SeverityError, "Error handling request: timeout of 5000ms exceeded"),
			logAt("", "shipping", ms+10, schema.SeverityError, "request to account failed: unexpected status 503 Service Unavailable from account"))...)
	}
	for k, ms := range []int{open - 60_000, open - 30_000} {
		st.recs = append(st.recs, refused(fmt.Sprintf("%032x", 0xa10+k), ms)...)
	}
	st.recs = append(st.recs, refused(string(openTrace), open)...)
	return st
}

// TestSignalAboutACallIsNoSuspect: account's breaker names nothing, and
// before it shipping warned that its breaker on account opened. That
// warning is about account (shipping calls it, though no span says so),
// not a fault of shipping's own.
func TestSignalAboutACallIsNoSuspect(t *testing.T) {
	res := AnalyzeRecords(inTrace(string(tid),
		logAt("", "shipping", 0, schema.SeverityWarn, `circuit breaker "payments" state changed from CLOSED to OPEN`),
		logAt("", "account", 5, schema.SeverityError, "Error handling request: Breaker is open"),
		logAt("", "shipping", 9, schema.SeverityError, "request to account failed: unexpected status 503 Service Unavailable from account")), Options{})
	if res.Suspect == nil || res.Suspect.Service != "account" {
		t.Fatalf("suspect = %+v, want account", res.Suspect)
	}
}

// TestAnalyzeBreakerDescendsPastBareTimeouts: of four traces that tripped
// gateway's breaker on shipping, two stop at account timing out on
// something it does not name, one goes through account on to
// identity-provider, one to geo. The bare timeouts would have gone on if
// they could: they do not hold the walk at account.
func TestAnalyzeBreakerDescendsPastBareTimeouts(t *testing.T) {
	wantSuspect(t, storeAnalyzeBreakerDescendsPastBareTimeouts(), "identity-provider")
}

// storeAnalyzeBreakerDescendsPastBareTimeouts is the store of TestAnalyzeBreakerDescendsPastBareTimeouts.
func storeAnalyzeBreakerDescendsPastBareTimeouts() *windowStore {
	st := &windowStore{}
	from503 := "request to account failed: unexpected status 503 Service Unavailable from account"
	for k := range 2 {
		at := 20_000 + 1000*k
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xb00+k),
			logAt("", "account", at, schema.SeverityError, "Error handling request: timeout of 5000ms exceeded"),
			logAt("", "shipping", at+5, schema.SeverityError, from503))...)
	}
	st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xb02),
		logAt("", "account", 15_000, schema.SeverityError, "request to identity-provider failed: timeout of 3000ms exceeded"),
		logAt("", "shipping", 15_005, schema.SeverityError, from503))...)
	st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xb03),
		logAt("", "geo", 16_000, schema.SeverityError, "NullPointerException: region is null"),
		logAt("", "shipping", 16_005, schema.SeverityError, "request to geo failed: unexpected status 500 Internal Server Error from geo"))...)
	slices.SortStableFunc(st.recs, func(a, b schema.Record) int { return a.Time.Compare(b.Time) })
	st.recs = append(st.recs, openBreaker(60_000, "failed to call shipping: hystrix: circuit open",
		map[string]string{schema.AttrPeerService: "shipping"})...)
	return st
}

// TestAnalyzeBlindBreakerNamedByItsOwnLines: account's breaker refuses
// without naming what it guards, and no earlier trace shows a failure of
// account other than refusals; but account logged which circuit opened.
func TestAnalyzeBlindBreakerNamedByItsOwnLines(t *testing.T) {
	st := storeAnalyzeBlindBreakerNamedByItsOwnLines()
	res, err := Analyze(context.Background(), st, openTrace, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Suspect == nil || res.Suspect.Service != "identity-provider" || !strings.Contains(res.Suspect.Reason, "its own refusals name") {
		t.Fatalf("suspect = %+v, want identity-provider, named by account's own breaker lines", res.Suspect)
	}
}

// storeAnalyzeBlindBreakerNamedByItsOwnLines is the store of TestAnalyzeBlindBreakerNamedByItsOwnLines.
func storeAnalyzeBlindBreakerNamedByItsOwnLines() *windowStore {
	const open = 100_000
	st := &windowStore{}
	for k := range 3 {
		ms := open - 90_000 + 20_000*k
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xc00+k),
			logAt("", "account", ms, schema.SeverityWarn, `circuit "identityProvider" opened`),
			logAt("", "account", ms+1, schema.SeverityError, "Error handling request: Breaker is open"),
			logAt("", "shipping", ms+5, schema.SeverityError, "request to account failed: unexpected status 503 Service Unavailable from account"))...)
	}
	st.recs = append(st.recs, inTrace(string(openTrace),
		logAt("", "account", open, schema.SeverityError, "Error handling request: Breaker is open"),
		logAt("", "shipping", open+5, schema.SeverityError, "request to account failed: unexpected status 503 Service Unavailable from account"))...)
	return st
}

// TestAnalyzeBlindBreakerSkipsTheDeadLettersOfItsRefusals: worker's
// breaker names nothing. In the minutes before, two messages timed out on
// psp, which tripped it; since, its refusals failed three messages' every
// delivery, and each went to the dead-letter queue. Those dead letters sum
// up refusals, not what tripped the breaker.
func TestAnalyzeBlindBreakerSkipsTheDeadLettersOfItsRefusals(t *testing.T) {
	wantSuspect(t, storeRefusalEcho(), "psp")
}

// storeRefusalEcho is the store of TestAnalyzeBlindBreakerSkipsTheDeadLettersOfItsRefusals.
func storeRefusalEcho() *windowStore {
	const open = 300_000
	st := &windowStore{}
	for k, ms := range []int{open - 100_000, open - 95_000} {
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xd00+k),
			logAt("", "worker", ms, schema.SeverityError, "request to psp failed: timeout of 3000ms exceeded"))...)
	}
	for k := range 3 {
		ms := open - 60_000 + 10_000*k
		id := fmt.Sprintf("%032x", 0xd10+k)
		st.recs = append(st.recs, inTrace(id,
			logAt("", "worker", ms, schema.SeverityError, "Error handling request: Breaker is open"),
			logAt("", "worker", ms+1, schema.SeverityWarn, fmt.Sprintf("message m%d from order-events failed (attempt 1/2), redelivering in 1s", k)),
			logAt("", "worker", ms+1000, schema.SeverityError, "Error handling request: Breaker is open"),
			logAt("", "worker", ms+1001, schema.SeverityError, fmt.Sprintf("message m%d for order %d moved to order-events-dead-letter after 2 attempts", k, 70+k)))...)
	}
	st.recs = append(st.recs, inTrace(string(openTrace),
		logAt("", "worker", open, schema.SeverityError, "Error handling request: Breaker is open"))...)
	return st
}

// storeCalleeNamedBefore: gateway's breaker for a region refuses, naming
// only the region's host (eu-1.ledger.internal); a minute before, its
// calls to that host failed and were retried, each line naming the callee
// remote.service=ledger-eu.
func storeCalleeNamedBefore() *windowStore {
	const open = 300_000
	st := &windowStore{}
	for k := range 3 {
		id := fmt.Sprintf("%032x", 0xe00+k)
		retry := logAt("", "gateway", open-60_000+1000*k, schema.SeverityWarn,
			`retrying request to ledger-eu attempt=2/2 error="Post \"https://eu-1.ledger.internal/\": connect: connection refused"`)
		retry.Attrs = map[string]string{"remote.service": "ledger-eu"}
		fail := logAt("", "gateway", open-59_500+1000*k, schema.SeverityError,
			`upstream call failed: giving up after 2 attempts: Post "https://eu-1.ledger.internal/": connect: connection refused`)
		fail.Attrs = map[string]string{"remote.service": "ledger-eu"}
		st.recs = append(st.recs, inTrace(id, retry, fail)...)
	}
	st.recs = append(st.recs, openBreaker(open, "upstream call failed: circuit breaker for ledger:eu-1 is open, not calling eu-1.ledger.internal", nil)...)
	return st
}

// TestCalleeNamedBefore: a host's label names no service; the lines
// before that name the host's callee do.
func TestCalleeNamedBefore(t *testing.T) {
	wantSuspect(t, storeCalleeNamedBefore(), "ledger-eu")
	for _, c := range []struct{ text, label, want string }{
		{`not calling EU-1.ledger.internal:8443/`, "eu-1", "eu-1.ledger.internal"},
		{`not calling eu-1 (region down)`, "eu-1", ""},                                             // no host
		{`calling ceu-1.ledger.internal, then eu-1.cache.internal`, "eu-1", "eu-1.cache.internal"}, // a label, not a suffix
	} {
		if got := hostBeginning(c.text, c.label); got != c.want {
			t.Errorf("hostBeginning(%q, %q) = %q, want %q", c.text, c.label, got, c.want)
		}
	}
}

// TestAnalyzeChainedBreaker: gateway's breaker on fleet opened because, in
// the traces before it, fleet failed only because its own breaker on
// region-api was open; in each, fleet also retried a call to prices,
// which got through. The breakers chain: region-api is what failed, not
// prices, and without breaker_chained those traces only failed fast and
// say nothing.
func TestAnalyzeChainedBreaker(t *testing.T) {
	wantSuspect(t, storeChainedBreaker(), "region-api")
}

// storeChainedBreaker is the store of TestAnalyzeChainedBreaker.
func storeChainedBreaker() *windowStore {
	st := &windowStore{}
	for k := range 4 {
		ms := 10_000 + 2000*k
		id := fmt.Sprintf("%032x", 100+k)
		st.recs = append(st.recs, inTrace(id,
			logAt("", "fleet", ms, schema.SeverityWarn,
				"Retrying prices.call in 0.04 seconds as it raised 503 Server Error: Service Unavailable for url: https://prices:8080/v2/spot"),
			logAt("", "fleet", ms+100, schema.SeverityError,
				"Error calling region-api: CircuitBreakerError: circuit region:west is open"),
			logAt("", "fleet", ms+101, schema.SeverityError, `10.0.0.1 - - "POST /v1/provision HTTP/1.1" 503 608`))...)
	}
	st.recs = append(st.recs, openBreaker(40_000, "Request processing failed: CircuitBreaker 'fleet' is OPEN and does not permit further calls",
		nil)...)
	return st
}

// storeCalleeNamedElsewhere: drafts' breaker is open, and its own lines
// name the inference API only by its host; labeler's retries of the same
// host, a minute before, name it model-api by an attribute.
func storeCalleeNamedElsewhere() *windowStore {
	const open = 300_000
	st := &windowStore{}
	for k := range 3 {
		id := fmt.Sprintf("%032x", 0xf00+k)
		retry := logAt("", "labeler", open-60_000+1000*k, schema.SeverityWarn,
			"retry 1/3 for POST https://api.inference.example.ai/v1/chat/completions in 200ms: timeout of 2000ms exceeded")
		retry.Attrs = map[string]string{"peer": "model-api"}
		fail := logAt("", "drafts", open-59_000+1000*k, schema.SeverityError,
			"giving up after 2 attempts: ETIMEDOUT: request to https://api.inference.example.ai/v1/chat/completions timed out")
		st.recs = append(st.recs, inTrace(id, retry)...)
		st.recs = append(st.recs, inTrace(fmt.Sprintf("%032x", 0xf10+k), fail)...)
	}
	st.recs = append(st.recs, openBreaker(open, "failed to call drafts: hystrix: circuit open",
		map[string]string{schema.AttrPeerService: "drafts"})...)
	return st
}

// TestCalleeNamedElsewhere: the trace behind an open breaker names its
// suspect only by a host's name, its writer's lines name it no other way;
// another service's lines before name the host by an attribute.
func TestCalleeNamedElsewhere(t *testing.T) {
	wantSuspect(t, storeCalleeNamedElsewhere(), "model-api")
	// No attribute: the words beside the host name it.
	st := storeCalleeNamedElsewhere()
	for i := range st.recs {
		if r := &st.recs[i]; r.Service == "labeler" {
			r.Attrs = nil
			r.Body = "failed to call inference-api: Post https://api.inference.example.ai/v1/chat/completions: timeout of 2000ms exceeded"
		}
	}
	wantSuspect(t, st, "inference-api")
	for _, c := range []struct{ text, label, want string }{
		{"request to https://api.inference.example.ai/v1 timed out", "inference", "api.inference.example.ai"},
		{"request to https://api.inference.example.ai/v1 timed out", "api", ""},
		{"request to 10.0.0.7:8080 timed out", "10", ""},
	} {
		if got := hostNamedAs(c.text, c.label); got != c.want {
			t.Errorf("hostNamedAs(%q, %q) = %q, want %q", c.text, c.label, got, c.want)
		}
	}
}
