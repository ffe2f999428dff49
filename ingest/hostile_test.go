package ingest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
)

// slowUpload opens a connection to addr that announces a body of size
// bytes and sends one; it is closed at the end of the test.
func slowUpload(t *testing.T, addr, path string, size int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", path, size)
	return c
}

// TestHTTPSlowUploadsDoNotLockOut: uploads that dribble do not hold the
// in-flight slots (they used to, and every other POST got 429), nor the
// bytes they announce of the memory budget; they are cut off with 408 when
// Limits.BodyTimeout passes.
func TestHTTPSlowUploadsDoNotLockOut(t *testing.T) {
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{MaxInFlight: 2, BodyTimeout: 1500 * time.Millisecond}, sink)
	var slow []net.Conn
	for i := 0; i < 4; i++ {
		slow = append(slow, slowUpload(t, ts.main.Listener.Addr().String(), "/ingest/jsonl", 100000))
		slow = append(slow, slowUpload(t, ts.otlp.Listener.Addr().String(), "/v1/logs", 100000))
	}
	for i := 0; i < 8; i++ { // announcing the largest body, 8 × 64 MiB: twice the budget
		slowUpload(t, ts.main.Listener.Addr().String(), "/ingest/jsonl", int(DefaultLimits().MaxBodyBytes))
	}
	time.Sleep(200 * time.Millisecond) // the server is reading them
	if resp, body := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", jsonlBody(traceFor(1))); resp.StatusCode != http.StatusOK {
		t.Errorf("fast JSON lines POST while slow uploads dribble: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, ts.otlp.URL+"/v1/logs", "application/x-protobuf", "", otlpLogsProto(traceFor(2))); resp.StatusCode != http.StatusOK {
		t.Errorf("fast OTLP POST while slow uploads dribble: %d %s", resp.StatusCode, body)
	}
	slow[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(slow[0]), nil)
	if err != nil {
		t.Fatalf("slow upload: no answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "did not arrive in time") {
		t.Errorf("slow upload answered %d %s, want 408", resp.StatusCode, b)
	}
}

// TestHTTPBytesInFlightBounded: the decompressed bytes of all requests
// being read are bounded together (Limits.MaxBytesInFlight), not only one
// request's: while a gzip body that expands to the per-request cap is being
// read, a second one is answered 429 with Retry-After (it used to be read
// as well: 16 such bombs took 1 GB); small requests are still served, and
// the budget is whole again once the first body is gone.
func TestHTTPBytesInFlightBounded(t *testing.T) {
	const max = 1 << 20
	ts := newTestServer(t, Limits{MaxBodyBytes: max, MaxRecordBytes: 64 << 10, MaxBytesInFlight: 2*max + 2 + 64<<10}, &fakeSink{})
	var bomb bytes.Buffer // a small bomb: 900 KiB of blanks, and then it stalls
	zw := gzip.NewWriter(&bomb)
	zw.Write(bytes.Repeat([]byte(" "), 900<<10))
	zw.Flush()
	send := func() net.Conn {
		c, err := net.Dial("tcp", ts.main.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST /ingest/jsonl HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", bomb.Len()+1000)
		c.Write(bomb.Bytes())
		return c
	}
	first := send()
	deadline := time.Now().Add(10 * time.Second)
	for ts.srv.mem.used.Load() < max && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	second := send()
	second.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(second), nil)
	if err != nil {
		t.Fatalf("second bomb while %d bytes are in flight: no answer (%v), want 429", ts.srv.mem.used.Load(), err)
	}
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("second bomb: %d, want 429 with Retry-After", resp.StatusCode)
	}
	if resp, body := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", jsonlBody(traceFor(1))); resp.StatusCode != http.StatusOK {
		t.Errorf("a small request beside the bomb: %d %s", resp.StatusCode, body)
	}
	first.Close()
	for ts.srv.mem.used.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := ts.srv.mem.used.Load(); n != 0 {
		t.Errorf("%d bytes still counted in flight after the requests ended", n)
	}
}

// TestHTTPSnappyGarbageIs400: a Loki protobuf body whose snappy header
// claims more than any snappy block of its size can hold is garbage (400,
// with why), not a body over the size limit (413).
func TestHTTPSnappyGarbageIs400(t *testing.T) {
	ts := newTestServer(t, Limits{}, &fakeSink{})
	body := []byte{0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	resp, b := post(t, ts.main.URL+"/loki/api/v1/push", "application/x-protobuf", "", body)
	if resp.StatusCode != http.StatusBadRequest || strings.Contains(string(b), "size limit") || !strings.Contains(string(b), "snappy") {
		t.Errorf("garbage snappy: %d %s, want 400 saying it is not snappy", resp.StatusCode, b)
	}
	big := make([]byte, 2<<20) // a real snappy body over the limit stays 413
	small := newTestServer(t, Limits{MaxBodyBytes: 1 << 20}, &fakeSink{})
	if resp, b := post(t, small.main.URL+"/loki/api/v1/push", "application/x-protobuf", "", snappy.Encode(nil, big)); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("snappy body over the limit: %d %s, want 413", resp.StatusCode, b)
	}
}

// TestHTTPStoreBroken: a store that cannot take writes until it is
// repaired (a damaged file) is a 500 without Retry-After, in words that
// say so, not a 503 "retry later"; /healthz says what is wrong. A full
// disk stays 503 with Retry-After, so that shippers keep their data.
func TestHTTPStoreBroken(t *testing.T) {
	broken := fmt.Errorf("cannot write a batch of 5 records: %w: the store file is damaged (SQLite found a malformed page)", ErrStoreBroken)
	ts := newTestServer(t, Limits{}, &fakeSink{err: broken})
	resp, body := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", jsonlBody(traceFor(1)))
	if resp.StatusCode != http.StatusInternalServerError || resp.Header.Get("Retry-After") != "" || !strings.Contains(string(body), "damaged") {
		t.Errorf("write to a damaged store: %d Retry-After=%q %s; want 500 saying it is damaged", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	resp, body = post(t, ts.otlp.URL+"/v1/logs", "application/json", "", otlpLogsJSON(traceFor(2)))
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("OTLP write to a damaged store: %d %s", resp.StatusCode, body)
	}
	full := newTestServer(t, Limits{}, &fakeSink{err: fmt.Errorf("%w: the disk is full", ErrStoreNoSpace)})
	resp, body = post(t, full.main.URL+"/ingest/jsonl", "application/json", "", jsonlBody(traceFor(1)))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "disk") {
		t.Errorf("write to a full disk: %d %s; want 503 with Retry-After", resp.StatusCode, body)
	}
	for err, want := range map[error]string{broken: "store damaged: ", fmt.Errorf("%w: no space", ErrStoreNoSpace): "store disk full: "} {
		s := NewServer(ServerConfig{Health: func(context.Context) error { return err }}, &fakeSink{}, nil)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
		if rec.Code != http.StatusServiceUnavailable || !strings.HasPrefix(rec.Body.String(), want) {
			t.Errorf("healthz with %v: %d %q", err, rec.Code, rec.Body.String())
		}
	}
}
