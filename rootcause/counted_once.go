package rootcause

// ruleCountedOnce: each anomalous request is counted once. A failing
// trace's failure is explained by its suspect, as much as its first
// error's novelty says; a slower sample in the same trace (a compensating
// step that ran after a payment timed out, a retry's wait) explains only
// what the failure leaves unexplained of it. Without it, a service whose
// lines grew apart only in the traces that failed elsewhere (it released
// stock once the payment failed) explains those traces a second time,
// and its slowness, the failure's echo, outranks the failure's cause.
//
// Condition: a window's trace that failed, when the timing rules
// (call_timing, logged_timing) count the requests a shift slowed
// (shift.slowed): it counts at most 1 less its novelty (period.failNews);
// when behaviour counts the traces a shift changed, the failing ones among
// them count 1 less the failing traces' mean novelty. A service without
// spans whose lines state how long its requests took (an edge proxy's
// access line) waited, in that time, on the services it called: the part
// their spans do not cover is its own (period.uncovered), and when that
// part did not grow, its longer durations (and the time between its first
// and last line) are no slowness of its own: logged_timing leaves them to
// the spans that slowed. Nor when that part grew in requests that mostly
// called a service whose other callers' calls into it waited longer
// (call_timing's network delay): the time is on that service's network,
// which every caller crosses (onSlowWire).
// Scenarios: testdata/counted_once.txtar, testdata/counted_once_stated.txtar,
// testdata/counted_once_wire.txtar.
const ruleCountedOnce = "counted_once"
