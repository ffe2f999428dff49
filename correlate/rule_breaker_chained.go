package correlate

// ruleBreakerChained: a breaker's dependency that, in the traces that
// tripped it, failed only because its own breaker on a dependency it names
// was open ("Error calling region-api: circuit region:west is open") failed
// for that dependency. The walk of such a tripping trace starts at that
// refusal and ends at the dependency it names, whose failures are then
// followed as the next breaker's (a chain of breakers, one per hop),
// rather than leaving the trace out as one that only failed fast, or
// settling on a call the service retried and got through.
//
// Condition: the walk of a tripping trace (weigh) finds no telling failure
// of the breaker's dependency; the dependency's first fast failure in the
// trace names a dependency other than itself (by its text or attributes,
// not a local agent).
// Test: TestRules/breaker_chained (TestAnalyzeChainedBreaker).
const ruleBreakerChained = "breaker_chained"
