package ingest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Errors a Sink wraps when it cannot take a batch right now, though it may
// soon: the server answers 503 with Retry-After and nothing of the batch is
// stored. (cmd/ingest maps the ClickHouse backend's ErrSpoolFull and
// ErrUnavailable to them, so that ingest does not import the backend.)
var (
	ErrStoreFull        = errors.New("the store's write spool is full")
	ErrStoreUnavailable = errors.New("the store is unavailable")
	// ErrStoreNoSpace: the disk holding the store is full. It is 503 with
	// Retry-After too: shippers keep the data and retry while an operator
	// frees space.
	ErrStoreNoSpace = errors.New("the disk holding the store is full")
)

// ErrStoreBroken is what a Sink wraps when the store cannot take writes
// until an operator repairs it (its file is damaged): the server answers
// 500, since retrying does not help, and /healthz fails. (cmd/ingest maps
// store.ErrCorrupt to it.)
var ErrStoreBroken = errors.New("the store is damaged")

// WriterStatus is the state of a store's background writer: its circuit
// breaker, its on-disk spool and its record counters since the store was
// opened.
type WriterStatus struct {
	Breaker             string // "closed", "open" or "half-open"
	ConsecutiveFailures int
	SpoolBatches        int
	SpoolBytes          int64
	SpoolMaxBytes       int64 // 0: no spool
	DeadBatches         int
	Inserted            uint64
	Spooled             uint64
	Replayed            uint64
	DeadLettered        uint64
	// Healthy: writes go straight to the store (breaker closed, spool empty).
	Healthy bool
}

// writerStatuser is the optional interface of a Sink that writes through a
// background writer. When the server's sink has it, /metrics exposes the
// status (read on every scrape) and /healthz fails while it is unhealthy.
type writerStatuser interface {
	IngestWriterStatus() WriterStatus
}

// unhealthyReason says why a writer is unhealthy, for /healthz.
func (st WriterStatus) unhealthyReason() string {
	var parts []string
	if st.Breaker != "" && st.Breaker != "closed" {
		parts = append(parts, fmt.Sprintf("circuit breaker %s after %d failures", st.Breaker, st.ConsecutiveFailures))
	}
	if st.SpoolBatches > 0 {
		parts = append(parts, fmt.Sprintf("%d batches (%d bytes) waiting in the spool", st.SpoolBatches, st.SpoolBytes))
	}
	if len(parts) == 0 {
		return "writer not healthy"
	}
	return strings.Join(parts, ", ")
}

var breakerStates = []string{"closed", "open", "half-open"}

// writerCollector exposes a writer's status as metrics, read on scrape.
type writerCollector struct {
	src                                                                           writerStatuser
	breaker, healthy, failures, spoolBatches, spoolBytes, spoolMax, dead, records *prometheus.Desc
}

func newWriterCollector(src writerStatuser) *writerCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("faultline_store_writer_"+name, help, labels, nil)
	}
	return &writerCollector{src: src,
		breaker:      d("breaker_state", "1 for the state the store writer's circuit breaker is in.", "state"),
		healthy:      d("healthy", "1 when writes go straight to the store (breaker closed, spool empty)."),
		failures:     d("consecutive_failures", "Consecutive failed writes to the store."),
		spoolBatches: d("spool_batches", "Batches waiting in the on-disk spool."),
		spoolBytes:   d("spool_bytes", "Bytes waiting in the on-disk spool."),
		spoolMax:     d("spool_max_bytes", "Bound of the on-disk spool (0: no spool)."),
		dead:         d("dead_batches", "Batches in the dead-letter directory."),
		records:      d("records_total", "Records by what the writer did with them since start.", "outcome"),
	}
}

func (c *writerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.breaker, c.healthy, c.failures, c.spoolBatches, c.spoolBytes, c.spoolMax, c.dead, c.records} {
		ch <- d
	}
}

func (c *writerCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.IngestWriterStatus()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, s := range breakerStates {
		gauge(c.breaker, b2f(st.Breaker == s), s)
	}
	gauge(c.healthy, b2f(st.Healthy))
	gauge(c.failures, float64(st.ConsecutiveFailures))
	gauge(c.spoolBatches, float64(st.SpoolBatches))
	gauge(c.spoolBytes, float64(st.SpoolBytes))
	gauge(c.spoolMax, float64(st.SpoolMaxBytes))
	gauge(c.dead, float64(st.DeadBatches))
	for outcome, n := range map[string]uint64{"inserted": st.Inserted, "spooled": st.Spooled, "replayed": st.Replayed, "dead_lettered": st.DeadLettered} {
		ch <- prometheus.MustNewConstMetric(c.records, prometheus.CounterValue, float64(n), outcome)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
