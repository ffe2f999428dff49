// Command benchgen makes and posts the workload of
// scripts/bench-vs-victorialogs.sh: realistic application log lines (12
// services, one error in 30, a new trace every 8 lines, numbers in every
// message, a span id per line) as the same records in three request
// formats, cut into requests of about 8 MB:
//
//	benchgen gen  -lines 1000000 -out DIR        # DIR/jsonl/*.body, DIR/loki/*.body, DIR/otlp/*.body, DIR/traces.txt
//	benchgen post -url URL -dir DIR/jsonl -c 4 -ctype application/x-ndjson [-header K:V]
//
// post sends every body of a directory (each once, c at a time on
// keep-alive connections), retries an answer 429 or 503 after its
// Retry-After, fails on any other non-2xx answer, and prints
// "lines=N seconds=S retries=K lines_per_s=R".
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: benchgen gen|post ...")
		return 2
	}
	var err error
	switch args[0] {
	case "gen":
		err = gen(args[1:])
	case "post":
		err = post(args[1:])
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n", args[0])
		return 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		return 1
	}
	return 0
}

var services = []string{"gateway", "checkout", "payments", "orders", "inventory", "shipping",
	"identity", "catalog", "search", "notifications", "pricing", "db-proxy"}

var paths = []string{"/api/v1/orders", "/api/v1/cart", "/api/v2/items", "/healthz", "/api/v1/users", "/api/v1/pay"}

// event is one log line's fields.
type event struct {
	at                   time.Time
	service, level, msg  string
	trace, span          string
	status, durationMsec int
}

// generator makes the events in order, deterministically.
type generator struct {
	rng   *rand.Rand
	i     int
	base  time.Time
	trace string
}

func (g *generator) next() event {
	r := g.rng
	if g.i%8 == 0 {
		g.trace = fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64())
	}
	e := event{
		at:      g.base.Add(time.Duration(g.i) * 3 * time.Millisecond),
		service: services[r.IntN(len(services))],
		level:   "info",
		trace:   g.trace,
		span:    fmt.Sprintf("%016x", r.Uint64()),
	}
	user, order := r.IntN(100000), r.IntN(10000000)
	e.durationMsec = r.IntN(900) + 1
	switch {
	case g.i%30 == 29:
		e.level = "error"
		dep := services[r.IntN(len(services))]
		switch r.IntN(3) {
		case 0:
			e.msg = fmt.Sprintf("call to %s failed: context deadline exceeded after %dms (attempt %d of 3) order_id=%d", dep, 1000+r.IntN(4000), 1+r.IntN(3), order)
		case 1:
			e.msg = fmt.Sprintf("pq: connection pool exhausted (%d/%d in use) while handling order %d for user %d", 50, 50, order, user)
		default:
			e.msg = fmt.Sprintf("upstream %s returned 503 Service Unavailable in %dms, retry_after=%ds request_id=%08x", dep, e.durationMsec, 1+r.IntN(30), r.Uint32())
		}
	case r.IntN(10) == 0:
		e.level = "debug"
		e.msg = fmt.Sprintf("cache lookup key=user:%d:profile hit=%t size=%d bytes ttl=%ds", user, r.IntN(2) == 0, r.IntN(20000), r.IntN(3600))
	default:
		e.status = []int{200, 200, 200, 201, 204, 304, 404}[r.IntN(7)]
		e.msg = fmt.Sprintf("%s %s/%d completed with %d in %dms user_id=%d", []string{"GET", "POST", "PUT"}[r.IntN(3)],
			paths[r.IntN(len(paths))], order, e.status, e.durationMsec, user)
	}
	g.i++
	return e
}

func (e *event) appendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = e.at.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"`...)
	b = append(b, e.level...)
	b = append(b, `","service":"`...)
	b = append(b, e.service...)
	b = append(b, `","trace_id":"`...)
	b = append(b, e.trace...)
	b = append(b, `","span_id":"`...)
	b = append(b, e.span...)
	b = append(b, `","msg":`...)
	b = strconv.AppendQuote(b, e.msg)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, int64(e.durationMsec), 10)
	return append(b, "}\n"...)
}

const requestBytes = 8 << 20

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	lines := fs.Int("lines", 1_000_000, "lines to generate")
	out := fs.String("out", "", "output directory")
	seed := fs.Uint64("seed", 15, "random seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("gen needs -out")
	}
	for _, d := range []string{"jsonl", "loki", "otlp"} {
		if err := os.MkdirAll(filepath.Join(*out, d), 0o755); err != nil {
			return err
		}
	}
	// Start an hour ago, so that no store refuses the times as too old or too new.
	base := time.Now().Add(-time.Hour).Truncate(time.Second).UTC()
	g := &generator{rng: rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15)), base: base}
	all, err := os.Create(filepath.Join(*out, "all.jsonl"))
	if err != nil {
		return err
	}
	allw := bufio.NewWriterSize(all, 1<<20)
	var (
		body   []byte
		events []event
		n      int
		traces []string
	)
	flush := func() error {
		if len(events) == 0 {
			return nil
		}
		name := fmt.Sprintf("%05d.body", n)
		n++
		if err := os.WriteFile(filepath.Join(*out, "jsonl", name), body, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(*out, "loki", name), lokiBody(events), 0o644); err != nil {
			return err
		}
		ob, err := otlpBody(events)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(*out, "otlp", name), ob, 0o644); err != nil {
			return err
		}
		body, events = body[:0], events[:0]
		return nil
	}
	var line []byte
	for i := 0; i < *lines; i++ {
		e := g.next()
		if i%8 == 0 && i%(8*997) == 0 {
			traces = append(traces, e.trace)
		}
		line = e.appendJSON(line[:0])
		if len(body)+len(line) > requestBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		body = append(body, line...)
		events = append(events, e)
		allw.Write(line)
	}
	if err := flush(); err != nil {
		return err
	}
	if err := errors.Join(allw.Flush(), all.Close()); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(*out, "traces.txt"), []byte(strings.Join(traces, "\n")+"\n"), 0o644)
}

// lokiBody is a Loki push (protobuf + snappy): one stream per service, the
// line as the JSON the application wrote.
func lokiBody(events []event) []byte {
	streams := map[string]*push.Stream{}
	var line []byte
	for i := range events {
		e := &events[i]
		st := streams[e.service]
		if st == nil {
			st = &push.Stream{Labels: fmt.Sprintf(`{service=%q}`, e.service)}
			streams[e.service] = st
		}
		line = e.appendJSON(line[:0])
		st.Entries = append(st.Entries, push.Entry{Timestamp: e.at, Line: string(line[:len(line)-1])})
	}
	var req push.PushRequest
	for _, s := range services {
		if st := streams[s]; st != nil {
			req.Streams = append(req.Streams, *st)
		}
	}
	raw, err := req.Marshal()
	if err != nil {
		panic(err)
	}
	return snappy.Encode(nil, raw)
}

// otlpBody is an OTLP logs export (protobuf): one resource per service.
func otlpBody(events []event) ([]byte, error) {
	ld := plog.NewLogs()
	bySvc := map[string]plog.LogRecordSlice{}
	for _, s := range services {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", s)
		bySvc[s] = rl.ScopeLogs().AppendEmpty().LogRecords()
	}
	for i := range events {
		e := &events[i]
		lr := bySvc[e.service].AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(e.at))
		lr.SetSeverityText(strings.ToUpper(e.level))
		lr.Body().SetStr(e.msg)
		var tid [16]byte
		var sid [8]byte
		hex.Decode(tid[:], []byte(e.trace))
		hex.Decode(sid[:], []byte(e.span))
		lr.SetTraceID(tid)
		lr.SetSpanID(sid)
		lr.Attributes().PutInt("duration_ms", int64(e.durationMsec))
	}
	return plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
}

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ",") }
func (h *headers) Set(s string) error { *h = append(*h, s); return nil }

func post(args []string) error {
	fs := flag.NewFlagSet("post", flag.ContinueOnError)
	url := fs.String("url", "", "URL to post to")
	dir := fs.String("dir", "", "directory of *.body files")
	conc := fs.Int("c", 1, "concurrent clients")
	ctype := fs.String("ctype", "application/x-ndjson", "Content-Type")
	var hdr headers
	fs.Var(&hdr, "header", "extra header K:V (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(*dir, "*.body"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no *.body files in %q", *dir)
	}
	sort.Strings(files)
	bodies := make([][]byte, len(files))
	lines := 0
	for i, f := range files {
		if bodies[i], err = os.ReadFile(f); err != nil {
			return err
		}
	}
	if lines, err = countLines(filepath.Join(*dir, "..", "jsonl")); err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conc, DisableCompression: true}, Timeout: 10 * time.Minute}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, *conc)
	start := time.Now()
	for c := 0; c < *conc; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(bodies) || errs[c] != nil {
					return
				}
				errs[c] = send(client, *url, *ctype, hdr, bodies[i])
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Printf("lines=%d seconds=%.3f retries=%d lines_per_s=%.0f\n", lines, secs, retries.Load(), float64(lines)/secs)
	return nil
}

// retries counts answers 429 and 503, which send retries after their
// Retry-After (as shippers do).
var retries atomic.Int64

func send(c *http.Client, url, ctype string, hdr headers, body []byte) error {
	for {
		again, err := sendOnce(c, url, ctype, hdr, body)
		if err != nil || again == 0 {
			return err
		}
		retries.Add(1)
		time.Sleep(again)
	}
}

// sendOnce posts body once; a 429 or 503 returns how long to wait.
func sendOnce(c *http.Client, url, ctype string, hdr headers, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", ctype)
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		wait := 100 * time.Millisecond
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		return wait, nil
	}
	if resp.StatusCode/100 != 2 {
		return 0, fmt.Errorf("%s: %s: %s", url, resp.Status, bytes.TrimSpace(msg))
	}
	return 0, nil
}

// countLines counts the lines of the JSON-lines bodies (the same records
// as every other format's).
func countLines(dir string) (int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.body"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		n += bytes.Count(b, []byte{'\n'})
	}
	return n, nil
}
