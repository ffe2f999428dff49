package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// Sizes of the one-writer-many-readers test.
const (
	concBatches   = 40
	concBatchSize = 250
	concReaders   = 4
)

// testConcurrent runs one writer and several readers at once. Readers
// must never fail and must only ever see whole batches, in order: the
// count of visible records is a multiple of the batch size and never
// decreases.
func testConcurrent(t *testing.T, s store.Store, e *env) {
	id, svc := e.traceID(t), e.service("conc")
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, concReaders+1)
	for r := range concReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- readUntil(s, e, id, svc, r%2 == 0, done)
		}()
	}
	werr := writeBatches(s, e, id, svc)
	close(done)
	wg.Wait()
	close(errs)
	if werr != nil {
		t.Fatal(werr)
	}
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := collect(t, s.TraceRecords(e.ctx, id, 0)); len(got) != concBatches*concBatchSize {
		t.Errorf("after the writer finished, the trace has %d records, want %d", len(got), concBatches*concBatchSize)
	}
}

func writeBatches(s store.Store, e *env, id schema.TraceID, svc string) error {
	for b := range concBatches {
		recs := make([]schema.Record, concBatchSize)
		for i := range recs {
			recs[i] = schema.Record{
				Time: e.at(time.Duration(b*concBatchSize+i) * time.Millisecond), TraceID: id, Service: svc,
				Severity: schema.SeverityError, Body: fmt.Sprintf("batch %d record %d", b, i),
			}
		}
		if err := s.WriteBatch(e.ctx, recs); err != nil {
			return fmt.Errorf("writer, batch %d: %w", b, err)
		}
	}
	return nil
}

// readUntil reads the trace (or the window) repeatedly until done, then
// once more, checking that what it sees is whole batches.
func readUntil(s store.Store, e *env, id schema.TraceID, svc string, byTrace bool, done <-chan struct{}) error {
	last := 0
	for stop := false; !stop; {
		select {
		case <-done:
			stop = true
		default:
		}
		n, err := countVisible(s, e, id, svc, byTrace)
		if err != nil {
			return fmt.Errorf("reader: %w", err)
		}
		if n%concBatchSize != 0 {
			return fmt.Errorf("reader saw %d records, not a whole number of batches of %d", n, concBatchSize)
		}
		if n < last {
			return fmt.Errorf("reader saw %d records after having seen %d", n, last)
		}
		last = n
	}
	return nil
}

func countVisible(s store.Store, e *env, id schema.TraceID, svc string, byTrace bool) (int, error) {
	seq := s.TraceRecords(e.ctx, id, 0)
	if !byTrace {
		seq = s.WindowRecords(e.ctx, schema.WindowQuery{From: e.at(0), To: e.at(time.Hour), Service: svc, ErrorsOnly: true})
	}
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
