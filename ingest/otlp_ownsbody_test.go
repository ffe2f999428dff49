package ingest

import (
	"testing"

	"github.com/faultline/faultline/schema"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

// TestOTLPRecordOwnsItsBody: an OTLP record with its own trace id, time
// and severity (an SDK's) keeps its body as its message, whole, with no
// header cut and no id read from it; a level its body states at its start
// wins only over a generic severity. A record without them (the filelog
// receiver's raw line) has its body read as a log line, header and all.
func TestOTLPRecordOwnsItsBody(t *testing.T) {
	const other = "0af7651916cd43dd8448eb211c80319c"
	const line = "2024-03-05 10:00:00 ERROR [main] trace_id=" + other + " payment failed"
	cases := []struct {
		name      string
		trace     bool
		sevNum    plog.SeverityNumber
		sevText   string
		body      string
		wantTrace string
		wantSev   schema.Severity
		wantBody  string
	}{
		{"own trace, time, severity", true, plog.SeverityNumberWarn, "WARN", line, "4bf92f3577b34da6a3ce929d0e0e4736", schema.SeverityWarn, line},
		{"own severity generic", true, plog.SeverityNumberInfo, "", "ERROR payment failed", "4bf92f3577b34da6a3ce929d0e0e4736", schema.SeverityError, "ERROR payment failed"},
		{"no severity: a log line", true, 0, "", line, "4bf92f3577b34da6a3ce929d0e0e4736", schema.SeverityError, ""},
		{"no trace id: a log line", false, plog.SeverityNumberWarn, "", line, other, schema.SeverityWarn, ""},
	}
	dc := newTestDecoder(t)
	for _, c := range cases {
		ld := plog.NewLogs()
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "payments")
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetTimestamp(pbTime)
		lr.Body().SetStr(c.body)
		lr.SetSeverityNumber(c.sevNum)
		lr.SetSeverityText(c.sevText)
		if c.trace {
			lr.SetTraceID(pcommon.TraceID(pbTrace))
			lr.SetSpanID(pcommon.SpanID(pbSpan))
		}
		body, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
		if err != nil {
			t.Fatal(err)
		}
		b := NewBatch(dc.Limits())
		if err := dc.OTLPLogsProto(body, b); err != nil || b.Len() != 1 {
			t.Fatalf("%s: %v, %d records", c.name, err, b.Len())
		}
		r := b.Records[0]
		if string(r.TraceID) != c.wantTrace || r.Severity != c.wantSev {
			t.Errorf("%s: trace %s severity %v, want %s %v", c.name, r.TraceID, r.Severity, c.wantTrace, c.wantSev)
		}
		if c.wantBody != "" && r.Body != c.wantBody {
			t.Errorf("%s: body %q, want %q", c.name, r.Body, c.wantBody)
		}
		if c.wantBody == "" && r.Body == c.body {
			t.Errorf("%s: the body was kept whole (%q): its header was not read", c.name, r.Body)
		}
	}
}
