package ingest

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// rangeSink refuses a whole batch that holds a time no store can hold, as
// the stores do: a test that it is never handed one.
type rangeSink struct{ fakeSink }

func (s *rangeSink) WriteBatch(ctx context.Context, recs []schema.Record) error {
	for _, r := range recs {
		if !schema.TimeInRange(r.Time) {
			return fmt.Errorf("time %s is out of range", r.Time.Format(time.RFC3339Nano))
		}
	}
	return s.fakeSink.WriteBatch(ctx, recs)
}

// otlpLogsAt is one good and one log record at ts (timeUnixNano).
func otlpLogsAt(ts uint64) []byte {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "a")
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	good := lrs.AppendEmpty()
	good.SetTimestamp(pcommon.NewTimestampFromTime(incidentBase))
	good.Body().SetStr("good")
	bad := lrs.AppendEmpty()
	bad.SetTimestamp(pcommon.Timestamp(ts))
	bad.Body().SetStr("bad")
	b, _ := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	return b
}

// otlpSpansJSONAt is one good span and one starting at start (a decimal
// timeUnixNano), in OTLP/JSON.
func otlpSpansJSONAt(start string) []byte {
	span := func(id, start string) string {
		return `{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"` + id + `","name":"op","startTimeUnixNano":"` +
			start + `","endTimeUnixNano":"` + start + `"}`
	}
	return []byte(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}}]},` +
		`"scopeSpans":[{"spans":[` + span("00f067aa0ba902b7", "1709634030000000000") + `,` + span("00f067aa0ba902b8", start) + `]}]}]}`)
}

// otlpSpansProtoAt is the same in protobuf, with a raw start.
func otlpSpansProtoAt(start uint64) []byte {
	td := otlpTraces(traceFor(9))
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).SetStartTimestamp(pcommon.Timestamp(start))
	b, _ := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	return b
}

// TestHTTPOutOfRangeTime: a record whose time no store can hold is
// rejected alone as bad_timestamp at decode time, whatever the format, and
// the others are stored (it used to refuse the whole batch with a 503).
func TestHTTPOutOfRangeTime(t *testing.T) {
	sink := &rangeSink{}
	ts := newTestServer(t, Limits{}, sink)
	jsonl := func(bad string) []byte {
		return []byte(`{"msg":"good","service":"a"}` + "\n" + `{"msg":"bad",` + bad + `,"service":"a"}` + "\n")
	}
	lokiJSON := func(ns string) []byte {
		return []byte(`{"streams":[{"stream":{"app":"a"},"values":[["1709634030000000000","good"],["` + ns + `","bad"]]}]}`)
	}
	cases := []struct {
		name, path, ctype string
		body              []byte
		accepted          int
	}{
		{"jsonl 2300", "/ingest/jsonl", "application/x-ndjson", jsonl(`"time":"2300-01-01T00:00:00Z"`), 1},
		{"jsonl 9999", "/ingest/jsonl", "application/x-ndjson", jsonl(`"time":"9999-12-31T23:59:59Z"`), 1},
		{"jsonl 1600", "/ingest/jsonl", "application/x-ndjson", jsonl(`"time":"1600-01-01T00:00:00Z"`), 1},
		{"jsonl 0001", "/ingest/jsonl", "application/x-ndjson", jsonl(`"time":"0001-01-01T00:00:00Z"`), 1},
		{"jsonl 1969", "/ingest/jsonl", "application/x-ndjson", jsonl(`"time":"1969-12-31T23:59:59Z"`), 1},
		{"jsonl 2106", "/ingest/jsonl", "application/x-ndjson", jsonl(`"time":"2106-01-01T00:00:00Z"`), 1},
		{"jsonl ts 1e16", "/ingest/jsonl", "application/x-ndjson", jsonl(`"ts":10000000000000000`), 1},
		{"jsonl ts 2263", "/ingest/jsonl", "application/x-ndjson", jsonl(`"time":"2263-06-01T00:00:00Z"`), 1},
		{"loki json 2^63-1", "/loki/api/v1/push", "application/json", lokiJSON("9223372036854775807"), 1},
		{"otlp logs 2^63", "/v1/logs", "application/x-protobuf", otlpLogsAt(1 << 63), 1},
		{"otlp logs 2^64-1", "/v1/logs", "application/x-protobuf", otlpLogsAt(math.MaxUint64), 1},
		{"otlp logs 2200", "/v1/logs", "application/x-protobuf", otlpLogsAt(uint64(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())), 1},
		{"otlp spans json 2^63", "/v1/traces", "application/json", otlpSpansJSONAt("9223372036854775808"), 1},
		{"otlp spans json 2^64-1", "/v1/traces", "application/json", otlpSpansJSONAt("18446744073709551615"), 1},
		{"otlp spans proto 2^63", "/v1/traces", "application/x-protobuf", otlpSpansProtoAt(1 << 63), 2},
	}
	for _, c := range cases {
		url := ts.main.URL + c.path
		if strings.HasPrefix(c.path, "/v1/") {
			url = ts.otlp.URL + c.path
		}
		before := len(sink.records())
		resp, body := post(t, url, c.ctype, "", c.body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d: %s", c.name, resp.StatusCode, body)
			continue
		}
		if got := len(sink.records()) - before; got != c.accepted {
			t.Errorf("%s: %d records stored, want %d", c.name, got, c.accepted)
		}
		if !strings.HasPrefix(c.path, "/v1/") {
			if r := decodeReply(t, body); r.Rejects[ReasonBadTime] != 1 {
				t.Errorf("%s: reply %s, want bad_timestamp: 1", c.name, body)
			}
		} else if !strings.Contains(string(body), "bad_timestamp") {
			t.Errorf("%s: reply %q lacks bad_timestamp", c.name, body)
		}
	}
}

// TestOTLPTimeDoesNotWrap: timeUnixNano 2^64-1 is not stored as
// 1969-12-31T23:59:59.999999999Z (it wrapped); it is bad_timestamp.
func TestOTLPTimeDoesNotWrap(t *testing.T) {
	dc := newTestDecoder(t)
	b := NewBatch(dc.Limits())
	if err := dc.OTLPLogsProto(otlpLogsAt(math.MaxUint64), b); err != nil {
		t.Fatal(err)
	}
	wantStats(t, "2^64-1", b, 1, map[Reason]int{ReasonBadTime: 1})
	for _, r := range b.Records {
		if r.Time.Year() < 1970 {
			t.Errorf("stored time %s", r.Time.Format(time.RFC3339Nano))
		}
	}
}

func TestTimeInRangeBounds(t *testing.T) {
	for tm, want := range map[time.Time]bool{
		time.Unix(0, 1):  true,
		time.Unix(0, 0):  false, // what an unset time reads as
		time.Unix(0, -1): false,
		time.Date(2105, 12, 31, 23, 59, 59, 0, time.UTC): true,
		time.Date(2106, 1, 1, 0, 0, 0, 0, time.UTC):      false,
		{}: false,
	} {
		if got := schema.TimeInRange(tm); got != want {
			t.Errorf("TimeInRange(%s) = %v", tm, got)
		}
	}
}
