package correlate

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// memStore is an in-memory Store: the records of each trace, or a failure.
type memStore struct {
	recs []schema.Record
	err  error
}

func (m *memStore) TraceRecords(_ context.Context, id schema.TraceID, limit int) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		if m.err != nil {
			yield(schema.Record{}, m.err)
			return
		}
		n := 0
		for _, r := range m.recs {
			if r.TraceID != id {
				continue
			}
			if limit > 0 && n >= limit {
				return
			}
			n++
			if !yield(r, nil) {
				return
			}
		}
	}
}

var _ Store = (*memStore)(nil)

const tid = schema.TraceID("0af7651916cd43dd8448eb211c80319c")

func at(ms int) time.Time {
	return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
}

func span(id, parent, svc, host string, startMs, durMs int) schema.Record {
	return schema.Record{Type: schema.TypeSpan, TraceID: tid, SpanID: schema.SpanID(id),
		ParentSpanID: schema.SpanID(parent), Service: svc, Name: svc + " op", Time: at(startMs),
		Duration: time.Duration(durMs) * time.Millisecond, Attrs: map[string]string{schema.AttrHost: host}}
}

func logAt(spanID, svc string, ms int, sev schema.Severity, msg string) schema.Record {
	return schema.Record{Type: schema.TypeLog, TraceID: tid, SpanID: schema.SpanID(spanID),
		Service: svc, Time: at(ms), Severity: sev, Body: msg}
}

func TestAnalyzeUnknownTrace(t *testing.T) {
	_, err := Analyze(context.Background(), &memStore{}, tid, Options{})
	if !errors.Is(err, ErrUnknownTrace) || !errors.Is(err, schema.ErrNotFound) {
		t.Fatalf("err = %v, want ErrUnknownTrace and schema.ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), string(tid)) {
		t.Errorf("error %q does not name the trace", err)
	}
}

func TestAnalyzeStoreFailure(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := Analyze(context.Background(), &memStore{err: boom}, tid, Options{})
	if !errors.Is(err, boom) || errors.Is(err, ErrUnknownTrace) {
		t.Fatalf("err = %v, want the store's error", err)
	}
}

func TestAnalyzeReadsStoreAndWarnsAtLimit(t *testing.T) {
	st := &memStore{recs: []schema.Record{
		span("a", "", "api", "h1", 0, 100),
		logAt("a", "api", 10, schema.SeverityError, "java.lang.OutOfMemoryError: Java heap space"),
		logAt("a", "api", 20, schema.SeverityInfo, "after"),
	}}
	res, err := Analyze(context.Background(), st, tid, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed || res.Origin.Class != schema.KindOOM || res.Events != 3 || len(res.Warnings) != 0 {
		t.Fatalf("got %+v", res)
	}
	res, err = Analyze(context.Background(), st, tid, Options{Limit: 3})
	if err != nil || len(res.Warnings) != 0 {
		t.Fatalf("a trace of exactly the limit warned: %v %q", err, res.Warnings)
	}
	res, err = Analyze(context.Background(), st, tid, Options{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 2 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "only 2 were analysed") {
		t.Fatalf("limit: events %d warnings %q", res.Events, res.Warnings)
	}
}

func TestAnalyzeEmptyAndForeign(t *testing.T) {
	res := AnalyzeRecords(nil, Options{})
	if res.Failed || res.Events != 0 || res.Origin != nil || res.Cascade == nil {
		t.Fatalf("empty input: %+v", res)
	}
	other := logAt("", "x", 5, schema.SeverityError, "boom")
	other.TraceID = "11111111111111111111111111111111"
	res = AnalyzeRecords([]schema.Record{logAt("", "x", 1, schema.SeverityInfo, "hi"), other}, Options{})
	if res.Events != 1 || res.Failed || len(res.Warnings) != 1 {
		t.Fatalf("foreign record: %+v", res)
	}
}

func TestClockSkewCappedByMaxDelta(t *testing.T) {
	recs := []schema.Record{
		span("p", "", "front", "h1", 0, 100),
		span("c", "p", "back", "h2", 5*60*1000, 50), // five minutes off
	}
	res := AnalyzeRecords(recs, Options{})
	if got := res.Timeline[1].AdjustedMs; got != 0 {
		t.Errorf("a 5 min skew was corrected by %vms; want it left as is", got)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "more than the") {
		t.Errorf("warnings = %q", res.Warnings)
	}
	res = AnalyzeRecords(recs, Options{MaxSkew: 10 * time.Minute})
	// Centred in the parent: start at 25ms, i.e. shifted by 25ms - 5min.
	want := float64((25*time.Millisecond - 5*time.Minute).Microseconds()) / 1000
	if got := res.Timeline[1].AdjustedMs; got != want {
		t.Errorf("with a 10 min cap the shift is %vms, want %vms", got, want)
	}
}

func TestClockSkewOnlyAcrossHosts(t *testing.T) {
	recs := []schema.Record{
		span("p", "", "front", "h1", 100, 100),
		span("c", "p", "front", "h1", 0, 50), // same host: one clock, no correction
		span("d", "p", "back", "h2", 150, 30),
		span("e", "d", "back", "h2", 80, 10), // child of a shifted span on the same host
		logAt("e", "back", 85, schema.SeverityError, "boom"),
	}
	res := AnalyzeRecords(recs, Options{})
	adj := map[string]float64{}
	for _, e := range res.Timeline {
		adj[string(e.SpanID)+e.Type] = e.AdjustedMs
	}
	if adj["cspan"] != 0 {
		t.Errorf("same-host child was shifted by %v", adj["cspan"])
	}
	// d ends at 180 < 200 and starts after 100: it fits, no shift; e is
	// before d on d's host: shifted into d.
	if adj["dspan"] != 0 || adj["espan"] != 0 {
		t.Errorf("same-host subtree got shifts d=%v e=%v", adj["dspan"], adj["espan"])
	}
	if adj["elog"] != adj["espan"] {
		t.Errorf("log not shifted with its span: %v vs %v", adj["elog"], adj["espan"])
	}
}

func TestSpanTreeRepairs(t *testing.T) {
	recs := []schema.Record{
		span("a", "b", "x", "h", 0, 10),
		span("b", "a", "y", "h", 1, 5),                            // a <-> b cycle
		span("c", "zz", "z", "h", 2, 5),                           // missing parent
		logAt("q", "w", 3, schema.SeverityWarn, "GC pause 900ms"), // span id without a span
	}
	res := AnalyzeRecords(recs, Options{})
	joined := strings.Join(res.Warnings, "\n")
	for _, want := range []string{"cycle", "not in the trace"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", joined, want)
		}
	}
	if res.Failed || len(res.Failures) != 1 || res.Failures[0].Class != schema.KindResourceGC || res.Failures[0].Error {
		t.Errorf("failures = %+v", res.Failures)
	}
}

func TestDetailForRootcause(t *testing.T) {
	recs := []schema.Record{
		span("a", "", "gw", "h1", 0, 300),
		span("b", "a", "orders", "h2", 10, 280),
		span("c", "b", "stock", "h3", 20, 250),
		span("d", "b", "stock", "h3", 275, 10),
		logAt("c", "stock", 200, schema.SeverityWarn, "HikariPool-1 - Connection is not available, request timed out after 250ms."),
		logAt("b", "orders", 290, schema.SeverityError, "context deadline exceeded calling stock"),
	}
	recs[1].Status = schema.StatusError
	res := AnalyzeRecords(recs, Options{SkipTimeline: true})
	if res.Timeline != nil {
		t.Error("SkipTimeline still built a timeline")
	}
	if res.Suspect == nil || res.Suspect.Service != "stock" || res.Suspect.Kind != schema.KindDBPoolExhaustion {
		t.Fatalf("suspect = %+v", res.Suspect)
	}
	wantEdges := []CallEdge{{"gw", "orders", 1, 1}, {"orders", "stock", 2, 0}}
	if len(res.Edges) != 2 || res.Edges[0] != wantEdges[0] || res.Edges[1] != wantEdges[1] {
		t.Errorf("edges = %+v, want %+v", res.Edges, wantEdges)
	}
	if len(res.Spans) != 4 || res.Spans[2].Service != "stock" || res.Spans[2].Parent != "orders" {
		t.Errorf("spans = %+v", res.Spans)
	}
	var origin *Failure
	for i := range res.Failures {
		if res.Failures[i].Role == "origin" {
			origin = &res.Failures[i]
		}
	}
	if origin == nil || origin.Service != "orders" || origin.Target != "stock" || origin.Via != viaSpanTree ||
		origin.Class != schema.KindDependencyTimeout || origin.Record != 5 {
		t.Errorf("origin failure = %+v", origin)
	}
}

func TestWriteTextFailure(t *testing.T) {
	res := AnalyzeRecords([]schema.Record{logAt("", "a", 0, schema.SeverityError, "boom")}, Options{})
	if err := WriteText(failWriter{}, res); err == nil {
		t.Fatal("WriteText hid a write error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestClockSkewAsyncConsumer(t *testing.T) {
	send := span("s", "", "shop", "h1", 0, 1)
	send.Name = "orders send"
	late := span("c", "s", "mailer", "h2", 40, 30) // consumed after the send ended: normal
	late.Name = "orders process"
	early := span("d", "s", "billing", "h3", -50, 30) // consumed before it was sent: skew
	early.Attrs["messaging.operation"] = "process"
	res := AnalyzeRecords([]schema.Record{send, late, early}, Options{})
	adj := map[string]float64{}
	for _, e := range res.Timeline {
		adj[e.Service] = e.AdjustedMs
	}
	if adj["mailer"] != 0 {
		t.Errorf("a late consumer was shifted by %vms", adj["mailer"])
	}
	if adj["billing"] != 50 {
		t.Errorf("an early consumer was shifted by %vms, want 50", adj["billing"])
	}
}

// TestDefaultStepsSameAsFastPath: the explicit step list and the built-in
// fast path give the same result.
func TestDefaultStepsSameAsFastPath(t *testing.T) {
	for _, tr := range benchTraces(20) {
		a := AnalyzeRecords(tr, Options{})
		b := AnalyzeRecords(tr, Options{Steps: DefaultSteps()})
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("results differ:\n%s\n%s", ja, jb)
		}
	}
}

func TestCollapseWarnings(t *testing.T) {
	got := collapse([]string{"skew a", "skew b", "skew a", "skew a"})
	want := []string{"skew a (3 times)", "skew b"}
	if !slices.Equal(got, want) {
		t.Errorf("collapse = %q, want %q", got, want)
	}
}

// TestWriteTextNamesNoService: a record that names no service (a raw line
// shipped without one) shows as NoService in every part of the text, never
// as a blank; the JSON document keeps the service empty.
func TestWriteTextNamesNoService(t *testing.T) {
	res := AnalyzeRecords([]schema.Record{
		logAt("", "", 0, schema.SeverityError, "db timeout"),
		logAt("", "", 1000, schema.SeverityInfo, "ok"),
	}, Options{})
	var b strings.Builder
	if err := WriteText(&b, res); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"Origin    " + NoService, "Suspect   " + NoService, NoService + " failed on its own", "  " + NoService + " "} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if res.Origin == nil || res.Origin.Service != "" {
		t.Errorf("origin %+v: the document must keep the service empty", res.Origin)
	}
}
