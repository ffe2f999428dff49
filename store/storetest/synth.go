package storetest

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/faultline/faultline/schema"
)

// Synth generates realistic records for benchmarks and load tests: traces
// that cross five services, interleaved in time as concurrent requests
// are, with bodies of about 200 bytes and a few attributes; about one trace
// in twenty fails. It is deterministic for a seed and not safe for
// concurrent use.
type Synth struct {
	rng     *rand.Rand
	seed    uint64
	base    time.Time
	step    time.Duration
	emitted int
	started int
	active  []synthTrace
}

type synthTrace struct {
	n, left int
	failing bool
	spans   []schema.SpanID
}

// Synth's shape.
const (
	synthActive   = 256 // traces in flight at once
	synthPerTrace = 20  // records per trace
)

// NewSynth returns a generator whose k-th record is at about base + k*step.
func NewSynth(seed uint64, base time.Time, step time.Duration) *Synth {
	s := &Synth{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), seed: seed, base: base, step: step}
	for range synthActive {
		s.active = append(s.active, s.newTrace())
	}
	return s
}

// TraceID is the id of the i-th trace the generator started.
func (s *Synth) TraceID(i int) schema.TraceID {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], s.seed*0x100000001b3+1)
	binary.BigEndian.PutUint64(b[8:], uint64(i)*0x9e3779b97f4a7c15+1)
	return schema.TraceID(hex.EncodeToString(b[:]))
}

// Started is how many traces have been started so far.
func (s *Synth) Started() int { return s.started }

// Emitted is how many records have been generated so far.
func (s *Synth) Emitted() int { return s.emitted }

func (s *Synth) newTrace() synthTrace {
	t := synthTrace{n: s.started, left: synthPerTrace, failing: s.rng.IntN(20) == 0}
	s.started++
	return t
}

// Batch returns the next n records, in time order.
func (s *Synth) Batch(n int) []schema.Record {
	out := make([]schema.Record, n)
	for i := range out {
		out[i] = s.next()
	}
	return out
}

func (s *Synth) next() schema.Record {
	slot := s.rng.IntN(len(s.active))
	t := &s.active[slot]
	k := synthPerTrace - t.left
	r := s.record(t, k)
	t.left--
	if t.left == 0 {
		s.active[slot] = s.newTrace()
	}
	s.emitted++
	return r
}

// synthService is the service of the k-th record of a trace: the request
// goes down a chain of five services.
func synthService(k int) string {
	return [...]string{"frontend", "checkout", "payments", "inventory", "postgres-proxy"}[k*5/synthPerTrace]
}

func (s *Synth) record(t *synthTrace, k int) schema.Record {
	svc := synthService(k)
	jitter := time.Duration(s.rng.Int64N(int64(s.step)))
	r := schema.Record{
		Time: s.base.Add(time.Duration(s.emitted)*s.step + jitter), TraceID: s.TraceID(t.n), Service: svc,
		SpanID: s.spanID(t, k), Severity: schema.SeverityInfo, SeverityText: "INFO",
		Attrs: map[string]string{
			schema.AttrServiceVersion: "1.4." + strconv.Itoa(k%3), schema.AttrHost: "node-" + strconv.Itoa(s.rng.IntN(40)),
			schema.AttrPod: svc + "-7d9f8b6c5-" + strconv.Itoa(s.rng.IntN(1000)),
		},
	}
	if len(t.spans) > 1 {
		r.ParentSpanID = t.spans[len(t.spans)-2]
	}
	s.fill(&r, t, k)
	return r
}

func (s *Synth) spanID(t *synthTrace, k int) schema.SpanID {
	if k%4 == 0 {
		id := schema.SpanID(fmt.Sprintf("%016x", s.rng.Uint64()|1))
		t.spans = append(t.spans, id)
	}
	return t.spans[len(t.spans)-1]
}

// fill sets the body, template and kind-specific fields of r.
func (s *Synth) fill(r *schema.Record, t *synthTrace, k int) {
	id := s.rng.Uint32()
	switch {
	case t.failing && k == synthPerTrace-3:
		r.Severity, r.SeverityText = schema.SeverityError, "ERROR"
		r.Template = "call to <*> failed: context deadline exceeded after <*> ms (attempt <*> of 3) request_id=<*> upstream=<*>"
		r.Body = fmt.Sprintf("call to payments-gateway.internal:8443/v2/charges failed: context deadline exceeded after %d ms (attempt %d of 3) request_id=%08x upstream=10.0.%d.%d",
			3000+s.rng.IntN(50), 1+s.rng.IntN(3), id, s.rng.IntN(256), s.rng.IntN(256))
		r.Attrs[schema.AttrHTTPStatus] = "504"
	case t.failing && k > synthPerTrace-3:
		r.Severity, r.SeverityText = schema.SeverityWarn, "WARN"
		r.Template = "retrying request <*> to <*> after error, backoff <*> ms, circuit breaker state=<*> failures=<*>/<*>"
		r.Body = fmt.Sprintf("retrying request %08x to payments after error, backoff %d ms, circuit breaker state=CLOSED failures=%d/5 window=10s min_calls=10 policy=exponential-jitter",
			id, 100<<s.rng.IntN(4), s.rng.IntN(5))
	case k%4 == 0:
		r.Type, r.Name = schema.TypeSpan, "HTTP POST /api/v1/orders"
		r.Duration = time.Duration(1+s.rng.IntN(200)) * time.Millisecond
		r.Status = schema.StatusOK
		r.Severity, r.SeverityText = 0, ""
		r.Attrs[schema.AttrHTTPStatus] = "200"
	default:
		r.Template = "handled <*> /api/v1/orders/<*> status=<*> duration_ms=<*> user=<*> request_id=<*> region=<*> bytes=<*>"
		r.Body = fmt.Sprintf("handled POST /api/v1/orders/%d status=200 duration_ms=%d user=user-%d request_id=%08x region=eu-west-1 bytes=%d cache=miss db_calls=%d feature_flags=checkout-v2,fast-path",
			s.rng.IntN(1_000_000), s.rng.IntN(300), s.rng.IntN(100_000), id, s.rng.IntN(64_000), s.rng.IntN(8))
	}
	if r.Template != "" {
		r.Signature = schema.Signature(fmt.Sprintf("%016x", len(r.Template)*0x9e3779b1))
	}
}
