// Package correlate explains one trace: which error came first (the
// origin), which errors followed from it (the cascade, each with the
// service it failed because of), and where the origin points (the
// suspect). It is what `analyze trace` prints, what /api/v1/trace serves,
// and what incident analysis (package rootcause) runs over every trace of a
// window.
//
// The entry points are [AnalyzeRecords], pure and fast, for records already
// in memory, and [Analyze], which reads one trace from a [Store]. The
// terminal rendering is [WriteText]; the failure class of a single record
// is [Classify].
//
// # Steps
//
// The analysis is an ordered list of small [Step]s over a shared [Trace]
// ([DefaultSteps]): dedupe, span tree, clock-skew correction, classify,
// causal order, origin and cascade, suspect. A step never fails: what it
// cannot repair becomes a warning on the Result (a duplicated record, a
// span whose parent is missing, a parent cycle, a skew too large to
// correct), and the next step works with what there is.
//
// # Dedupe
//
// A record shipped twice (two agents tailing one file, a retried batch)
// is kept once: same type, time, span, service, severity and text.
// Records of a different trace id than the first are dropped.
//
// # Span tree
//
// A record without a service field (a plain-text line shipped as is) is
// given the service its text names: a "service.name=X" or "service=X"
// field, or the "[ERROR] X: ..." prefix; else it stays unnamed, and an
// unnamed service is never chosen over a named one as a suspect.
//
// Every span becomes a node linked to its parent. Logs attach to spans by
// span id; a span id that only logs carry becomes a virtual node; a log
// without a span id goes to the deepest span of its own service that was
// open when it was written. Spans that share an id are merged; a missing
// parent makes a root; a parent cycle is cut.
//
// # Clock skew
//
// Hosts disagree about the time by hundreds of milliseconds or more, and
// the span tree is stronger evidence than raw timestamps. Walking parents
// before children, a child span on another host (host.name or k8s.pod.name,
// else the service) that starts before its parent, or ends after it, by
// more than Options.SkewTolerance is shifted, with its whole subtree and
// the logs attached to it: centred in the parent when it is shorter,
// aligned to the parent's start otherwise. A child that starts inside a
// parent which failed (a caller that timed out and moved on) may outlive
// it and is left alone, as are consumer spans of messages. A correction
// larger than Options.MaxSkew is not applied. Every correction is a
// warning and shows in the timeline as adjusted_ms.
//
// A trace without spans has only its lines: a line of a caller naming the
// callee it calls ("calling http://orders:8080/...") bounds the callee's
// clock from below (its lines cannot precede the call).
//
// # Classify
//
// Each error record (ERROR and above, or a span with error status) gets a
// class from the failure kinds of the contract; WARN lines and spans with
// a failing status code get a kind only when they signal a failure (a GC
// pause, a pool wait, a retry, a timeout), because a callee under memory
// pressure may log no error at all. [Classify] looks at the lowercased head
// and tail of the message (the tail of a Java stack trace names the root
// "Caused by"), exception.type, HTTP and gRPC status codes. Specific
// phrases of real software (HikariCP, Resilience4j, Hystrix, gobreaker,
// pgx, database/sql, SQLAlchemy, Envoy, Spring Cloud, JVM GC logs, Go,
// Python and Node runtime errors) win over status codes, and status codes
// over generic words. A trigram bitmap of the text rejects most patterns
// without scanning, so classification costs about a microsecond.
//
// Each failure also names the callee it points at, when it does: by the
// name an attribute gives it, explicit names first (peer.service,
// remote.service, peer, server.address, net.peer.name, db.name,
// rpc.service, messaging.destination.name, without a port; callee_named),
// the same keys written key=value in a plain line's text, then the host
// of url.full or http.url, or from its text (a URL's host, "calling X",
// "call to X", "query to X" (a store queried), "No instances available
// for X", a breaker's or bulkhead's quoted name). The name is
// matched to the trace's services by exact name, by letters and digits
// ("paymentService" is payment-service), by the first DNS label, or as a
// pod-name prefix; an unmatched name is kept as an external dependency.
// An error that names no service of the trace (an address, nothing) but
// quotes another service's error message ("POST http://10.0.3.7/charge
// returned 503: <payments' own message>") names that service
// (quoted_error), and one that reports what a service of the trace
// answered ("orders returned 400") names it (callee_answered): the walk
// reaches its error even when that error alone would not propagate, and
// the suspect's reason says which rule named it.
//
// # Causal order
//
// Records are ordered by corrected time; at equal times a span precedes
// its logs and a parent its children. Traces without spans are ordered by
// time alone. A span fails at its end, so errors are ordered by when they
// happened: a span error at its end, a log at its time.
//
// # Origin and cascade
//
// The origin is the first error in causal order. An error span whose
// service logged an error for the same request is left out (the log says
// it better). Every later error is cascade; the same service repeating the
// same error signature (a retry) is folded into its first occurrence and
// counted in repeats. Each cascade entry says whom it failed because of:
// the failing callee it points at, else the nearest earlier error of
// another service that is not one of its callers, else its own service.
//
// # Suspect
//
// Symptoms point elsewhere and the analysis follows the pointer: a timeout,
// an open breaker, a full bulkhead, exhausted retries, a refused
// connection (and a 5xx) point at the callee. The callee a record names
// itself (peer.service, a URL's host, "calling X") wins; else the failing
// call's child span on another service (one that failed, then one that
// signalled; a callee that answered fine only for a timeout, as the slow
// one); else the failed outbound call of the same service under it; else
// the callee named by the latest earlier failure of the same service in
// the same span ("giving up after 3 attempts" after retries that named
// it). A fast
// failure (an open breaker, a full bulkhead) made no call: the spans under
// it are other calls and are not used. While the callee logged an error,
// the walk moves to the callee's first error; it ends at the deepest
// failing service with no failing dependency of its own. A callee that
// logged only failure signals becomes the suspect with the signal's kind
// (GC pauses make resource-gc), unless its signal points further (its own
// breaker open, its retries of another callee), which the walk follows. A
// silent callee of a symptom becomes the suspect with the symptom's kind:
// an open breaker with no downstream error in the trace points at the
// dependency it protects, and a 429 at the service that throttles. A 429
// stops the walk at the throttler even when it logged errors: refusing is
// its own decision, unless it was throttled itself further down. A
// symptom that names no callee falls back on another service, not one of
// its callers, that signalled trouble of its own before it (a GC pause,
// pool waits; not a retry or a breaker changing state, which are about a
// call). A bare 5xx that names no callee falls back on the first error of
// another service, neither its caller nor complaining about it, that
// failed on a call to a third one: in a trace without spans, and with
// clocks that disagree, that is the dependency the 5xx was about. The
// suspect's reason spells out each hop.
//
// The walk starts at the origin unless the origin is incidental: an error
// inside a request its service still answered successfully (a metrics
// flush to a local agent failing, a handled error), or an error of a kind
// that does not propagate (unknown, deterministic, auth, not found) that
// nothing in the trace failed because of. It then starts at the first
// error that is not; when every error is incidental (the request succeeded
// after a retry), at the first of a kind that propagates, else at the
// first whose own request failed (a message its consumer rejected). When
// the error it starts at, or the first error of a callee it moves to, is
// of a kind that does not propagate and a later error of the same service
// in the same span does propagate and names a callee ("request to
// promotion failed: EOF", or a breaker open on it, after "audit event
// rejected"), the walk goes on from that later error: it is what failed
// the request. [Analyze], which reads a store, also passes over an error
// of that kind that the suspect's service logged as often in the hour
// before, from the oldest part of what the store holds of it on (a locale
// it cannot resolve, all day long), and walks again, up to three times;
// the reason says so. A trace with no error but failure signals (a caller
// retrying 429s) stays unfailed and still gets the suspect its first
// signal points at.
//
// Dependencies outside the trace are named by their host's registered
// domain ("api.stripe.com" is stripe) or, inside a cluster, by the first
// label ("payment.default.svc.cluster.local" is payment); a label written
// in camelCase takes the dashed form of DNS names ("TimeLimiter
// 'fxRatesApi'" names fx-rates-api); a breaker's short
// name takes the peer.service of a call to the same dependency. A name
// matches a service whose name begins it only when what it adds is
// generic ("shipping-service", a pod's hash; not "payment-provider-api"
// for payment), and an address in a message ("connect ECONNREFUSED
// 10.1.63.206:8080") takes the peer.service of the span that failed with it,
// else the name a failure line gives beside the same address ("retrying
// request to shipping-svc ... dial tcp 10.3.225.155:50051").
//
// # Open breakers across traces
//
// An open breaker's trace shows no cause: the calls that tripped it failed
// in earlier traces. When [Analyze] reads from a [WindowStore] and the
// suspect is the silent dependency of a fast failure (or the failing
// service itself, when its breaker names nothing), it reads the failures
// of that dependency in the two minutes before (or, when it has none under
// that name, the failures of calls to it in the last thirty seconds, else
// two minutes),
// leaving out fast failures, bare statuses and warnings about the
// service's own work (a slow query), and analyses the latest
// traces they belong to, starting each walk at the dependency's first
// telling error. For a breaker that named its dependency, the failed
// calls to it of the last thirty seconds count too, and a walk starts at
// the failed call: the dependency's own errors may be about something
// else than what its callers were refused. Such a call does not count
// when the dependency refused it fast (its own breaker open), nor when
// its walk ends at the dependency with nothing of the dependency's own in
// the trace, unless the dependency answered 429 or refused connections. A trace where the dependency only failed fast does not
// count. For a breaker that names nothing, the bare errors (a 503, an error nothing
// recognises) of the traces where it refused do not count either. Nor
// does a trace whose walk ends at an error that need not fail a request
// (a rejected token) and that its service logged as often in the hour
// before, and already in the oldest part of what the store holds of that
// hour: that is noise beside what tripped the breaker. The
// suspect becomes the service most of their walks end at or go through,
// then, down the chain, the deepest one at least half of them reach (when
// the breaker named its dependency, only a majority moves it); a walk
// that ends back at the breaker's own service does not count, nor one
// that ends at the dependency's own symptom naming no callee (a timeout of
// something, its own breaker refusing): it says no more than the breaker
// did. When a breaker that names nothing has refused for longer than two
// minutes and they show only refusals, its service's failures of the ten
// minutes before are read the same way; when those tell nothing either,
// the service's own refusals that name a dependency ("circuit
// 'identityProvider' opened", a named bulkhead full) say what its breaker
// guards, and that dependency is followed as if the breaker had named it.
// The reason
// quotes the counts and an example trace. A breaker behind a breaker is
// followed the same way, three deep at most. [AnalyzeRecords], which has
// no store, stops at the dependency; [StoreRules] applies what Analyze
// does with the store to its results, for a caller that holds many traces'
// records (incident analysis), so that a trace gets one suspect whichever
// command asks. Every rule that reads the store looks back from the end of
// the tripQuantum (10 s) its failure fell in, and reads once for all the
// traces of that quantum: hundreds of refusals of one breaker follow it
// once.
//
// # Rules
//
// What [Analyze] does with the store beyond the trace is a set of small
// named rules in ordered registries (rules.go), each in its own
// rule_NAME.go with its condition, constants and test in its doc
// comment. Every reason clause a rule writes ends with its name in
// brackets, " [usual_noise]", or several for a clause several decided:
// the lookbacks that found the traces backing a breaker's suspect and the
// vote rule that chose it, " [breaker_lookback_dependency
// breaker_vote_most]". TestRules runs each rule's scenario with and
// without it. Each pays for itself in `analyze eval --ablate` (ranking,
// kind and per-trace origins, over both real sets and the simulator's
// families at a 15-minute and a one-minute baseline):
// trip_filter_usual_origin, trip_filter_own_service,
// breaker_vote_named_majority, breaker_address, breaker_alias and
// breaker_next_down were deleted when switching them off changed no case
// on seeds 43000 to 46000 (trip_filter_refusal_echo and
// breaker_vote_descend, deleted with them, came back: without the first
// the payment cascade of seed 47011 ranks its dead-letter queue first;
// without the second the silent databases of seed 62000 lose the
// per-trace origin of most of their failing traces to the service in
// front of them). In order:
//
//	storeRules, after the per-trace steps:
//	usual_noise                  suspect's own weak error logged as often as the hour before: walk again without it   usualRounds, breakerLookback, usualBefore, tripQuantum TestRules/usual_noise
//	breaker_follow               suspect is the silent dependency of a fast failure: follow breakerRules, chained      breakerDepth, tripQuantum                  TestRules/breaker_follow
//	callee_named_before          a suspect only a host's label names: the name its service's lines before give the host  breakerLookback, breakerScan, tripQuantum TestRules/callee_named_before
//	callee_named_elsewhere       the same, from any service's lines before the origin (a host named by its    breakerLookback, breakerScan, tripQuantum TestRules/callee_named_elsewhere
//	                             external name, "inference" of api.inference.example.ai), when the writer's do not
//	troubled_caller              the caller whose call named a silent suspect logged rising GC/OOM lines: blame it     troubleLookback, troubleEarlier, troubleMin, tripQuantum TestRules/troubled_caller
//	caller_deploy                the suspect rejected a call of a caller whose version is new, and since: blame it    deployLookback, deploySettle, deployRecentMin, tripQuantum TestRules/caller_deploy
//	                             (or of a caller passing on what the trace's one newly deployed service answered;
//	                             a version is service.version, else its pod's template hash; a rejection is its
//	                             own kind, or, when its words name none, the kind its caller read the call's failure as)
//
//	breakerRules, for each breaker followed:
//	breaker_lookback_dependency  the dependency's own errors and warnings before the fast failure                      breakerLookback, breakerScan               TestRules/breaker_lookback_dependency
//	breaker_lookback_key         unnamed breaker kept for a key ("breaker for ns"): its service's lines naming the key breakerLookbackFar, keyScanCap        TestRules/breaker_lookback_key
//	                             and a failure, at any level; walks from each trace's own first failure
//	breaker_lookback_reported    keyed breaker whose key no trace names: the failed traces its service served       breakerLookbackFar, keyScanCap        TestRules/breaker_lookback_reported
//	breaker_lookback_callers     named breaker, dependency failed: callers' failed calls to it in the last seconds    breakerLookback/4, breakerScanAll          TestRules/breaker_lookback_callers
//	breaker_lookback_calls       nothing found: every service's failures of or calls to it, 30s then 2min          breakerLookback(/4), breakerScanAll         TestRules/breaker_lookback_calls
//	breaker_weigh                analyse the latest hits, less tripFilters, and weigh them with voteRules           breakerTraces, breakerCandidates           TestRules/breaker_weigh
//	breaker_lookback_far         unnamed breaker, nothing settled: the dependency's own errors 10min to 2min back  breakerLookbackFar, breakerScanAll         TestRules/breaker_lookback_far
//	breaker_guard                unnamed breaker, nothing settled: the dependency its own breaker lines name most   none                                       TestRules/breaker_guard
//
//	hitFilters, on every record a lookback reads:
//	hit_filter_server_span       a span that names no peer                                                          none                                       TestRules/hit_filter_server_span
//	hit_filter_fast_failure      a fast failure (noting the dependency's refusals and what they guard)             none                                       TestRules/hit_filter_fast_failure
//	hit_filter_own_work          a warning that names no callee and points nowhere (a slow query, a GC pause)      none                                       TestRules/hit_filter_own_work
//	hit_filter_own_refusals      unnamed breaker: a vague error in a trace where the dependency refused            none                                       TestRules/hit_filter_own_refusals
//
//	tripFilters, on every analysed tripping trace (first match skips it):
//	trip_filter_unfelt           walk from and to the dependency, nothing else failed                              none                                       TestRules/trip_filter_unfelt
//	trip_filter_usual_suspect    the walk ends at a weak or transient own error its service logs as usual           breakerLookback, usualBefore               TestRules/trip_filter_usual_suspect
//	trip_filter_silent_call      a caller's call, and nothing of the dependency's own (not a 429, not refused)     none                                       TestRules/trip_filter_silent_call
//	trip_filter_blind_dependency the walk ends at the dependency's symptom naming no callee                        none                                       TestRules/trip_filter_blind_dependency
//	trip_filter_refusal_echo     unnamed breaker: the walk ends at its service's dead letter or retries given up,  none                                       TestRules/trip_filter_refusal_echo
//	                             after its breaker refused in the same trace
//
//	where a tripping trace's walk starts (walkStart):
//	breaker_chained              the dependency only failed fast, its own breaker naming another: walk from that   none                                       TestRules/breaker_chained
//	                             refusal to the dependency it names (a chain of breakers), not a retried call
//
//	voteRules, on the walks kept:
//	breaker_vote_most            the service most walks end at or go through                                        none                                       TestRules/breaker_vote_most
//	breaker_vote_descend         from it, down the chain, the deepest service at least half the walks that did not   none                                       TestRules/breaker_vote_descend
//	                             stop blind at it reach through it
//
//	hopRules, after each breaker followed:
//	breaker_kind                 the suspect's kind is the breaker's: the kind of what tripped it (a timeout)        none                                       TestRules/breaker_kind
//
//	skewRules, per trace, after the clock-skew correction (traces without spans):
//
//	where a record's callee is named (Options.naming):
//	callee_named                 the name an attribute (or key=value) gives the callee, before a URL's host;      namedAttrs                                 testdata/callee_named.txtar
//	                             a call span with no span below it is named by every such attribute                                                          testdata/callee_named_leaf.txtar
//
//	where the span tree is built:
//	spanless_parent              a span whose parent is missing, inside a call to a service that only logs: that  spanlessBudget                             testdata/spanless_parent.txtar
//	                             service's (a node of it under the call; SpanlessCallers gives rootcause the edge)
//
//	where the suspect walk meets a timeout on a silent callee, or a bare status:
//	timeout_wait                 the callee was itself in a call for most of the caller's wait: that dependency   waitShare, waitSlack                       testdata/timeout_wait.txtar
//	call_below                   a bare status whose callee a failed call below names: walk on from that call     none                                       testdata/call_below.txtar
//	silent_callee_unknown        an unknown failure naming a callee that never answered the call (no span below   none                                       testdata/silent_callee_unknown.txtar
//	                             its failed call, nothing logged; or no records at all): that callee
//
//	where the span tree names a failure's callee (calleeNode):
//	callee_succeeded             a callee whose span answered a success (< 400, gRPC 0) to a caller span that did  none                                       testdata/callee_succeeded.txtar
//	                             not fail is no failing callee, whatever it logged
//
//	classifyRules, per trace, after classification:
//	callee_status                a 5xx line's text tells its callee's 4xx ("X returned 422"): the callee's kind    none                                       testdata/callee_status.txtar
//	callee_answered              a failure naming no callee reports "X returned 503": X, a service of the trace  none                                       testdata/callee_answered.txtar
//	quoted_error                 an error naming no service of the trace quotes one's error: that is its callee   minQuote                                   testdata/quoted_error.txtar
//	vague_signal                 a vague error (a bare status) takes the kind of its service's signal just before signalLead (outside spans)                 testdata/vague_signal.txtar
//	                             it in the same span ("breaker open" then "POST /claim 503"), or of a refusal told  testdata/refusal_at_info.txtar
//	                             at info level
//
// The per-trace rules read no store and run in AnalyzeRecords as well;
// their scenarios are testdata/*.txtar files with a "rule" part, which
// TestScenarios also runs with the rule left out.
//
// Words with a special meaning in these rules: a lead is what a fast
// failure leaves to follow (the silent dependency, when, whether the
// breaker named it); a hit is a failure a lookback found, in a trace
// where the walk starts at it; a tripping trace is the trace of a hit; a
// walk is the suspect walk of a tripping trace; a blind walk ends on a
// symptom that names no callee (a timeout of something) and would have
// gone on if it could; weak errors need not fail a request (unknown,
// deterministic, auth, not found); a usual error is one its service
// logged as often in the hour before, and steadily; a troubled caller
// logged rising GC pauses or running out of memory before its call
// failed; a guard is the dependency a breaker's own lines name.
//
// # For incident analysis
//
// Besides the JSON document, a [Result] carries, outside the JSON, every
// failure with its class, signature, target and role ([Failure]), the
// caller -> callee edges of the span tree ([CallEdge]), and every span's
// service, operation, parent service, corrected start and duration
// ([SpanSummary]), so that ranking across traces need not redo the
// per-trace work. Options.SkipTimeline skips the per-record timeline.
package correlate
