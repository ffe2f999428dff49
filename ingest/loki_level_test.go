package ingest

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// TestLokiStatedLevel pushes Loki JSON over the HTTP handler: a level the
// line states at its very start beats a generic level (info, notice, none)
// from structured metadata or stream labels, which is kept as an attribute;
// a level word later in the line and an explicit level do not change.
func TestLokiStatedLevel(t *testing.T) {
	cases := []struct {
		name, labels, meta, line string
		want                     schema.Severity
		kept                     string // the displaced level, kept as attr "level"
	}{
		{"metadata info", `{"service_name":"pay"}`, `{"level":"info"}`, "ERROR charge failed", schema.SeverityError, "info"},
		{"label info", `{"service_name":"pay","level":"info"}`, ``, "level=error db down", schema.SeverityError, ""},
		{"metadata notice, header", `{"service_name":"pay"}`, `{"level":"notice"}`, "2026-12-01T10:00:00Z [main] WARN c.a.Pay - slow", schema.SeverityWarn, "notice"},
		{"label notice, bracketed", `{"service_name":"pay","level":"notice"}`, ``, "[error] upstream closed", schema.SeverityError, "notice"},
		{"unset", `{"service_name":"pay"}`, ``, "ERROR charge failed", schema.SeverityError, ""},
		{"later word", `{"service_name":"pay"}`, `{"level":"info"}`, "the retry loop finished after the upstream said ERROR", schema.SeverityInfo, ""},
		{"explicit warn", `{"service_name":"pay"}`, `{"level":"warn"}`, "level=error db down", schema.SeverityWarn, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sink := &fakeSink{}
			ts := newTestServer(t, Limits{}, sink)
			entry := fmt.Sprintf(`[%q,%q`, strconv.FormatInt(time.Now().UnixNano(), 10), c.line)
			if c.meta != "" {
				entry += "," + c.meta
			}
			body := fmt.Sprintf(`{"streams":[{"stream":%s,"values":[%s]]}]}`, c.labels, entry)
			resp, b := post(t, ts.main.URL+"/loki/api/v1/push", "application/json", "", []byte(body))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			recs := sink.records()
			if len(recs) != 1 {
				t.Fatalf("stored %d records, want 1", len(recs))
			}
			r := recs[0]
			if r.Severity < c.want || r.Severity >= c.want+4 {
				t.Errorf("severity %d (%q), want %d", r.Severity, r.SeverityText, c.want)
			}
			if c.kept != "" && r.Attrs["level"] != c.kept {
				t.Errorf("attrs %v, want the displaced level=%s kept", r.Attrs, c.kept)
			}
		})
	}
}
