package sim

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/faultline/faultline/schema"
)

// parsed is what the files of a case hold, read back with real decoders.
type parsed struct {
	spans, logs int
	traceIDs    map[schema.TraceID]bool
	formats     map[string]bool // file kinds seen: otlp-traces, otlp-logs, loki, jsonl, text
	gzipped     int
}

func TestFilesParseBack(t *testing.T) {
	for _, seed := range []int64{2, 9, 14} {
		inc := mustGenerate(t, small(seed, FaultKinds()[seed%8]))
		dir := t.TempDir()
		if err := inc.WriteCase(dir); err != nil {
			t.Fatal(err)
		}
		p := parseCase(t, dir)
		var spans, logs int
		for i := range inc.Records {
			if inc.Records[i].Type == schema.TypeSpan {
				spans++
			} else {
				logs++
			}
		}
		if p.spans != spans || p.logs < logs {
			t.Errorf("seed %d: files hold %d spans and %d log lines, the incident %d and %d", seed, p.spans, p.logs, spans, logs)
		}
		for id := range inc.Truth.FailedTraces {
			if !p.traceIDs[id] {
				t.Errorf("seed %d: failed trace %s is in no file", seed, id)
				break
			}
		}
		if len(p.formats) < 4 || p.gzipped == 0 {
			t.Errorf("seed %d: file kinds %v, %d gzipped", seed, p.formats, p.gzipped)
		}
	}
}

func parseCase(t *testing.T, dir string) *parsed {
	t.Helper()
	p := &parsed{traceIDs: map[schema.TraceID]bool{}, formats: map[string]bool{}}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := f.Name()
		if name == "truth.json" {
			continue
		}
		if strings.HasSuffix(name, ".gz") {
			p.gzipped++
		}
		eachLine(t, filepath.Join(dir, name), func(line []byte) { p.parseLine(t, name, line) })
	}
	return p
}

func eachLine(t *testing.T, path string, fn func([]byte)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		r = gz
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func (p *parsed) parseLine(t *testing.T, name string, line []byte) {
	switch {
	case strings.HasPrefix(name, "traces.otlp"):
		p.formats["otlp-traces"] = true
		p.otlpTraces(t, line)
	case strings.HasPrefix(name, "logs.otlp"):
		p.formats["otlp-logs"] = true
		p.otlpLogs(t, line)
	case strings.HasPrefix(name, "loki-push"):
		p.formats["loki"] = true
		p.loki(t, line)
	case strings.Contains(name, ".jsonl"):
		p.formats["jsonl"] = true
		p.jsonLine(t, name, line)
	default:
		p.formats["text"] = true
		p.textLine(line)
	}
}

func (p *parsed) otlpTraces(t *testing.T, line []byte) {
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(line)
	if err != nil {
		t.Fatalf("traces line does not decode: %v", err)
	}
	p.spans += td.SpanCount()
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				p.addID(t, spans.At(k).TraceID().String())
			}
		}
	}
}

func (p *parsed) otlpLogs(t *testing.T, line []byte) {
	ld, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs(line)
	if err != nil {
		t.Fatalf("logs line does not decode: %v", err)
	}
	p.logs += ld.LogRecordCount()
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		sls := rls.At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			recs := sls.At(j).LogRecords()
			for k := 0; k < recs.Len(); k++ {
				if id := recs.At(k).TraceID(); !id.IsEmpty() {
					p.addID(t, id.String())
				}
			}
		}
	}
}

func (p *parsed) loki(t *testing.T, line []byte) {
	var push struct {
		Streams []struct {
			Stream map[string]string `json:"stream"`
			Values [][]string        `json:"values"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(line, &push); err != nil {
		t.Fatalf("loki push line does not decode: %v", err)
	}
	for _, s := range push.Streams {
		if s.Stream["service_name"] == "" {
			t.Fatalf("stream without service_name: %v", s.Stream)
		}
		for _, v := range s.Values {
			if len(v) < 2 || len(v[0]) < 19 {
				t.Fatalf("bad loki value %q", v)
			}
			p.logs++
			if strings.HasPrefix(v[1], "{") {
				p.jsonLine(t, "loki", []byte(v[1]))
				p.logs--
			} else {
				p.textIDs(v[1])
			}
		}
	}
}

// idKeys are the trace id fields of the JSON loggers the simulator writes.
func idKeys() []string {
	return []string{"trace_id", "traceID", "traceId", "otelTraceID", "dd.trace_id"}
}

func (p *parsed) jsonLine(t *testing.T, name string, line []byte) {
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("%s: line does not decode: %v: %.200s", name, err, line)
	}
	p.logs++
	for _, k := range idKeys() {
		if s, ok := m[k].(string); ok {
			p.addID(t, s)
		}
	}
}

// textLine counts a text line unless it continues a stack trace.
func (p *parsed) textLine(line []byte) {
	s := string(line)
	if len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
		p.logs++
	}
	p.textIDs(s)
}

// textIDs finds trace ids after the markers the text formats use.
func (p *parsed) textIDs(s string) {
	for _, marker := range []string{"trace_id=", "TraceID: ", "traceparent=00-", ","} {
		if i := strings.Index(s, marker); i >= 0 && len(s) >= i+len(marker)+32 {
			if id, err := schema.ParseTraceID(s[i+len(marker) : i+len(marker)+32]); err == nil {
				p.traceIDs[id] = true
				return
			}
		}
	}
}

func (p *parsed) addID(t *testing.T, s string) {
	id, err := schema.ParseTraceID(s)
	if err != nil {
		t.Fatalf("trace id %q does not parse: %v", s, err)
	}
	p.traceIDs[id] = true
}
