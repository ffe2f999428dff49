package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
)

// decodeFunc decodes one request body into b and names the format for
// metrics and logs; buffers it allocates beside the records are taken from l.
type decodeFunc func(r *http.Request, body []byte, l *lease, b *Batch) (format string, err error)

// replyFunc writes the response: status, the batch's stats and the error
// (nil on success).
type replyFunc func(w http.ResponseWriter, r *http.Request, status int, st Stats, err error)

// ingest is the common path of every ingest endpoint: back-pressure, body,
// decode, write, answer. It never lets a panic escape.
func (s *Server) ingest(decode decodeFunc, reply replyFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := s.tracer.Start(r.Context(), "ingest "+r.URL.Path)
		defer span.End()
		format, st, err := requestFormat(r), Stats{}, error(nil)
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("panic while handling an ingest request", "path", r.URL.Path, "panic", fmt.Sprint(v))
				err = fmt.Errorf("internal error")
				reply(w, r, http.StatusInternalServerError, st, err)
			}
		}()
		format, st, err = s.handle(ctx, w, r, decode)
		code := statusOf(err)
		if code == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", authRealm)
		}
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", strconv.Itoa(int(s.dec.Limits().RetryAfter.Seconds()+0.5)))
		}
		s.m.requests.WithLabelValues(format, strconv.Itoa(code)).Inc()
		span.SetAttributes(attribute.String("ingest.format", format), attribute.Int("ingest.accepted", st.Accepted),
			attribute.Int("ingest.rejected", st.Rejected), attribute.Int("http.response.status_code", code))
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
			s.logFailure(r, format, code, err)
		}
		reply(w, r, code, st, err)
	})
}

// handle reads the body (under Limits.BodyTimeout and the byte budget,
// before taking an in-flight slot, so that slow uploads do not lock fast
// clients out), then takes a slot, decodes the body and writes the batch.
// Stats are those of the decode; on a write error nothing of the batch was
// stored.
func (s *Server) handle(ctx context.Context, w http.ResponseWriter, r *http.Request, decode decodeFunc) (string, Stats, error) {
	if !authorized(s.token, r.Header.Get("Authorization")) {
		return requestFormat(r), Stats{}, errNoToken
	}
	lim := s.dec.Limits()
	l := &lease{b: s.mem}
	defer func() { l.release(); s.mem.returnMemory(&s.freed) }()
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(lim.BodyTimeout)) // unsupported in tests' recorders
	body, err := readBody(r, lim.MaxBodyBytes, l)
	if err != nil {
		// The rest of the body is not read: close the connection after the
		// answer, rather than let the server wait for it before answering.
		w.Header().Set("Connection", "close")
		return requestFormat(r), Stats{}, err
	}
	select {
	case s.sem <- struct{}{}:
	default:
		return requestFormat(r), Stats{}, ErrBusy
	}
	s.m.inFlight.Inc()
	defer func() { <-s.sem; s.m.inFlight.Dec() }()
	release, err := s.bigSlot(ctx, len(body))
	if err != nil {
		return requestFormat(r), Stats{}, err
	}
	defer release()
	b := NewBatch(lim)
	b.mem = &recordBudget{l: l, max: lim.MaxRecordBytes}
	format, err := decode(r, body, l, b)
	s.m.bytes.WithLabelValues(format).Add(float64(len(body)))
	if err == nil && b.Err() != nil {
		return format, Stats{}, b.Err() // over a memory limit: nothing is written
	}
	plain := !strings.Contains(strings.ToLower(r.Header.Get("Content-Encoding")), "gzip") // a gzip body without the header
	if len(bytes.TrimSpace(trimBOM(body))) == 0 && !errors.Is(err, ErrUnsupportedType) {
		return format, b.Stats, errEmptyBody
	}
	if err != nil {
		if plain && isGzip(body) && !errors.Is(err, ErrUnsupportedType) {
			err = errGzipHint(err)
		}
		return format, b.Stats, err
	}
	if b.Len() == 0 && b.Stats.Rejected > 0 {
		s.m.count(format, b.Stats)
		if plain && isGzip(body) {
			return format, b.Stats, errGzipHint(nil)
		}
		return format, b.Stats, badInput(ErrNothingUsable, nil, "no usable record in the request (rejected %s)", rejectSummary(b.Stats))
	}
	if err := s.write(ctx, b); err != nil {
		s.m.count(format, Stats{Rejects: b.Stats.Rejects})
		return format, b.Stats, err
	}
	s.m.count(format, b.Stats)
	return format, b.Stats, nil
}

// bigSlot waits, for a big body (parallelMin bytes or more, whose decode
// and encoding take every core), for one of GOMAXPROCS slots, kept until
// its batch is written: more at once would not finish sooner, and would
// hold the records of every one of them in memory at the same time (four
// clients posting 8 MB Loki pushes then got 429 from the byte budget).
// Smaller bodies do not wait: concurrent small batches share a commit.
func (s *Server) bigSlot(ctx context.Context, size int) (release func(), err error) {
	if size < parallelMin {
		return func() {}, nil
	}
	select {
	case s.big <- struct{}{}:
		return func() { <-s.big }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *Server) write(ctx context.Context, b *Batch) error {
	if b.Len() == 0 {
		return nil
	}
	start := time.Now()
	err := s.sink.WriteBatch(ctx, b.Records)
	s.m.write.Observe(time.Since(start).Seconds())
	if err != nil {
		return fmt.Errorf("cannot write %d records: %w: %w", b.Len(), ErrSink, err)
	}
	return nil
}

// errEmptyBody answers a request without a body: nothing usable.
var errEmptyBody = badInput(ErrNothingUsable, nil, "the body is empty; there is nothing to ingest")

func (s *Server) logFailure(r *http.Request, format string, code int, err error) {
	lvl := s.log.Warn
	if code >= 500 {
		lvl = s.log.Error
	}
	args := []any{"path", r.URL.Path, "format", format, "status", code, "remote", r.RemoteAddr, "err", err}
	if c := causeOf(err); c != "" {
		args = append(args, "detail", truncate(c, 300))
	}
	lvl("ingest request failed", args...)
}
