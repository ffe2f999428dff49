package ingest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// otlpLogsBody is an OTLP/JSON logs body of one valid record and one with
// the given members (after its body).
func otlpLogsBody(bad string) []byte {
	return []byte(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},` +
		`"scopeLogs":[{"logRecords":[` +
		`{"timeUnixNano":"1709634030000000000","body":{"stringValue":"bad one"}` + bad + `},` +
		`{"timeUnixNano":"1709634031000000000","severityText":"ERROR","body":{"stringValue":"good one"}}]}]}]}`)
}

// deepValue is an AnyValue of n nested kvlists.
func deepValue(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(`{"kvlistValue":{"values":[{"key":"k","value":`)
	}
	b.WriteString(`{"stringValue":"x"}`)
	for i := 0; i < n; i++ {
		b.WriteString(`}]}}`)
	}
	return b.String()
}

// TestHTTPOTLPJSONBadRecordsAlone: an OTLP/JSON record whose time pdata
// cannot read as a uint64, or whose attributes nest deeper than
// maxOTLPRecordNesting, is rejected alone; the other record is stored.
// They used to refuse the whole body (400 "a field has a value of the
// wrong type"; "invalid JSON at byte 112645" for 5,000 nested kvlists,
// which is valid JSON too deep for encoding/json).
func TestHTTPOTLPJSONBadRecordsAlone(t *testing.T) {
	cases := map[string]struct{ member, reason string }{
		"2^64":          {`,"timeUnixNano":"18446744073709551616"`, "bad_timestamp"},
		"20 nines":      {`,"observedTimeUnixNano":"99999999999999999999"`, "bad_timestamp"},
		"minus one":     {`,"timeUnixNano":"-1"`, "bad_timestamp"},
		"exponent":      {`,"timeUnixNano":"1e18"`, "bad_timestamp"},
		"number exp":    {`,"timeUnixNano":1e18`, "bad_timestamp"},
		"null":          {`,"timeUnixNano":null`, "bad_timestamp"},
		"deep 5000":     {`,"attributes":[{"key":"deep","value":` + deepValue(5000) + `}]`, "bad_json"},
		"deep 40":       {`,"attributes":[{"key":"deep","value":` + deepValue(40) + `}]`, "bad_json"},
		"deep and time": {`,"attributes":[{"key":"deep","value":` + deepValue(5000) + `}],"timeUnixNano":"-1"`, "bad_json"},
	}
	for name, c := range cases {
		sink := &fakeSink{}
		ts := newTestServer(t, Limits{}, sink)
		resp, body := post(t, ts.otlp.URL+"/v1/logs", "application/json", "", otlpLogsBody(c.member))
		recs := sink.records()
		if resp.StatusCode != http.StatusOK || len(recs) != 1 || recs[0].Body != "good one" {
			t.Errorf("%s: %d %s, %d stored; want 200 and the good record", name, resp.StatusCode, body, len(recs))
			continue
		}
		var rep struct {
			PartialSuccess struct {
				RejectedLogRecords string `json:"rejectedLogRecords"`
				ErrorMessage       string `json:"errorMessage"`
			} `json:"partialSuccess"`
		}
		json.Unmarshal(body, &rep)
		if rep.PartialSuccess.RejectedLogRecords != "1" || !strings.Contains(rep.PartialSuccess.ErrorMessage, c.reason) {
			t.Errorf("%s: answer %s, want 1 rejected as %s", name, body, c.reason)
		}
	}
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{}, sink)
	if resp, body := post(t, ts.otlp.URL+"/v1/logs", "application/json", "", otlpLogsBody(`,"attributes":[{"key":"ok","value":`+deepValue(20)+`}]`)); resp.StatusCode != http.StatusOK || len(sink.records()) != 2 {
		t.Errorf("20 nested kvlists: %d %s, %d stored; want both", resp.StatusCode, body, len(sink.records()))
	}
	if resp, body := post(t, ts.otlp.URL+"/v1/logs", "application/json", "", []byte(`{"resourceLogs":[`+strings.Repeat("[", 20000)+`]}`)); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed deep body: %d %s, want 400", resp.StatusCode, body)
	}
}

// TestHTTPOTLPJSONSpanBadTimes: a span whose start or end time, or the time
// of one of its events, pdata cannot read is rejected alone.
func TestHTTPOTLPJSONSpanBadTimes(t *testing.T) {
	span := func(id, extra string) string {
		return `{"traceId":"0123456789abcdef0123456789abcdef","spanId":"` + id + `","name":"op",` +
			`"startTimeUnixNano":"1709634030000000000","endTimeUnixNano":"1709634031000000000"` + extra + `}`
	}
	for name, extra := range map[string]string{
		"start 2^64":  `,"startTimeUnixNano":"18446744073709551616"`,
		"end exp":     `,"end_time_unix_nano":"1e18"`,
		"event minus": `,"events":[{"timeUnixNano":"-1","name":"e"}]`,
	} {
		sink := &fakeSink{}
		ts := newTestServer(t, Limits{}, sink)
		body := `{"resourceSpans":[{"scopeSpans":[{"spans":[` + span("0000000000000001", extra) + `,` + span("0000000000000002", "") + `]}]}]}`
		resp, b := post(t, ts.otlp.URL+"/v1/traces", "application/json", "", []byte(body))
		recs := sink.records()
		if resp.StatusCode != http.StatusOK || len(recs) != 1 || recs[0].SpanID != "0000000000000002" || !strings.Contains(string(b), "bad_timestamp") {
			t.Errorf("%s: %d %s, %d stored; want 200, the good span, bad_timestamp", name, resp.StatusCode, b, len(recs))
		}
	}
}
