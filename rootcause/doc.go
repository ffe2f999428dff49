// Package rootcause ranks root-cause candidates over an incident window.
//
// # Input
//
// The records of the window [From, To) and of a baseline period before it
// (by default the hour before, or as much of it as the store holds). Every
// record is a log line or a span, already normalised by ingest.
//
// # Per trace: origins, not volume
//
// The window's records are grouped by trace and each trace is explained by
// correlate: its origin (the first error in causal order) and its suspect
// (where the origin points: the callee of a timeout, an open breaker or a
// refused connection). Retry storms multiply the errors of callers, so
// counting errors points at the wrong service; counting suspects of failing
// traces does not.
//
// # Per service: what changed
//
// Every service gets a profile in the window and in the baseline: log
// templates (their rate, level and first time seen), error and warning
// rates, the self time of its spans (a span's duration less its children's)
// and the service versions it reported. Comparing the two finds what is new
// (templates never seen before, a new version), what vanished (templates
// that stopped), and what got slower. A service that logs the same errors
// all day scores nothing for them.
//
// # Scoring
//
// A candidate is a service with its most telling failure kind and error
// signature. Its score is the sum of named signals, each with an evidence
// line: trace_origin (share of failing traces that point at it),
// pointed_at (callers' timeouts and breakers naming it), new_errors
// (error signatures absent from the baseline), error_rate (errors beyond
// the baseline rate), pattern_shift (log templates appearing or vanishing),
// latency (span self-time regression), onset (how early its anomaly began
// relative to the others), deploy (a version change just before onset) and
// downstream (a penalty when a service it calls is itself anomalous and
// began earlier: the failure is deeper). Ties break by onset, then name,
// so the same input always gives the same ranking.
//
// # Identity
//
// A candidate's ID hashes its service, kind and signature, so the same
// candidate keeps its ID (and its runbook link) across runs.
package rootcause
