package correlate

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/faultline/faultline/schema"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files")

// scenarioBase is time zero of the scenario files' "t" offsets.
var scenarioBase = time.Date(2024, 5, 14, 10, 0, 0, 0, time.UTC)

const scenarioTrace = "4bf92f3577b34da6a3ce929d0e0e4736"

// TestScenarios runs every testdata/*.txtar: the records in records.jsonl
// are analysed, the summary must equal the "want" file exactly, and the
// --json document must equal testdata/NAME.golden (-update rewrites it).
// A scenario with a "rule" file is the scenario of the per-trace rule it
// names (see traceRuleNames): the rule's name must appear in the result's
// warnings or suspect reason, and with the rule left out the summary must
// differ from want.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	covered := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) { runScenario(t, file, name) })
		if ar, err := txtar.ParseFile(file); err == nil {
			for _, f := range ar.Files {
				if f.Name == "rule" {
					covered[strings.TrimSpace(string(f.Data))] = true
				}
			}
		}
	}
	for _, n := range traceRuleNames() {
		if !covered[n] {
			t.Errorf("per-trace rule %s has no scenario (a testdata/*.txtar with a \"rule\" file naming it)", n)
		}
	}
}

func runScenario(t *testing.T, file, name string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	recs, want, rule := scenarioParts(t, ar)
	res := AnalyzeRecords(recs, Options{})
	if got := summarize(res); got != want {
		t.Errorf("summary mismatch\n--- got ---\n%s--- want ---\n%s", got, want)
	}
	if rule != "" {
		checkRuleScenario(t, recs, res, rule, want)
	}
	doc, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	doc = append(doc, '\n')
	golden := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(golden, doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantDoc, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(doc, wantDoc) {
		t.Errorf("JSON differs from %s (run with -update after checking the change):\n%s", golden, doc)
	}
	var text bytes.Buffer
	if err := WriteText(&text, res); err != nil {
		t.Fatal(err)
	}
	if res.Failed && !strings.Contains(text.String(), "ORIGIN") {
		t.Errorf("text rendering does not mark the origin:\n%s", text.String())
	}
}

// checkRuleScenario asserts that the rule named in a scenario's "rule" file
// decides it: res names the rule, and without it the summary is not want.
func checkRuleScenario(t *testing.T, recs []schema.Record, res *Result, rule, want string) {
	t.Helper()
	if !slices.Contains(traceRuleNames(), rule) {
		t.Fatalf("rule %q is not a per-trace rule (traceRuleNames)", rule)
	}
	said := slices.ContainsFunc(res.Warnings, func(w string) bool { return slices.Contains(reasonRules(w), rule) })
	if s := res.Suspect; s != nil && slices.Contains(reasonRules(s.Reason), rule) {
		said = true
	}
	if !said {
		t.Errorf("neither the warnings nor the suspect's reason name %s: %q, %+v", rule, res.Warnings, res.Suspect)
	}
	off := AnalyzeRecords(recs, Options{Off: map[string]bool{rule: true}})
	t.Logf("without %s:\n%s", rule, summarize(off))
	if summarize(off) == want {
		t.Errorf("without %s the summary is still the one wanted: the scenario does not need the rule", rule)
	}
}

func scenarioParts(t *testing.T, ar *txtar.Archive) ([]schema.Record, string, string) {
	var recs []schema.Record
	want, rule := "", ""
	for _, f := range ar.Files {
		switch f.Name {
		case "records.jsonl":
			recs = parseScenarioRecords(t, f.Data)
		case "want":
			want = string(f.Data)
		case "rule":
			rule = strings.TrimSpace(string(f.Data))
		default:
			t.Fatalf("unknown file %q in scenario", f.Name)
		}
	}
	if len(recs) == 0 || want == "" {
		t.Fatal("a scenario needs records.jsonl and want")
	}
	return recs, want, rule
}

// scenarioRecord is one line of records.jsonl: times in ms from
// scenarioBase, levels as words, a default trace id.
type scenarioRecord struct {
	T       float64           `json:"t"`
	Type    string            `json:"type"`
	Trace   string            `json:"trace"`
	Span    string            `json:"span"`
	Parent  string            `json:"parent"`
	Service string            `json:"service"`
	Host    string            `json:"host"`
	Level   string            `json:"level"`
	Msg     string            `json:"msg"`
	Name    string            `json:"name"`
	Dur     float64           `json:"dur"`
	Status  string            `json:"status"`
	Attrs   map[string]string `json:"attrs"`
}

func parseScenarioRecords(t *testing.T, data []byte) []schema.Record {
	var out []schema.Record
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var s scenarioRecord
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("records.jsonl line %d: %v", i+1, err)
		}
		out = append(out, s.record(t))
	}
	return out
}

func (s scenarioRecord) record(t *testing.T) schema.Record {
	r := schema.Record{
		Time:    scenarioBase.Add(time.Duration(s.T * float64(time.Millisecond))),
		TraceID: schema.TraceID(scenarioTrace),
		Service: s.Service,
		Body:    s.Msg,
		Name:    s.Name,
		Attrs:   s.Attrs,
	}
	if s.Trace != "" {
		r.TraceID = schema.TraceID(s.Trace)
	}
	r.SpanID = scenarioSpanID(s.Span)
	r.ParentSpanID = scenarioSpanID(s.Parent)
	if s.Host != "" {
		if r.Attrs == nil {
			r.Attrs = map[string]string{}
		}
		r.Attrs[schema.AttrHost] = s.Host
	}
	switch s.Type {
	case "span":
		r.Type = schema.TypeSpan
		r.Duration = time.Duration(s.Dur * float64(time.Millisecond))
		switch s.Status {
		case "error":
			r.Status = schema.StatusError
		case "ok":
			r.Status = schema.StatusOK
		}
	case "", "log":
		r.SeverityText = s.Level
		r.Severity = map[string]schema.Severity{"": 0, "DEBUG": schema.SeverityDebug,
			"INFO": schema.SeverityInfo, "WARN": schema.SeverityWarn,
			"ERROR": schema.SeverityError, "FATAL": schema.SeverityFatal}[s.Level]
	default:
		t.Fatalf("unknown record type %q", s.Type)
	}
	return r
}

// scenarioSpanID turns a short readable span name ("a1", at most 8
// bytes) into a 16-character hex id.
func scenarioSpanID(s string) schema.SpanID {
	if s == "" {
		return ""
	}
	h := fmt.Sprintf("%x", s)
	if len(h) > 16 {
		h = h[:16]
	}
	return schema.SpanID(strings.Repeat("0", 16-len(h)) + h)
}

// summarize renders what a scenario asserts: failure, origin, cascade,
// suspect, clock corrections per service and the number of warnings.
func summarize(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "failed: %v\n", r.Failed)
	if o := r.Origin; o != nil {
		fmt.Fprintf(&b, "origin: %s %s%s\n", o.Service, o.Class, times(o.Repeats))
	}
	for _, c := range r.Cascade {
		fmt.Fprintf(&b, "cascade: %s %s <- %s%s\n", c.Service, c.Class, c.CausedBy, times(c.Repeats))
	}
	if s := r.Suspect; s != nil {
		fmt.Fprintf(&b, "suspect: %s %s\n", s.Service, s.Kind)
	}
	seen := map[string]bool{}
	for _, e := range r.Timeline {
		if e.AdjustedMs != 0 && !seen[e.Service] {
			seen[e.Service] = true
			fmt.Fprintf(&b, "adjusted: %s %+.1fms\n", e.Service, e.AdjustedMs)
		}
	}
	fmt.Fprintf(&b, "warnings: %d\n", len(r.Warnings))
	return b.String()
}

func times(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" x%d", n+1)
}
