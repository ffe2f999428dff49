package runbookgen

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// Data is what every runbook template, built-in or a team's, is executed
// over. TEMPLATES.md documents each field. Values that came from logs are
// Text: printed as is they are Markdown code spans; use .Plain, .Sh,
// .LogQL, .PromQL, .SQL or .Path for other places.
type Data struct {
	ID    string // the runbook id (URL-safe)
	URL   string // the link to this runbook (absolute when a public URL is configured)
	Title string // Markdown-escaped title line, without the leading "# "
	// Generic is true for the generic runbook of a kind: then the service,
	// callers and trace ids are placeholders (SERVICE, CALLER, TRACE_ID).
	Generic  bool
	Kind     schema.Kind
	KindName string // a human name of the kind, e.g. "Database connection pool exhausted"
	Service  Text   // the suspect service: where the failure is
	// Caller is the direct caller of Service whose calls to it failed
	// most (empty when none is known): where the mitigation acts.
	Caller Text
	// Callers are Service's direct callers whose calls to it failed, most
	// failed calls first; without a span tree, every service whose errors
	// point at it (Candidate.PointedFrom).
	Callers []Text
	// Upstream are the services whose errors point at Service through
	// others (they call one of Callers, not Service itself).
	Upstream []Text
	// Silent is true when Service left no records of its own in the window
	// (a third-party API, an uninstrumented service): it is seen only in
	// its callers' calls, so the log and span queries read Caller's.
	Silent    bool
	Operation Text
	Signature Text
	Template  Text // the error template, variables as <*>
	Fragment  Text // the longest constant part of Template, for line filters
	Evidence  []Text

	// Numbers of the incident (zero for a generic runbook).
	Rank         int
	Score        string // two decimals: ranks the candidates, may exceed 1 (see Explained)
	Explained    string // the headline: "explains 92%" of the window's anomalous requests, or "symptoms only" (ExplainedWords)
	Traces       int    // failing traces this candidate explains
	FailedTraces int    // failing traces in the window
	TotalTraces  int    // traces in the window
	Share        string // Traces / TotalTraces as a percentage, "12.0%"
	FirstSeen    string // RFC 3339, UTC; "" when unknown
	From, To     string // the incident window, RFC 3339, UTC
	EntryPoints  []Text
	UserFacing   bool   // some entry point looks like a user request
	DataLoss     bool   // the kind loses data until someone acts (DLQ, dropped messages)
	Slowness     bool   // the kind's evidence is slowness, not errors (latency, network delay, CPU starvation)
	Examples     []Text // up to MaxExamples trace ids
	Downstream   []Text // services Service calls whose calls failed in the window

	Severity       string // P1, P2 or P3
	MTTR           string // "15m", "1h", "4h"
	SeverityReason string // Markdown: why this severity

	IncidentURL string // the incident page for the window ("" for a generic runbook)
	Cmd         Commands
	// Notes are problems met while writing this runbook (a team template
	// that failed, ...), shown at the top.
	Notes []Text
}

// Placeholders of a generic runbook.
const (
	phService = "SERVICE"
	phCaller  = "CALLER"
	phTrace   = "TRACE_ID"
)

// newData builds the data of a candidate's runbook.
func (g *Generator) newData(rep *rootcause.Report, c *rootcause.Candidate) *Data {
	kind := c.Kind
	if !kind.Valid() {
		kind = schema.KindUnknown
	}
	d := &Data{
		ID:        RunbookID(c.Service, c.Kind, c.Signature),
		Kind:      kind,
		KindName:  kindName(kind),
		Service:   NewText(c.Service, MaxServiceLen),
		Operation: NewText(c.Operation, MaxOperationLen),
		Signature: NewText(string(c.Signature), MaxServiceLen),
		Template:  NewText(c.Template, MaxTemplateLen),
		Fragment:  NewText(fragment(c.Template), MaxTemplateLen),
		Evidence:  texts(c.Evidence, MaxEvidenceLen),
		Rank:      c.Rank, Score: fmt.Sprintf("%.2f", c.Score), Explained: ExplainedWords(c),
		Traces: c.Traces, FailedTraces: rep.FailedTraces, TotalTraces: rep.Traces,
		FirstSeen:   rfc3339(c.FirstSeen),
		From:        rfc3339(rep.Window.From),
		To:          rfc3339(rep.Window.To),
		EntryPoints: texts(c.EntryPoints, MaxEntryPointLen),
		UserFacing:  userFacing(c.EntryPoints) != "",
		DataLoss:    LosesData(c.Kind),
		Slowness:    Slowness(kind),
		Examples:    examples(c.ExampleTraces),
		Downstream:  downstream(rep.Edges, c.Service),
	}
	if d.Service.Empty() {
		d.Service = NewText("unknown service", MaxServiceLen)
	}
	callers, upstream := directCallers(rep.Edges, c)
	d.Callers, d.Upstream = texts(callers, MaxServiceLen), texts(upstream, MaxServiceLen)
	if len(d.Callers) > 0 {
		d.Caller = d.Callers[0]
	}
	d.Silent = silent(rep, c.Service) && !d.Caller.Empty()
	if rep.Traces > 0 {
		d.Share = pct(float64(c.Traces) / float64(rep.Traces))
	}
	d.Severity, d.SeverityReason = severity(rep, c, Text.String)
	d.MTTR = MTTRTarget(d.Severity)
	d.Title = fmt.Sprintf("%s in %s", mdEscape(d.KindName), d.Service.Plain())
	d.URL = g.runbookURL(d.ID)
	d.IncidentURL = g.incidentURL(rep.Window, c.Service)
	d.Cmd = newCommands(d, rep.Window, g.store)
	return d
}

// directCallers splits the services whose errors point at c's service
// (c.PointedFrom) into its direct callers, by the window's span tree,
// and those that reach it only through others. Direct callers whose calls
// to it failed come first, most failed calls first; a direct caller whose
// calls failed is one even when no error of its own pointed here. Without
// a single call to the service in the span tree, PointedFrom is kept as
// the callers.
func directCallers(edges []rootcause.Edge, c *rootcause.Candidate) (callers, upstream []string) {
	var in []rootcause.Edge
	for _, e := range edges {
		if e.To == c.Service && e.From != c.Service && e.From != "" {
			in = append(in, e)
		}
	}
	if len(in) == 0 {
		return c.PointedFrom, nil
	}
	slices.SortStableFunc(in, func(a, b rootcause.Edge) int {
		return cmp.Or(cmp.Compare(b.Errors, a.Errors), cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.From, b.From))
	})
	direct := map[string]bool{}
	for _, e := range in {
		if e.Errors > 0 || slices.Contains(c.PointedFrom, e.From) {
			callers = append(callers, e.From)
		}
		direct[e.From] = true
	}
	for _, p := range c.PointedFrom {
		if !direct[p] {
			upstream = append(upstream, p)
		}
	}
	return callers, upstream
}

// silent reports whether svc left no records in the report's window while
// others did: a dependency known only from its callers' calls.
func silent(rep *rootcause.Report, svc string) bool {
	for _, s := range rep.Services {
		if s.Service == svc {
			return s.Records == 0
		}
	}
	return false
}

// newKindData builds the data of a kind's generic runbook.
func (g *Generator) newKindData(k schema.Kind) *Data {
	d := &Data{
		ID: string(k), Generic: true, Kind: k, KindName: kindName(k),
		Service:  NewText(phService, 0),
		Caller:   NewText(phCaller, 0),
		Callers:  []Text{NewText(phCaller, 0)},
		Examples: []Text{NewText(phTrace, 0)},
		DataLoss: LosesData(k),
		Slowness: Slowness(k),
		Severity: SevP2, MTTR: MTTRTarget(SevP2),
		SeverityReason: "P2 by default for a generic runbook: an incident's runbook sets it " +
			"from the share of failing traces, user-facing entry points and data loss.",
	}
	d.Title = mdEscape(d.KindName) + " (generic runbook)"
	d.URL = g.runbookURL(d.ID)
	// A generic runbook names the store as an incident's does, so that
	// its analyze commands run as printed; without one (Config.Store
	// empty) the header says which store they read.
	d.Cmd = newCommands(d, rootcause.Window{}, g.store)
	return d
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// examples keeps up to MaxExamples distinct trace ids.
func examples(ids []schema.TraceID) []Text {
	var out []Text
	for _, id := range ids {
		t := NewText(string(id), 64)
		if t.Empty() || slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
		if len(out) == MaxExamples {
			break
		}
	}
	return out
}

// downstream lists the services svc calls with failed calls, most errors first.
func downstream(edges []rootcause.Edge, svc string) []Text {
	var es []rootcause.Edge
	for _, e := range edges {
		if e.From == svc && e.To != svc && e.Errors > 0 {
			es = append(es, e)
		}
	}
	slices.SortStableFunc(es, func(a, b rootcause.Edge) int { return b.Errors - a.Errors })
	var names []string
	for _, e := range es {
		names = append(names, e.To)
	}
	return texts(names, MaxServiceLen)
}

// fragment is the longest constant part of a template (split at <*>), for
// a line filter; "" when there is none of at least 4 characters.
func fragment(tmpl string) string {
	best := ""
	for _, part := range strings.Split(clean(tmpl), "<*>") {
		part = strings.TrimSpace(part)
		if len(part) > len(best) {
			best = part
		}
	}
	if len(best) < 4 {
		return ""
	}
	return best
}

// kindName is the human name of a kind, used in titles.
func kindName(k schema.Kind) string {
	names := map[schema.Kind]string{
		schema.KindTimeout:           "Timeout",
		schema.KindDependencyTimeout: "Dependency degraded (timeouts)",
		schema.KindConnectionRefused: "Connection refused",
		schema.KindRateLimit:         "Rate limited",
		schema.KindOverload:          "Overload",
		schema.KindCircuitOpen:       "Circuit breaker open",
		schema.KindBulkheadFull:      "Bulkhead full",
		schema.KindRetryExhausted:    "Retries exhausted",
		schema.KindDBPoolExhaustion:  "Database connection pool exhausted",
		schema.KindResourceGC:        "Memory pressure and GC pauses",
		schema.KindOOM:               "Out of memory",
		schema.KindBadDeploy:         "Bad deploy",
		schema.KindDeterministic:     "Deterministic error",
		schema.KindAuth:              "Authentication or authorisation failure",
		schema.KindNotFound:          "Not found",
		schema.KindPoisonMessage:     "Poison message",
		schema.KindTransient:         "Transient errors",
		schema.KindUnknown:           "Unclassified failure",
		schema.KindLatency:           "Latency regression",
		schema.KindLogAnomaly:        "Log anomaly",
		schema.KindNetworkDelay:      "Network delay",
		schema.KindCPUStarvation:     "CPU starvation",
	}
	if n, ok := names[k]; ok {
		return n
	}
	return names[schema.KindUnknown]
}
