package ingest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPDecodedRecordsBounded: a small gzip body that unpacks into very
// many short records is refused with 413 once its decoded records are over
// Limits.MaxRecordBytes, and nothing of it is stored. It used to be
// decoded whole: 175 KB of gzip (60 MB of 42-byte lines, 1.4 million
// records) took 1.7 GB of RSS per request, as the byte budget counted only
// the body. A body within the limit is still taken whole.
func TestHTTPDecodedRecordsBounded(t *testing.T) {
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{MaxRecordBytes: 1 << 20}, sink)
	line := []byte(`{"msg":"a","level":"error","service":"b"}` + "\n")
	resp, body := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "gzip", gz(bytes.Repeat(line, 20000)))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "more records than one request may") {
		t.Errorf("20,000 records over a 1 MiB record budget: %d %s, want 413", resp.StatusCode, body)
	}
	if n := len(sink.records()); n != 0 {
		t.Errorf("%d records stored of a refused request", n)
	}
	if rep := decodeReply(t, body); rep.Accepted != 0 {
		t.Errorf("refused request answers accepted=%d", rep.Accepted)
	}
	resp, body = post(t, ts.main.URL+"/ingest/jsonl", "application/json", "gzip", gz(bytes.Repeat(line, 500)))
	if resp.StatusCode != http.StatusOK || len(sink.records()) != 500 {
		t.Errorf("500 records: %d %s, %d stored", resp.StatusCode, body, len(sink.records()))
	}
	if used := ts.srv.mem.used.Load(); used != 0 {
		t.Errorf("%d bytes of the budget still taken after the requests", used)
	}
}

// TestRecordSizeEstimate: the estimate is what a decoded record of 1.4
// million short JSON lines really held (about 1.2 KB each, measured as
// peak RSS), so that MaxRecordBytes is near the memory it bounds.
func TestRecordSizeEstimate(t *testing.T) {
	b := NewBatch(Limits{})
	newTestDecoder(t).JSONLine([]byte(`{"msg":"a","level":"error","service":"b"}`), b)
	if b.Len() != 1 {
		t.Fatal("record not decoded")
	}
	if n := recordSize(&b.Records[0]); n < 800 || n > 1600 {
		t.Errorf("recordSize = %d, want about 1200", n)
	}
}
