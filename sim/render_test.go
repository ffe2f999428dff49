package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

func sampleRecord(f format) schema.Record {
	return schema.Record{
		Time: time.Date(2026, 1, 15, 9, 30, 1, 234567000, time.UTC), TraceID: "4bf92f3577b34da6a3ce929d0e0e4736",
		SpanID: "00f067aa0ba902b7", Service: "checkout", Severity: schema.SeverityError,
		SeverityText: levelText(f, schema.SeverityError), Body: `call to "payment" failed`, Name: "com.acme.checkout.web.CheckoutController",
		Attrs: map[string]string{schema.AttrServiceVersion: "1.4.2", schema.AttrPod: "checkout-7d9f-abcde", schema.AttrPeerService: "payment"},
	}
}

func TestRenderJSONFormats(t *testing.T) {
	// format → the fields a reader finds the level, message and trace id in.
	want := map[format][3]string{
		fmtZap:        {"level", "msg", "trace_id"},
		fmtLogrus:     {"level", "msg", "traceID"},
		fmtSlog:       {"level", "msg", "trace_id"},
		fmtLogstash:   {"level", "message", "traceId"},
		fmtDatadog:    {"level", "message", "dd.trace_id"},
		fmtPythonJSON: {"levelname", "message", "otelTraceID"},
		fmtPino:       {"level", "msg", "trace_id"},
	}
	for f, keys := range want {
		rec := sampleRecord(f)
		b := renderJSON(nil, &node{name: "checkout", format: f}, &rec, false)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v: %s", f, err, b)
		}
		if m[keys[0]] == nil || m[keys[1]] != rec.Body {
			t.Errorf("%s: level %v, message %v in %s", f, m[keys[0]], m[keys[1]], b)
		}
		id, _ := m[keys[2]].(string)
		if got, err := schema.ParseTraceID(id); err != nil || !strings.HasSuffix(string(rec.TraceID), strings.TrimLeft(string(got), "0")) {
			t.Errorf("%s: trace id %q in %s", f, id, b)
		}
	}
}

func TestDatadogIDsAreDecimal(t *testing.T) {
	if got := decimal64("0000000000000000a3ce929d0e0e4736"); got != "11803532876627986230" {
		t.Errorf("decimal64 = %s", got)
	}
}

func TestRenderTextFormats(t *testing.T) {
	want := map[format][]string{
		fmtSpringText:  {"2026-01-15 09:30:01.234 ERROR [checkout,4bf92f3577b34da6a3ce929d0e0e4736,00f067aa0ba902b7]", "c.acme.checkout.web.CheckoutController   : "},
		fmtTrainTicket: {"09:30:01.234 ERROR", "TraceID: 4bf92f3577b34da6a3ce929d0e0e4736 SpanID: 00f067aa0ba902b7"},
		fmtLogfmt:      {"time=2026-01-15T09:30:01.234Z level=error", `msg="call to \"payment\" failed"`, "trace_id=4bf92f3577b34da6a3ce929d0e0e4736", "peer.service=payment"},
		fmtPythonText:  {"2026-01-15 09:30:01,234 ERROR", "[trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7 resource.service.name=checkout"},
		fmtTraceparent: {"[ERROR] service=checkout", "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	}
	for f, parts := range want {
		rec := sampleRecord(f)
		line := string(renderText(nil, &node{name: "checkout", format: f}, &rec))
		for _, p := range parts {
			if !strings.Contains(line, p) {
				t.Errorf("%s: %q lacks %q", f, line, p)
			}
		}
		if strings.Contains(line, "\n") {
			t.Errorf("%s: one record without a stack spans lines: %q", f, line)
		}
	}
}

func TestUntracedPythonLineSaysZero(t *testing.T) {
	rec := sampleRecord(fmtPythonText)
	rec.TraceID, rec.SpanID = "", ""
	line := string(renderText(nil, &node{name: "checkout", format: fmtPythonText}, &rec))
	if !strings.Contains(line, "trace_id=0 span_id=0") {
		t.Errorf("untraced python line %q", line)
	}
}
