package clickhouse

import (
	"errors"
	"time"
)

// replayLoop retries the spool every ReplayInterval, or sooner when a
// batch was spooled, until the writer closes.
func (w *writer) replayLoop() {
	defer w.wg.Done()
	t := time.NewTicker(w.o.ReplayInterval)
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-t.C:
		case <-w.wake:
		}
		if err := w.replay(); err != nil {
			w.log.Warn("cannot replay the ClickHouse spool", "err", err)
		}
	}
}

// replay inserts spooled batches in order until the spool is empty or an
// insert fails. A transient failure leaves the batch at the head; a
// deterministic one counts a try, and after PoisonTries tries the batch
// moves to the dead-letter directory.
func (w *writer) replay() error {
	for {
		select {
		case <-w.quit:
			return nil
		default:
		}
		e, err := w.sp.head()
		if err != nil || e == nil {
			return err
		}
		err = w.insertOnce(e)
		switch {
		case err == nil:
			w.replayed.Add(uint64(len(e.Records)))
			w.log.Info("replayed spooled batch", "batch", e.ID, "records", len(e.Records))
			if err := w.sp.remove(e); err != nil {
				return err
			}
		case transient(err) || errors.Is(err, errBreakerOpen):
			return nil
		default:
			if err := w.poisoned(e, err); err != nil {
				return err
			}
		}
	}
}

func (w *writer) poisoned(e *entry, cause error) error {
	e.Tries++
	e.LastError, e.Failed = cause.Error(), time.Now().UTC()
	if e.Tries < w.o.PoisonTries {
		return w.sp.update(e)
	}
	if err := w.dlq.put(e); err != nil {
		return err
	}
	w.dead.Add(uint64(len(e.Records)))
	w.log.Error("ClickHouse refused a batch; moved it to the dead-letter directory",
		"batch", e.ID, "records", len(e.Records), "tries", e.Tries, "err", cause)
	return w.sp.remove(e)
}
