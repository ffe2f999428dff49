package clickhouse

import "time"

// WriterStatus is the state of the writer, for /metrics and /healthz.
type WriterStatus struct {
	// Breaker is BreakerClosed, BreakerOpen or BreakerHalfOpen.
	Breaker             string    `json:"breaker"`
	ConsecutiveFailures int       `json:"consecutive_failures"`
	RetryAt             time.Time `json:"retry_at,omitzero"` // when an open breaker lets a probe through
	SpoolBatches        int       `json:"spool_batches"`
	SpoolBytes          int64     `json:"spool_bytes"`
	SpoolMaxBytes       int64     `json:"spool_max_bytes"`
	DeadBatches         int       `json:"dead_batches"`
	// Counters of records since Open.
	Inserted     uint64 `json:"inserted"`
	Spooled      uint64 `json:"spooled"`
	Replayed     uint64 `json:"replayed"`
	DeadLettered uint64 `json:"dead_lettered"`
}

// Healthy reports whether writes go straight to ClickHouse: the breaker is
// closed and nothing waits in the spool.
func (st WriterStatus) Healthy() bool { return st.Breaker == BreakerClosed && st.SpoolBatches == 0 }

// WriterStatus reports the writer's state; a read-only store reports a
// closed breaker and empty counters.
func (s *Store) WriterStatus() WriterStatus {
	st := WriterStatus{Breaker: BreakerClosed}
	w := s.w
	if w == nil {
		return st
	}
	st.Breaker, st.ConsecutiveFailures, st.RetryAt = w.br.status()
	if w.sp != nil {
		st.SpoolBatches, st.SpoolBytes = w.sp.stats()
		st.SpoolMaxBytes = w.o.SpoolMaxBytes
		st.DeadBatches = w.dlq.Count()
	}
	st.Inserted, st.Spooled = w.inserted.Load(), w.spooled.Load()
	st.Replayed, st.DeadLettered = w.replayed.Load(), w.dead.Load()
	return st
}

// DLQ is the dead-letter directory, nil without a spool.
func (s *Store) DLQ() *DLQ {
	if s.w == nil {
		return nil
	}
	return s.w.dlq
}
