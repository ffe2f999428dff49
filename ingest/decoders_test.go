package ingest

import (
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/golang/snappy"
)

// checkIncident checks that recs hold the test incident's log lines for
// trace, with the right services, levels and span ids, in input order.
func checkIncident(t *testing.T, label, trace string, recs []schema.Record) {
	t.Helper()
	evs := incidentEvents()
	if len(recs) != len(evs) {
		t.Fatalf("%s: %d records, want %d", label, len(recs), len(evs))
	}
	for i, e := range evs {
		r := recs[i]
		wantSev := schema.SeverityInfo
		if e.level == "ERROR" {
			wantSev = schema.SeverityError
		}
		if string(r.TraceID) != trace || string(r.SpanID) != e.span || r.Service != e.svc || r.Severity != wantSev {
			t.Errorf("%s #%d: trace=%s span=%s svc=%q sev=%d; want %s %s %q %d", label, i, r.TraceID, r.SpanID, r.Service, r.Severity, trace, e.span, e.svc, wantSev)
		}
		if !r.Time.Equal(incidentBase.Add(e.at)) {
			t.Errorf("%s #%d: time %v, want %v", label, i, r.Time, incidentBase.Add(e.at))
		}
		if r.Template == "" || r.Signature == "" {
			t.Errorf("%s #%d: no template/signature", label, i)
		}
	}
}

func TestDecodersIncident(t *testing.T) {
	dc := newTestDecoder(t)
	cases := []struct {
		name   string
		decode func(b *Batch) error
	}{
		{"loki-protobuf", func(b *Batch) error {
			raw, err := snappy.Decode(nil, lokiProtoBody(traceFor(1)))
			if err != nil {
				return err
			}
			return dc.LokiProto(raw, b)
		}},
		{"loki-json", func(b *Batch) error { return dc.LokiJSON(lokiJSONPush(traceFor(2)), b) }},
		{"otlp-logs-protobuf", func(b *Batch) error { return dc.OTLPLogsProto(otlpLogsProto(traceFor(3)), b) }},
		{"otlp-logs-json", func(b *Batch) error { return dc.OTLPLogsJSON(otlpLogsJSON(traceFor(4)), b) }},
		{"jsonl", func(b *Batch) error { dc.JSONLines(jsonlBody(traceFor(5)), b); return nil }},
	}
	for i, c := range cases {
		b := NewBatch(dc.Limits())
		if err := c.decode(b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkIncident(t, c.name, traceFor(i+1), b.Records)
	}
}

func TestOTLPSpans(t *testing.T) {
	dc := newTestDecoder(t)
	for _, enc := range []string{"protobuf", "json"} {
		b := NewBatch(dc.Limits())
		var err error
		if enc == "json" {
			err = dc.OTLPTracesJSON(otlpTracesJSON(traceFor(6)), b)
		} else {
			err = dc.OTLPTracesProto(otlpTracesProto(traceFor(6)), b)
		}
		if err != nil || len(b.Records) != 3 {
			t.Fatalf("%s: err %v, %d records", enc, err, len(b.Records))
		}
		db := b.Records[2]
		if db.Type != schema.TypeSpan || db.Service != "db-proxy" || db.ParentSpanID != "2222222222222222" ||
			db.Status != schema.StatusError || db.Duration != 2*time.Second || db.Name != "call db-proxy" {
			t.Errorf("%s: span %+v", enc, db)
		}
		if db.Body == "" || db.Attrs[schema.AttrExceptionType] != "PoolExhaustedException" ||
			db.Attrs[schema.AttrHTTPStatus] != "500" || db.Attrs[schema.AttrServiceVersion] != "1.2.3" {
			t.Errorf("%s: body %q attrs %v", enc, db.Body, db.Attrs)
		}
		if !db.IsError() || b.Records[0].IsError() || b.Records[0].ParentSpanID != "" {
			t.Errorf("%s: error flags wrong: %+v", enc, b.Records[0])
		}
	}
}

// TestPartialBatches: bad records are rejected with their reason, good
// ones kept whole, in every format.
func TestPartialBatches(t *testing.T) {
	dc := NewDecoder(DecoderConfig{Limits: Limits{MaxLineBytes: 200}})
	long := make([]byte, 300)
	for i := range long {
		long[i] = 'x'
	}
	b := NewBatch(dc.Limits())
	dc.JSONLines([]byte(`{"msg":"ok 1","trace_id":"`+tid+`"}
{"msg":"bad id","trace_id":"xyz"}
not json
{"msg":"`+string(long)+`"}

{"msg":"ok 2","level":"error"}`), b)
	wantStats(t, "jsonl", b, 2, map[Reason]int{ReasonBadTraceID: 1, ReasonBadJSON: 1, ReasonLineTooLong: 1})

	b = NewBatch(dc.Limits())
	err := dc.LokiJSON([]byte(`{"streams":[{"stream":{"app":"a"},"values":[
		["1709634030000000000","ok"],
		["bad-ts","no timestamp here"],
		["1709634030000000001"],
		["1709634030000000002", 42],
		["1709634030000000003","ok with meta",{"trace_id":"`+tid+`"}],
		["1709634030000000004","bad meta id",{"trace_id":"nothex"}]]}]}`), b)
	if err != nil {
		t.Fatal(err)
	}
	wantStats(t, "loki-json", b, 2, map[Reason]int{ReasonBadTime: 1, ReasonBadJSON: 2, ReasonBadTraceID: 1})
	if b.Records[1].TraceID != tid || b.Records[0].Service != "a" {
		t.Errorf("loki-json records: %+v", b.Records)
	}
	if err := dc.LokiJSON([]byte(`{"streams":`), NewBatch(dc.Limits())); err == nil {
		t.Error("truncated Loki JSON body accepted")
	}
	if err := dc.OTLPLogsProto([]byte{0xff, 0xff, 0xff}, NewBatch(dc.Limits())); err == nil {
		t.Error("garbage OTLP protobuf accepted")
	}
}

func wantStats(t *testing.T, label string, b *Batch, accepted int, rejects map[Reason]int) {
	t.Helper()
	if b.Stats.Accepted != accepted || len(b.Records) != accepted {
		t.Errorf("%s: accepted %d (%d records), want %d; rejects %v", label, b.Stats.Accepted, len(b.Records), accepted, b.Stats.Rejects)
	}
	for r, n := range rejects {
		if b.Stats.Rejects[r] != n {
			t.Errorf("%s: %d rejects for %s, want %d (all: %v)", label, b.Stats.Rejects[r], r, n, b.Stats.Rejects)
		}
	}
}

func TestLimitsCutAttrs(t *testing.T) {
	lim := Limits{MaxAttrs: 3, MaxKeyBytes: 8, MaxValueBytes: 5}
	dc := NewDecoder(DecoderConfig{Limits: lim})
	b := NewBatch(dc.Limits())
	dc.JSONLine([]byte(`{"msg":"m","a":"123456789","b":"1","c":"2","d":"3","averyveryverylongkey":"x"}`), b)
	if len(b.Records) != 1 {
		t.Fatalf("stats %+v", b.Stats)
	}
	r := b.Records[0]
	if len(r.Attrs) > 3 || b.Stats.Truncated != 1 {
		t.Errorf("attrs %v truncated %d", r.Attrs, b.Stats.Truncated)
	}
	for k, v := range r.Attrs {
		if len(k) > 8 || len(v) > 5 {
			t.Errorf("attr %q=%q over the caps", k, v)
		}
	}
}

func TestParseLabels(t *testing.T) {
	ls, err := parseLabels(`{service_name="api", pod="api-0",msg="a \"q\" b"}`)
	if err != nil || len(ls) != 3 || ls[0] != (label{"service_name", "api"}) || ls[2].value != `a "q" b` {
		t.Errorf("parseLabels = %v, %v", ls, err)
	}
	if ls, err := parseLabels(`{}`); err != nil || len(ls) != 0 {
		t.Errorf("empty set: %v %v", ls, err)
	}
	for _, bad := range []string{``, `service="x"`, `{service=x}`, `{service="x}`, `{="x"}`} {
		if _, err := parseLabels(bad); err == nil {
			t.Errorf("parseLabels(%q) accepted", bad)
		}
	}
}

func TestDetectFormat(t *testing.T) {
	cases := map[string]Format{
		`{"resourceLogs":[]}`:  FormatOTLPLogs,
		`{"resourceSpans":[]}`: FormatOTLPTraces,
		`{"streams":[]}`:       FormatLokiJSON,
		`{"msg":"x"}`:          FormatJSONLines,
		`{"streams":"text"}`:   FormatJSONLines,
		`hello world`:          FormatText,
		`{broken`:              FormatText,
	}
	for in, want := range cases {
		if got := DetectFormat([]byte(in)); got != want {
			t.Errorf("DetectFormat(%q) = %s, want %s", in, got, want)
		}
	}
}
