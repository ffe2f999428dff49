// Package rootcause ranks root-cause candidates over an incident window.
//
// # Input
//
// The records of the window [From, To) and of a baseline period before it:
// by default the hour before. When that hour holds fewer records than the
// window (a store that keeps a sample of an earlier, fault-free period), the
// baseline widens to what the store holds before the window, up to
// MaxBaseline: a baseline thinner than the window cannot tell its noise
// from a change. Rates are per minute of data: a period counts only its
// ten-second slices that hold records, so a window whose end has not
// arrived, or a baseline made of separate samples, is not diluted by
// empty time. Every record is a log line or a span, already normalised by
// ingest.
//
// # Per trace: origins, not volume
//
// The window's records are grouped by trace and each trace is explained by
// correlate: its origin (the first error in causal order) and its suspect
// (where the origin points: the callee of a timeout, an open breaker or a
// refused connection). [Analyze] explains a failing trace as `analyze
// trace` does, with correlate's rules that read the store around it
// (correlate.StoreRules: an open breaker followed to the traces that
// tripped it, a caller's trouble or new version, a service's usual
// noise), so that both name one suspect for it (TestTraceAndIncidentAgree);
// [AnalyzeRecords], with no store, stops at what the trace shows. Retry storms multiply the errors of callers, so
// counting errors points at the wrong service; counting suspects of failing
// traces does not. A failing trace's vote is weighted by how far the count
// of its first error's signature in the window exceeds what the baseline
// rate explains (the most it plausibly is, and Poisson noise: Novelty, below), so
// chronic errors weigh little.
//
// A refused connection says its callee could not be reached. When the
// callee, observable in both periods, kept serving as usual (about as many
// records per minute, no new errors or warnings of its own, no slower
// spans, no change of behaviour), the pointer is discredited and the vote
// stays with the service that logged it: the failure is on its side of the
// call. Timeouts and open breakers keep pointing: they speak of the
// callee's quality of service, which an open breaker hides from its records.
// A caller whose own new trouble (GC pressure, memory exhausted) began
// before its call failed keeps that vote: a paused process fails its own
// calls. Names a message gives a dependency are settled against the
// caller's calls ("geo" for geo-api; spellings that differ only in case
// and punctuation are one), and records repeated in a trace count once.
//
// Votes then follow pointers across traces (pointerChains): when the
// service a vote points at fails, in its own traces, mostly by pointing at
// yet another service (its failures weighted by novelty, so the noise it
// always makes does not count), the vote moves on, unless that one was
// seen serving as usual, or its own failing traces are too few that the
// baseline's rate does not explain to say where they lead (novelty under
// 2: two stray timeouts do not carry the hundreds of votes its callers'
// timeouts gave it; those passing through it say it then). A service whose breaker refuses calls without
// naming anything, and whose own new failures are few next to the
// refusals, passes its votes to the callee most involved in the window's
// failing traces. A service that refuses work and names no dependency
// (a breaker keyed by a namespace, a region, a tenant: breaker_trips)
// passes its votes to where most of today's failing traces it served lead
// (weighed by novelty): the work whose failures tripped it. A service that is seldom a trace's origin (callers'
// breakers keep calls away from it, or it fails only in the middle of
// chains) is judged by its records in the traces that pass through it:
// its errors that point at a dependency, against its own trouble (a GC
// pause, a slow query, a pool timeout).
//
// # Per service: what changed
//
// Every service gets a profile in the window and in the baseline: log
// templates (their rate, level and first time seen), error and warning
// rates, the self time of its spans (a span's duration less its children's)
// and the versions it told (a service.version attribute, the template hash
// in a pod's name, a startup line's version: version.go). Comparing the two finds what is new
// (templates never seen before, a new version), what vanished (templates
// that stopped), and what got slower. A service that logs the same errors
// all day scores nothing for them.
//
// Only a service's own errors count as its own: not those that point at a
// dependency (a timeout, an open breaker), nor a line saying a named
// dependency answered with failure, nor a vague error (a bare "500", an
// error nothing recognises) that in most failing traces came after one of
// its calls failed. A leaf client span to a peer that left no span of its
// own (a third-party API, a database) is the peer's latency, not the
// caller's self time.
//
// # Per operation: behaviour
//
// A unit of behaviour is one execution of a service's operation (a span;
// or, for records of a trace that no span of their service holds, that
// service's part of the trace). Its events are the log statements it
// wrote, named by their code location when the line's header carries one
// (logger#line, file.go:42), else by their template, and the calls it
// made (child spans). For every operation seen in both periods, the share
// of executions in which each event occurs is compared (Nezha's
// P(event | operation)): conditioning on the operation cancels changes of
// traffic mix, which raw counts of log lines confuse with faults. A shift
// counts when it moves the share by at least minShareShift with a
// two-proportion z score of at least minShiftZ; it is blamed on the
// service whose operation it is. A method that throws or returns early
// stops writing the lines and making the calls that followed it; one that
// fails starts writing new ones. Symptoms that point at a dependency
// (timeouts, open breakers) are left to the pointers; error lines to
// the votes, except that an operation whose errors fell is recovering and
// what it stopped doing is no fault; a call that stopped or started counts
// only when its callee kept serving as usual (a caller stops calling a
// dependency whose breaker opened, and that is the dependency's failure).
// A service whose own callees are in trouble keeps only explainedShare of
// its behaviour signal: its change may be their symptom.
//
// Successions are events too: statement B written right after statement A,
// its share taken of the executions that wrote A. An exception swallowed
// halfway through a loop leaves B in the executions that got through once,
// which can hide the change in B's own share; "B no longer follows A in 42%
// of executions that wrote A, against 100%" does not. Only successions
// that stop count, and of a statement that stopped and its stopping after
// another, the stronger.
//
// A fault that began before the window the user asked about already shows
// in the newest part of the baseline, and against the whole baseline it
// shows only in part. So a baseline also keeps the behaviour of its older
// half apart; an event that stopped, not significantly against the whole
// but significantly against the older half, while the newer half had
// already moved at least half way towards the window, counts olderShare as
// much: traffic that drifted over the baseline looks the same. Events that
// started are not judged so: what a service does more often as its data
// grows over the hours is drift more often than not.
//
// # Ranking: what a candidate explains
//
// A candidate is a hypothesis that explains part of the incident. The
// window's anomalous requests are its failing traces (each weighed by
// novelty, below) and the requests the explaining rules find slowed or
// changed. A candidate explains:
//
//   - the failing traces whose suspect chain ends at it (trace_origin), or
//     that its new version's calls broke (deploy_effect);
//   - the requests its timing slowed (call_timing, logged_timing): each
//     request with a slow sample of it counts by how much longer those
//     samples made it, against what it took without them, up to one (a
//     request of 50 ms that waited 185 ms more counts whole; one of 300 ms
//     that waited 0.5 ms more hardly at all), less the share chance makes
//     slow. What a request took is its longest span, as one service's
//     clock timed it, not the spread of its spans' clocks (hosts' clocks
//     differ, and an asynchronous hand-over's queue wait is no one's work);
//   - the traces whose execution of one of its operations changed
//     (behaviour): the shift of the event's share times the traces that
//     ran the operation.
//
// Each count is weighed by how surely its test departs from the baseline:
// a vote by its novelty, a timing shift by its binomial tail, a behaviour
// shift by its z score. Its score is
//
//	score = E/N + wSymptoms · S/symptomScale
//
// where E is what it explains, N the anomalous requests of all candidates
// together (the failing traces' novelty and every candidate's slowed and
// changed requests), and S the sum of its own symptom signals on their
// weights (new_errors, latency, deploy, less downstream; symptomScale is
// their most), each adding symptomUnit (0.2/7) per unit of its weight, so
// wSymptoms is 0.114 in all: symptoms order candidates that explain about as much
// and rank those that explain nothing measurable; they never carry a
// candidate that explains little above one that explains much. A
// candidate's kind comes from its own lines and the timing's mechanism
// (describe). Each signal's Value is its
// term of the score: the explaining rules' share of N, the symptoms' part
// of wSymptoms; the first evidence line says the share ("explains 88% of
// the window's anomalous requests (…) [explained]").
//
// No rule drops evidence for a small sample: a test's power grows with
// its samples, and few samples give weak evidence, never none.
//
// The constants above that are chosen rather than derived (minDecades,
// fullDecades, slowFactor, olderShare, explainedShare, chainFloor,
// newVoteWeight, symptomUnit) are in tuning.go, and `analyze eval --tune`
// checks each by leave-one-set-out: for each set, the value that scores
// best on all the other sets is measured on the one left out
// (scripts/tune-all.sh writes docs/tuning.md).
//
//   - Novelty. A failing trace's vote is weighed by how far the count of its
//     first error's signature in the window exceeds what the baseline rate
//     explains: the highest rate the baseline's count makes plausible (the
//     upper end of its Poisson 97.5% range: three lines in one minute of
//     baseline allow 8.8 a minute), and two standard deviations of the
//     window's Poisson noise above it; a signature
//     absent from the baseline is new as surely as the baseline was long
//     enough to show it at the window's rate: 1 − exp(−rate · minutes of
//     baseline data) (exposure). A template written twice a minute is absent
//     from one minute of baseline by chance one time in seven. A signature
//     no more frequent than the baseline's rate explains is no news: its
//     failing traces explain nothing, and trace_origin then ranks its
//     service among the symptoms (by its raw share of failing traces).
//     Where failures lead (pointer chains) still weighs each trace at
//     least chainFloor: usual noise explains nothing, but its errors show
//     which way its failures point. The counts are of the signature's
//     failing lines (errors and warnings) when the window's are: an access
//     line's template is the same for a success and for a 503, and the
//     503s are new when the baseline only ever succeeded.
//   - Timing. A set of samples (an edge's waits, an operation's own work) is
//     tested twice: the share beyond 1.1 times the baseline's p95 (its tail)
//     and beyond twice its median (a median that moved under a long tail).
//     What chance gives is read from the baseline's own samples: a limit
//     that k of m baseline samples exceed is exceeded by a new one with
//     probability (k+1)/(m+1), whatever the distribution, and the count of
//     n new samples beyond it is beta-binomial, BetaBin(n, k+1, m−k): the
//     baseline's share is itself uncertain, the less so the longer the
//     baseline (betabinom.go). Its tail P(X ≥ slow), by its Chernoff bound
//     (exact when every sample is slow), in decades, says how surely:
//     minDecades (3) for a set to count as slowed, fullDecades (5) for its
//     evidence to count whole. Three of three calls slow against a
//     baseline of three is 1.3 decades: weak, and said so; fifty of fifty
//     is 4.4; thirty of a hundred against 5 of a hundred and forty is
//     seven (sixteen if the baseline's share were known). A share the baseline's own spread allows is no shift: 38% of
//     1400 beyond a limit that 46 of 140 baseline samples passed (33%) is
//     well inside it (0.3 decades), where the binomial at a known 33% would
//     be nearly 3 decades sure.
//   - Behaviour. A change of an event's share of an operation's executions
//     by at least minShareShift, with a two-proportion z score of at least
//     minShiftZ, counts in full from a z score of twice that. (Fisher's
//     exact test in its place, surer of less on a handful of baseline
//     executions, was tried: it also finds fewer changes in a callee, so
//     keptServing clears callees whose trouble explained their callers'
//     changes, and two nezha-tt cases fell; no case rose. So the change is
//     found by the z score, and counts as surely as Fisher's exact test
//     says, sureZ: two of three baseline executions against one of
//     forty-two is z 4.4, exact z 2.4.)
//   - A service seen serving as usual (keptServing: a refused connection
//     to it is its caller's doing; a chain does not move votes past it).
//     A template of its own that the baseline lacks says it did not, when
//     the absence is sure: at one rate over both periods, each of its n
//     lines falls in the window with probability w/(w+b) (minutes of data
//     of each), all of them with that to the n; at least minDecades
//     unlikely (absentSure). Fourteen lines over ten minutes, none in one
//     minute of baseline, are 0.6 decades: a rate one minute may miss.
//     A line that tells of the service's own trouble (memory, GC, a pool)
//     says it by its meaning, however thin the baseline.
//   - Two edges of one caller (ownsOtherEdge): a sole caller's slower calls
//     to a callee without spans are its own wire's when its calls to
//     another callee slowed where that callee's other callers' did not, in
//     a share the first does not surely exceed (the second edge's slow
//     calls of its n as the baseline of a beta-binomial, under minDecades).
//
// The report states the baseline's data (records, and minutes of data,
// which a span of hours may hold one of) and warns when it is thin: fewer
// minutes of data than the window.
//
// Ties break by onset, then name, so the same input always gives the same
// ranking.
//
// # Span timing on the call graph
//
// call_timing (calltiming.go) reads what logs do not say. A call between
// two services leaves the caller's client span and, as its only child, the
// callee's server span; the first less the second is the call's wait
// (network, queueing before the handler ran, connection setup). A span
// with no child in another service is its service's own work. Per call
// edge and per operation, the share of the window's samples slower than
// nearly all of the baseline's (beyond 1.1 times its p95 plus 0.2 ms, which
// about one in twenty exceed unchanged) is compared with that one in
// twenty, with a binomial z score. On the graph: calls into a service
// from its callers waited longer while its own work did not slow, it is
// its network or pod (network-delay); its own work slowed, it is starved
// (cpu-starvation), and the waits of calls into and out of it are that
// starvation's too; a caller whose calls to most of its callees waited
// longer owns those waits, and they are not its callees'; a peer that
// leaves no spans, whose callers' calls to it slowed, is slow itself
// (latency), under the name its callers' spans give it. The candidate's
// example traces are then its slowest calls or spans in the window. Only
// callees that leave spans make a caller's waits its own: the calls to a
// callee without spans are its whole time. A service none of whose edges
// is sure alone, whose edges in and out together are (Fisher's
// combination of their independent tests), is slow on the wire
// (wire_combined): against a minute of baseline no one edge can be.
//
// # A service without spans, by its own lines
//
// logged_timing (loggedtiming.go) times a service that leaves no spans by
// what its own lines say: the durations they state ("GET /cart 200
// 12.3ms", "grpc.time_ms=13.3") and the time from its first to its last
// line in a trace. Paired per trace with its caller's client span (only
// in traces with one call to it: clocks of different services disagree,
// so a line cannot be told by its time to belong to one of several), a
// line that times the whole call leaves the wait on the wire: that wait
// growing is a network delay. Its own account growing, with no error of
// its own and no dependency its failures blame, is starvation; its lines
// as far apart as before while its callers wait longer on it is, again,
// the network. Its slower requests in which it warned of a dependency
// ("retrying call to scorer", "CircuitBreaker 'scorer' is OPEN") are that
// dependency's when it is a candidate of its own (warned_wait): it waited
// on it, retried it or fell back from it.
//
// # Noise, and what explains a slower service
//
// Errors as frequent as in the baseline are the usual noise: their votes
// are weighed by novelty, and begin no anomaly (a service's onset is its
// earliest vote the baseline's rate does not explain).
// downstream takes off, besides its flat penalty, three quarters of the
// timing signals that include the time a service waited on the anomalous
// callee (latency, logged_timing, call_timing of a service without spans),
// and never takes off call_timing measured net of its callees. What a
// service calls is its callees in the call graph and the services its own
// failing traces point at: a service without spans names its dependencies
// only in its errors.
//
// # A baseline after the window
//
// When the store holds nothing before the window (history loaded after
// the fact, a retention that cut it), what it holds after the window is
// the only reference: the baseline is read from the window's end, at most
// as many records as a baseline holds, and the report says so.
//
// # Rules
//
// Every signal is a named rule (scorers in signals.go, run in this order;
// deploy_effect and downstream are weighed over all services after them).
// Weight E marks the explaining rules (their share of the anomalous
// requests); the others' weights are their most on the symptom scale
// (symptomScale), of which a candidate's symptoms add at most wSymptoms to
// its score. Each rule pays for itself in `analyze eval --ablate` over
// every set: pointed_at, error_rate, pattern_shift, onset, was_down, breaker_address, usual_origin and queueing (calls whose waits spread as well as
// shifted read as cpu-starvation: right on Online Boutique, wrong on the
// simulator's network delays, which spread) were deleted when turning
// them off changed nothing, pooled over both real sets and the simulator
// at a 15-minute and a one-minute baseline (new_errors alone changed
// nothing either, but with error_rate gone too one nezha-tt case fell: it
// stays). deploy_kind, and correlate's skew_quoted and skew_answered,
// went on 2026-12-03 when turning each off changed nothing over 491 cases
// (both real sets, the simulator and the seed systems of seeds 52000,
// 53000, 56000 and 58000-61000) nor over seed 43000's (docs/ablation.md).
// Its
// name ends each evidence line it writes ("… [call_timing]") and is the
// Signal's Name, so `analyze eval` reports the rule that decided a case.
//
//	rule          condition                                          weight  constants                           test (testdata/)
//	trace_origin  failing traces whose suspect it is, by novelty      E       two-sigma Poisson novelty of the    trace_origin.txtar, chains_test.go
//	              (explains them)                                             two counts' difference (a short
//	                                                                          baseline's rate is uncertain too),
//	                                                                          exposure
//	new_errors    its own error signatures absent from the baseline   1.5     full at 5 errors, warnings 0.2,     new_errors.txtar
//	              (as surely as the baseline would have shown them)           exposure
//	latency       p95 self time, or an operation's median, rose       1.5     ratio ≥ 1.5, 1 ms floor; ×0.25      latency.txtar
//	              (×0.25 when call_timing puts the wait on a callee;
//	              with call_timing, which reads the same spans, the two
//	              count as the larger, not their sum)
//	call_timing   slow share of its edges' waits or own work rose     E       1.1×p95+0.2 ms and 2×p50+0.2 ms,    call_timing_*.txtar
//	              (explains the time slowed requests lost to it)              beta-binomial BetaBin(n, k+1, m−k),
//	                                                                          3 and 5 decades
//	wire_combined no edge of it sure alone, its edges in and out      E       Fisher's method over its edges,     wire_combined.txtar
//	              together are: slow on the wire (network-delay)              minDecades
//	logged_timing a spanless service's own stated durations rose      E       as call_timing                      logged_timing_*.txtar
//	              (cpu-starvation), or stayed while calls to it
//	              slowed (network-delay, 0.5)
//	behaviour     P(event | operation) shifted (explains the traces   E       minShareShift 0.3, minShiftZ 3,     rootcause_test.go
//	              whose execution changed; only those without an              full at exact z 6                   behaviour*.txtar
//	              error when failing traces passed through it to a
//	              deeper cause, or when it failed after another
//	              service in most of those it failed in: its change
//	              there is their failure, counted once, there)
//	deploy        a version absent from the baseline: service.version, 1.0    restartLoop 6 startup lines         deploy*.txtar,
//	              a pod template hash, or a startup line's version            (version.go)                        version_test.go
//	deploy_effect a callee fails only in its new version's calls,     E moved ≥ 80% of known callers, 5 traces,   deploy_effect*.txtar
//	              which came with it (rate since ≥ 3× before); or in          riseFactor (correlate.Risen),
//	              traces its new version served, which fail more              minDecades (binomial, as call_timing)
//	              than before it, with a kind a request can cause
//	breaker_trips a service refusing work, naming no dependency,      E       majority of the served traces'      breaker_trips.txtar
//	              leads where the failing traces it served lead               novelty                             chains_test.go
//	              (a full bulkhead only when it logged it itself:
//	              not a caller's own bulkhead for calls to it)
//	throttle_stays a vote of a 429 stays with its throttler: chains     —       none                                throttle_stays.txtar
//	              do not move it to where its other failures lead
//	spanless_entry a span whose parent is missing, that no call          —       none                                spanless_entry.txtar
//	              encloses, was called by the one service that takes
//	              the request and leaves no spans (the call graph's edge)
//	wrapped_known an error the baseline logged in another wrapping     —       minWrapped 24 bytes                 wrapped_known.txtar
//	              (a job's failure quoting it) is not new: novelty
//	              counts the wrappings' rate
//	refused_stays a vote of a refused connection stays with the        —       none                                refused_stays.txtar
//	              service that refused it (it was not listening)
//	deploy_stays  a vote for a new version whose answers a callee      —       none                                deploy_stays.txtar
//	              refused (correlate's caller_deploy) stays with it            (read through a store)
//	counted_once  a failing trace counts once: a slower sample in it   —       none                                counted_once.txtar
//	              explains only what its failure's novelty leaves
//	              (call_timing, logged_timing); behaviour's change
//	              in failing traces, 1 less their mean novelty; a
//	              spanless service's stated durations count only
//	              by the part its callees' spans do not cover                                                      counted_once_stated.txtar
//	              (nor by time on a slow callee's wire)                                                            counted_once_wire.txtar
//	                                                                                                               counted_once_wire_out.txtar
//	own_trouble_stays an error of its own resources (a pool with no    —       half of the errors passing through  own_trouble_stays.txtar
//	              free connection, GC, memory, CPU) leads to its              it, for breaker_trips
//	              service, not the callee it names; nor does
//	              breaker_trips move such a service's votes
//	warned_wait   a spanless service's slower requests in which it    E       none (the share that names it)      warned_wait.txtar
//	              warned of a dependency (a retry, an open breaker,
//	              a fallback) are that dependency's, when it is a
//	              candidate: the service waited on it, not starved
//	own_waits_stay a vote for a service whose calls to a callee        —       none                                own_waits_stay.txtar
//	              waited on its own side (call_timing) stays;
//	              the chains do not move it to that callee
//	about_other   a line naming another service of the window as a    —       minAboutName 4                      about_other.txtar
//	              word is that one's: not its writer's new error nor
//	              a change in its writer's behaviour
//	downstream    it calls an anomalous service that began no later  -1.0     callee ≥ 25% of its score, 1 s      downstream.txtar
//	              (its behaviour change then explains explainedShare
//	              of what it did, as one that follows from a callee's
//	              trouble, unless every such callee kept serving;
//	              the requests its timing slowed, measured with its
//	              waits on them, explainedShare too: downstream_waits)
//	              (never below its call_timing measured net of its
//	              callees; scaled by 1 − how surely its network is slow)
//
// Kind rules, when a candidate's kind is chosen (describe, in rank.go; each
// writes an evidence line when it decides; memory_weight is a kindRule,
// in kind_memory.go, applied when no signal named the kind):
//
//	end_state     its own new errors tell of a later mechanism (or of —       endStates: oom, poison > pool, gc   end_state*.txtar
//	              one, when its most telling line names none)
//	crashed       its own new error says its process exits: down       —       exitWords                           crashed.txtar
//	telling_votes the votes that name a mechanism choose the kind:     —       none                                telling_votes.txtar
//	              unknown and transient votes (noise that followed a
//	              chain) are left out when any other remains
//	slow_transient its callers' votes say transient, but call timing   —       none (call_timing's test)           slow_transient.txtar
//	              found the calls into it slowed: it hung, then
//	              dropped them: dependency-timeout
//	memory_weight its own new lines tell of GC pauses and of kills     —       oomPauses (10): a kill weighs 10    memory_weight*.txtar
//	              (out-of-memory lines, or restarts on a version it            GC-pause lines
//	              ran before): the kind that weighs more
//
// Vote adjusters before the scoring (traces.go): a refused connection to a
// callee that kept serving as usual stays with its caller; a caller's own
// new GC or memory trouble keeps its failed calls' votes (the condition is
// correlate's troubled_caller, applied through correlate.Troubled); votes
// follow pointer chains (pointerChains).
// A breaker that opened on failures its traces no longer show (a blind
// breaker) is correlate's alone (breaker_lookback_far, breaker_guard,
// trip_filter_blind_dependency read the store around the trace); the
// chains here follow only what the votes name. Votes' names of one
// dependency are one name (resolveNames): spellings that differ in case
// and punctuation, and a name nothing knows that is another's but for a
// generic suffix (a host's label "geo-vendor", the callers' "geo-vendor-api").
//
// Every rule has scenario files under testdata/ named after it
// (TestRuleScenarios: a baseline and a window of call trees in, the
// expected candidates and evidence out, and the same scenario must come
// out otherwise with the rule switched off); the hand-built incidents of
// rootcause_test.go test them too.
//
// # A deploy that raises no error of its own
//
// deploy_effect (deployeffect.go): a new version can break what it calls
// without failing itself, and the callee that rejects its calls is then
// every failing trace's origin. When at least 80% of a callee's failing
// traces whose spans tell the caller are calls from a service whose new
// version was first seen before the callee's first error, while the
// callee's calls from other services go through, the callee's
// trace_origin share moves to the deployed service (kind bad-deploy), and
// the deployed service is not marked down for calling a service that
// failed.
//
// A new version also acts through its answers (a classifier that starts
// giving a new label fails nothing; its callers act on the label and fail
// elsewhere). Every trace a service with a version takes part in counts as
// served before or after its newest version first showed (rollouts; the
// baseline's traces are before). When the traces the new version served
// fail more often than those served before (the binomial tail of the
// failures after at the rate before, at least minDecades), and at least
// 80% of a callee's failures since the version that its rate before does
// not explain were in traces the new version served, and they are of a
// kind a request can cause (a rejection, an unknown or unauthorised
// input; not a timeout or a resource running out), the callee's share
// moves as above.
//
// # Identity
//
// A candidate's ID hashes its service, kind and signature, so the same
// candidate keeps its ID (and its runbook link) across runs.
//
// # Cost
//
// A period is read once, in time order (twice when a name given late in
// it settles a host name anew, see settled), and nothing of it is held
// but its failing traces (stream.go): every record is profiled as it arrives,
// while the store reads the next ones on another core; a healthy trace is
// gathered while it is open, learnt from once it closes (its self times,
// calls, edges and behaviour) and let go; the window's failing traces,
// which the stores' error index names before the read, are held whole
// and explained once the window is read. The baseline (bounded to about as
// many records as the window and at most 500k, see BaselineRecords) holds
// nothing, and is read and profiled on another core while the window's
// failing traces are explained. Only the attributes the analysis reads are
// decoded (AttrKeys), and what the period keeps of a record is a string
// of its own, not a view of the store's block. The store rules read the
// store once per dependency and ten-second quantum, not once per trace
// (correlate's tripQuantum). Memory is then the failing traces and a
// minute of open traces, not the window (docs/memory.md). What would go
// further: explaining failing traces on the second core as they close,
// and keeping per-template counts at ingest so the baseline need not be
// read record by record.
package rootcause
