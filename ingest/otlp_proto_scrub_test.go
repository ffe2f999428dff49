package ingest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/golang/snappy"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/protobuf/encoding/protowire"
)

// pb builds protobuf by hand, for bodies pdata cannot write (ids of the
// wrong length): pbLen is a length-delimited field, pbFixed a fixed64.
func pbLen(num protowire.Number, parts ...[]byte) []byte {
	var v []byte
	for _, p := range parts {
		v = append(v, p...)
	}
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func pbFixed(num protowire.Number, v uint64) []byte {
	return protowire.AppendFixed64(protowire.AppendTag(nil, num, protowire.Fixed64Type), v)
}

func pbStr(num protowire.Number, s string) []byte { return pbLen(num, []byte(s)) }

const pbTime = 1709634030000000000

var (
	pbTrace = mustHex16("4bf92f3577b34da6a3ce929d0e0e4736")
	pbSpan  = mustHex8("00f067aa0ba902b7")
)

// pbLog is a LogRecord with body msg and the extra fields.
func pbLog(msg string, extra ...[]byte) []byte {
	return pbLen(2, append([][]byte{pbFixed(1, pbTime), pbLen(5, pbStr(1, msg))}, extra...)...)
}

func pbLogs(records ...[]byte) []byte {
	return pbLen(1, pbLen(1, pbLen(1, pbLen(1, pbStr(1, "service.name"), pbLen(2, pbStr(1, "a"))))), pbLen(2, records...))
}

// pbSpanRec is a Span named name with the extra fields.
func pbSpanRec(name string, extra ...[]byte) []byte {
	return pbLen(2, append([][]byte{pbLen(1, pbTrace[:]), pbLen(2, pbSpan[:]), pbStr(5, name), pbFixed(7, pbTime), pbFixed(8, pbTime+1000)}, extra...)...)
}

func pbTraces(spans ...[]byte) []byte {
	return pbLen(1, pbLen(2, spans...))
}

// deepLogs is two resources, one whose resource attribute nests 40 maps
// deep, and in the other a record whose attribute does, and a good one.
func deepLogs() []byte {
	ld := plog.NewLogs()
	deep := func(m pcommon.Map) {
		for i := 0; i < 40; i++ {
			m = m.PutEmptyMap("a")
		}
		m.PutStr("x", "y")
	}
	for r := 0; r < 2; r++ {
		rl := ld.ResourceLogs().AppendEmpty()
		if r == 0 {
			deep(rl.Resource().Attributes())
		}
		lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
		for i, msg := range []string{"good", "deep"} {
			lr := lrs.AppendEmpty()
			lr.SetTimestamp(pbTime)
			lr.Body().SetStr(msg)
			if i == 1 {
				deep(lr.Attributes())
			}
		}
	}
	b, _ := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	return b
}

// TestOTLPProtoBadRecords: an OTLP/protobuf record that pdata would
// refuse the whole body for (a 3-byte trace id, a 3-byte span id, an
// attribute nested 40 deep, a field of the wrong wire type) is rejected
// alone with its reason; a bad span link is dropped and the span kept.
func TestOTLPProtoBadRecords(t *testing.T) {
	dc := newTestDecoder(t)
	cases := []struct {
		name     string
		spans    bool
		body     []byte
		accepted int
		rejects  map[Reason]int
	}{
		{"3-byte trace id", false, pbLogs(pbLog("good"), pbLog("bad", pbLen(9, []byte{1, 2, 3}))), 1, map[Reason]int{ReasonBadTraceID: 1}},
		{"3-byte span id", false, pbLogs(pbLog("bad", pbLen(10, []byte{1, 2, 3})), pbLog("good")), 1, map[Reason]int{ReasonBadSpanID: 1}},
		{"wrong wire type", false, pbLogs(pbLog("good"), pbLog("bad", protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 5))), 1, map[Reason]int{ReasonBadProto: 1}},
		{"nested 40 deep", false, deepLogs(), 1, map[Reason]int{ReasonBadProto: 3}},
		{"span 3-byte trace id", true, pbTraces(pbSpanRec("good"), pbLen(2, pbLen(1, []byte{1, 2, 3}), pbLen(2, pbSpan[:]), pbFixed(7, pbTime))), 1, map[Reason]int{ReasonBadTraceID: 1}},
		{"span bad link", true, pbTraces(pbSpanRec("linked", pbLen(13, pbLen(1, []byte{1, 2, 3}))), pbSpanRec("good")), 2, nil},
	}
	for _, c := range cases {
		b := NewBatch(dc.Limits())
		decode := dc.OTLPLogsProto
		if c.spans {
			decode = dc.OTLPTracesProto
		}
		if err := decode(c.body, b); err != nil {
			t.Errorf("%s: the whole body was refused: %v (%v)", c.name, err, causeOf(err))
			continue
		}
		wantStats(t, c.name, b, c.accepted, c.rejects)
		for _, r := range b.Records {
			if r.Body == "bad" || r.Body == "deep" && c.name != "nested 40 deep" {
				t.Errorf("%s: the bad record was stored: %+v", c.name, r)
			}
		}
	}
}

// TestHTTPOTLPProtoBadRecord: over HTTP, such a record is reported in the
// partial success and the others are stored (it used to be a 400 for all).
func TestHTTPOTLPProtoBadRecord(t *testing.T) {
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{}, sink)
	resp, body := post(t, ts.otlp.URL+"/v1/logs", "application/x-protobuf", "", pbLogs(pbLog("good"), pbLog("bad", pbLen(9, []byte{1, 2, 3}))))
	r := plogotlp.NewExportResponse()
	if resp.StatusCode != http.StatusOK || r.UnmarshalProto(body) != nil || r.PartialSuccess().RejectedLogRecords() != 1 ||
		!strings.Contains(r.PartialSuccess().ErrorMessage(), "bad_trace_id") || len(sink.records()) != 1 {
		t.Errorf("logs: %d %q, %d stored", resp.StatusCode, body, len(sink.records()))
	}
	resp, body = post(t, ts.otlp.URL+"/v1/traces", "application/x-protobuf", "", pbTraces(pbSpanRec("good"), pbLen(2, pbLen(1, []byte{1, 2, 3}))))
	tr := ptraceotlp.NewExportResponse()
	if resp.StatusCode != http.StatusOK || tr.UnmarshalProto(body) != nil || tr.PartialSuccess().RejectedSpans() != 1 {
		t.Errorf("traces: %d %q", resp.StatusCode, body)
	}
}

// TestScrubOTLPProtoKeepsGoodBodies: a body without a bad record is
// handed on as it is.
func TestScrubOTLPProtoKeepsGoodBodies(t *testing.T) {
	for _, c := range []struct {
		body  []byte
		spans bool
	}{{otlpLogsProto(traceFor(1)), false}, {otlpTracesProto(traceFor(1)), true}, {[]byte("not protobuf"), false}} {
		out, bad := scrubOTLPProto(c.body, c.spans)
		if &out[0] != &c.body[0] || bad != nil {
			t.Errorf("a good body was rewritten (%v)", bad)
		}
	}
}

// pbLokiEntry is a Loki push entry at sec (Unix seconds) with line.
func pbLokiEntry(sec int64, line string) []byte {
	ts := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), uint64(sec))
	return pbLen(2, pbLen(1, ts), pbStr(2, line))
}

// TestHTTPLokiProtoTimeBeforeYearOne: a Loki protobuf entry whose
// timestamp is before year 1 (which the push package refuses the whole
// body for) is rejected alone as bad_timestamp.
func TestHTTPLokiProtoTimeBeforeYearOne(t *testing.T) {
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{}, sink)
	body := pbLen(1, pbStr(1, `{service_name="a"}`), pbLokiEntry(1709634030, "good"), pbLokiEntry(-62135596800-86400*366, "before year 1"),
		pbLokiEntry(253402300800+1, "after year 9999"), pbLokiEntry(1709634031, "good too"))
	resp, b := post(t, ts.main.URL+"/loki/api/v1/push", "application/x-protobuf", "", snappy.Encode(nil, body))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if r := decodeReply(t, b); r.Accepted != 2 || r.Rejects[ReasonBadTime] != 2 || len(sink.records()) != 2 {
		t.Errorf("reply %s, %d stored; want 2 accepted, bad_timestamp: 2", b, len(sink.records()))
	}
}
