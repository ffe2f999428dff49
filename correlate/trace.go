package correlate

import (
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
)

// Trace is the working state the steps of one analysis share. It is built
// by AnalyzeRecords and owned by that call; steps read and extend it.
// Indices called "entry" point into the kept (deduplicated) records.
type Trace struct {
	// ID is the trace being analysed: the id of the first record with one.
	ID schema.TraceID

	recs []schema.Record // the input, never modified
	opts Options

	ents  []entry
	fails []failInfo
	nodes []node
	// answered are the services whose failures below a span that answered
	// with a success the span tree passed over (callee_succeeded).
	answered []int32
	// spanIDs[i] is the span id of nodes[i]; bySpan indexes them once
	// there are more than spanScanMax.
	spanIDs []schema.SpanID
	bySpan  map[schema.SpanID]int32
	svcs    []svcState // services in order of first appearance
	byDepth []int32    // node indices, parents first (nodesByDepth)

	order  []int32 // entries in causal order
	events []int32 // error entries, in causal order of their event time
	origin int32   // entry of the origin, -1 when the trace has no error

	res      *Result
	warnings []string

	// named lists, per span and service, the failures that name a callee
	// other than their own service, by event time (see earlierInSpan).
	// Built on first use.
	named map[spanService][]int32
	// peers caches peerAtAddress by address.
	peers map[string]string
	// quoted caches quotes: the error lines quoting other services' errors.
	quoted     []quoting
	quotedDone bool
	// callsInto caches callsInto by (service, callee).
	callsInto map[[2]int32]bool
}

// spanService is a span-tree node and a service in it.
type spanService struct{ node, svc int32 }

// entry is one kept record and what the steps found out about it.
type entry struct {
	rec     int32         // index into recs
	node    int32         // span-tree node it belongs to, -1 none
	svc     int32         // index into svcs
	adj     time.Duration // clock-skew correction
	class   schema.Kind   // "" when the record carries no failure signal
	failure uint8         // failNone, failSignal or failError
	role    uint8         // roleNone, roleOrigin, roleCascade
	fail    int32         // index into fails for a failure, -1 none
	ts      int64         // corrected time in unix ns, set by causalOrder
}

// failInfo is what only failures need: kept aside to keep entries small.
type failInfo struct {
	target string           // the service this failure names, "" none
	via    string           // how target was found
	sig    schema.Signature // cached by signature()
	// named: ruleCalleeNamed gave target (an explicit name the semantic
	// conventions' attributes and a URL's host do not give).
	named bool
	// host: target is the name of a host, an attribute's or a URL's in
	// the text ("api.geo-vendor.example.com" is geo-vendor), not a
	// peer.service.
	host bool
	// toldBy is 1 + the entry of the signal whose class a vague error
	// took (ruleVagueSignal), 0 none.
	toldBy int32
	// calleeStatus is the status its callee answered, whose class it took
	// over its own 5xx (ruleCalleeStatus), 0 none.
	calleeStatus int
}

const (
	failNone uint8 = iota
	failSignal
	failError
)

const (
	roleNone uint8 = iota
	roleOrigin
	roleCascade
)

// node is one span of the tree. A virtual node (rec < 0) stands for a span
// id that logs carry but no span record describes.
type node struct {
	ent         int32 // entry of the span record, -1 for a virtual node
	parent      int32 // -1 for a root
	first, next int32 // first child, next sibling; -1 none
	depth       int32
	svc         int32
	start, end  int64 // raw unix ns, before correction
	adj         time.Duration
	failed      bool // an error is attached to this node
	errLog      bool // an error log is attached here or in the same-service subtree (set on local roots)
	signal      bool // a failure signal (WARN) is attached to this node
	subFailed   bool // an error is attached here or below (set by classifyRecords)
	// spanless marks a virtual node that ruleSpanlessParent made for a
	// service without spans: its service's lines without a span id
	// attach to it as to a span.
	spanless bool
}

// svcState is what the analysis knows about one service of the trace.
type svcState struct {
	name        string
	firstError  int32 // entry, -1 none
	firstSignal int32 // entry, -1 none
}

// hint is the callee a failure entry names and how it was found.
func (t *Trace) hint(e int32) (string, string) {
	if f := t.ents[e].fail; f >= 0 {
		if t.fails[f].named {
			return t.fails[f].target, t.fails[f].via + ruleTag(ruleCalleeNamed)
		}
		return t.fails[f].target, t.fails[f].via
	}
	return "", ""
}

// Warnf records a non-fatal problem on the result.
func (t *Trace) Warnf(format string, args ...any) {
	t.warnings = append(t.warnings, fmt.Sprintf(format, args...))
}

// Len is the number of records kept after deduplication.
func (t *Trace) Len() int { return len(t.ents) }

func (t *Trace) rec(e int32) *schema.Record { return &t.recs[t.ents[e].rec] }

// at is the corrected time of an entry (a span's start).
func (t *Trace) at(e int32) time.Time {
	return t.recs[t.ents[e].rec].Time.Add(t.ents[e].adj)
}

// eventAt is when an entry's failure happened: a span fails at its end.
func (t *Trace) eventAt(e int32) time.Time {
	r := t.rec(e)
	if r.Type == schema.TypeSpan {
		return r.End().Add(t.ents[e].adj)
	}
	return r.Time.Add(t.ents[e].adj)
}

// service returns the index of name in svcs, adding it when new.
func (t *Trace) service(name string) int32 {
	for i := range t.svcs {
		if t.svcs[i].name == name {
			return int32(i)
		}
	}
	if t.svcs == nil {
		t.svcs = make([]svcState, 0, 8)
	}
	t.svcs = append(t.svcs, svcState{name: name, firstError: -1, firstSignal: -1})
	return int32(len(t.svcs) - 1)
}

// findService is service without adding: -1 when name is not in the trace.
func (t *Trace) findService(name string) int32 {
	for i := range t.svcs {
		if t.svcs[i].name == name {
			return int32(i)
		}
	}
	return -1
}

// depth of an entry in the span tree (0 without a node).
func (t *Trace) depth(e int32) int {
	if n := t.ents[e].node; n >= 0 {
		return int(t.nodes[n].depth)
	}
	return 0
}
