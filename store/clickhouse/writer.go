package clickhouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline/faultline/schema"
)

// Sentinel errors of WriteBatch, beside backend.ErrBadRecord.
var (
	// ErrUnavailable: ClickHouse cannot take the batch now (down, or the
	// breaker is open) and there is no spool to keep it. Answer 503.
	ErrUnavailable = errors.New("ClickHouse is unavailable")
	// ErrRejected: ClickHouse refused the batch as bad and there is no
	// dead-letter directory to keep it.
	ErrRejected = errors.New("ClickHouse refused the batch")
)

// writer groups the batches of concurrent WriteBatch calls by size and
// time into one insert per table, and makes that insert reliable: per-call
// timeouts, retries of transient failures, a circuit breaker, the spool
// and the dead-letter directory.
type writer struct {
	s    *Store
	o    WriterOptions
	log  *slog.Logger
	in   chan *pending
	br   *breaker
	sp   *spool // nil without a spool directory
	dlq  *DLQ   // nil without a spool directory
	wake chan struct{}
	quit chan struct{}
	wg   sync.WaitGroup

	inserted, spooled, replayed, dead atomic.Uint64
}

// pending is one WriteBatch call waiting for its group.
type pending struct {
	recs []schema.Record
	done chan error
}

func newWriter(s *Store, o WriterOptions, log *slog.Logger) (*writer, error) {
	w := &writer{s: s, o: o, log: log, in: make(chan *pending), br: newBreaker(o.BreakerFailures, o.BreakerOpenFor),
		wake: make(chan struct{}, 1), quit: make(chan struct{})}
	if o.SpoolDir != "" {
		sp, err := openSpool(SpoolSubdir(o.SpoolDir), o.SpoolMaxBytes)
		if err != nil {
			return nil, err
		}
		dlq, err := OpenDLQ(DLQDir(o.SpoolDir))
		if err != nil {
			return nil, err
		}
		w.sp, w.dlq = sp, dlq
		w.wg.Add(1)
		go w.replayLoop()
	}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// WriteBatch stores recs. It returns nil once the records are in
// ClickHouse or, with a spool, on disk to be replayed: either way durable.
// A record ClickHouse cannot hold refuses the whole batch with
// backend.ErrBadRecord before anything is written. Without a spool, a
// server that cannot be reached gives ErrUnavailable; with one, a full
// spool gives ErrSpoolFull. recs is not retained.
func (s *Store) WriteBatch(ctx context.Context, recs []schema.Record) error {
	if err := s.writeBatch(ctx, recs); err != nil {
		return fmt.Errorf("cannot write %d records: %w", len(recs), err)
	}
	return nil
}

func (s *Store) writeBatch(ctx context.Context, recs []schema.Record) error {
	if len(recs) == 0 {
		return nil
	}
	if err := s.check(); err != nil {
		return err
	}
	if s.w == nil {
		return errReadOnly
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validate(recs); err != nil {
		return err
	}
	p := &pending{recs: append([]schema.Record(nil), recs...), done: make(chan error, 1)}
	select {
	case s.w.in <- p:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.w.quit:
		return errClosing
	}
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done(): // the group may still be written
		return ctx.Err()
	}
}

var errClosing = errors.New("the store is closing")

// loop collects batches into groups and flushes a group when it reaches
// MaxBatch records or FlushInterval after its first batch.
func (w *writer) loop() {
	defer w.wg.Done()
	var group []*pending
	n := 0
	var timer *time.Timer
	var tick <-chan time.Time
	flush := func() {
		if len(group) > 0 {
			w.flush(group, n)
		}
		group, n, tick = nil, 0, nil
		if timer != nil {
			timer.Stop()
		}
	}
	for {
		select {
		case p := <-w.in:
			group, n = append(group, p), n+len(p.recs)
			if tick == nil {
				timer = time.NewTimer(w.o.FlushInterval)
				tick = timer.C
			}
			if n >= w.o.MaxBatch {
				flush()
			}
		case <-tick:
			flush()
		case <-w.quit:
			flush()
			return
		}
	}
}

func (w *writer) flush(group []*pending, n int) {
	recs := group[0].recs
	if len(group) > 1 {
		recs = make([]schema.Record, 0, n)
		for _, p := range group {
			recs = append(recs, p.recs...)
		}
	}
	err := w.deliver(recs)
	for _, p := range group {
		p.done <- err
	}
}

// deliver inserts one group, or spools it.
func (w *writer) deliver(recs []schema.Record) error {
	e := &entry{ID: newBatchID(), Created: time.Now().UTC(), Records: recs}
	if w.sp != nil {
		if count, _ := w.sp.stats(); count > 0 { // keep arrival order
			return w.spool(e, nil)
		}
	}
	err := w.insertWithRetry(e)
	switch {
	case err == nil:
		w.inserted.Add(uint64(len(recs)))
		return nil
	case w.sp != nil:
		return w.spool(e, err)
	case transient(err) || errors.Is(err, errBreakerOpen):
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	default:
		return fmt.Errorf("%w: %v", ErrRejected, err)
	}
}

var errBreakerOpen = errors.New("circuit breaker is open")

// insertWithRetry tries an insert up to Attempts times while the failures
// are transient and the breaker lets calls through.
func (w *writer) insertWithRetry(e *entry) error {
	var err error
	for try := 1; try <= w.o.Attempts; try++ {
		if err = w.insertOnce(e); err == nil || !transient(err) {
			return err
		}
		if try < w.o.Attempts && !sleep(backoff(try, w.o.Backoff, w.o.MaxBackoff), w.quit) {
			break
		}
	}
	return err
}

// insertOnce makes one call, within CallTimeout, through the breaker.
func (w *writer) insertOnce(e *entry) error {
	if !w.br.allow() {
		return errBreakerOpen
	}
	ctx, cancel := context.WithTimeout(context.Background(), w.o.CallTimeout)
	defer cancel()
	t0 := time.Now()
	err := w.s.insertGroup(ctx, e.Records, e.ID)
	w.br.record(err == nil || !transient(err))
	w.log.Debug("insert", "batch", e.ID, "records", len(e.Records), "took", time.Since(t0), "err", err)
	return err
}

// spool keeps e for the replay loop; a deterministic refusal counts as a try.
func (w *writer) spool(e *entry, cause error) error {
	if cause != nil && !transient(cause) && !errors.Is(cause, errBreakerOpen) {
		e.Tries, e.LastError, e.Failed = 1, cause.Error(), time.Now().UTC()
	} else if cause != nil {
		e.LastError = cause.Error()
	}
	if err := w.sp.add(e); err != nil {
		return err
	}
	w.spooled.Add(uint64(len(e.Records)))
	w.log.Warn("ClickHouse write spooled", "batch", e.ID, "records", len(e.Records), "cause", e.LastError)
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return nil
}

func newBatchID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (w *writer) close() error {
	close(w.quit)
	w.wg.Wait()
	return nil
}
