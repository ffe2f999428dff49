package ingest

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the server's own Prometheus metrics, registered on the
// registry the server is given.
type metrics struct {
	accepted *prometheus.CounterVec // format
	rejected *prometheus.CounterVec // format, reason
	cut      *prometheus.CounterVec // format
	requests *prometheus.CounterVec // format, code
	bytes    *prometheus.CounterVec // format
	write    prometheus.Histogram   // seconds per WriteBatch
	inFlight prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		accepted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "faultline_ingest_records_accepted_total", Help: "Records stored, by input format."}, []string{"format"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "faultline_ingest_records_rejected_total", Help: "Records rejected, by input format and reason."}, []string{"format", "reason"}),
		cut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "faultline_ingest_records_truncated_total", Help: "Records stored with attributes or values cut to the limits, by input format."}, []string{"format"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "faultline_ingest_requests_total", Help: "Ingest requests, by input format and HTTP status."}, []string{"format", "code"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "faultline_ingest_body_bytes_total", Help: "Request body bytes after decompression, by input format."}, []string{"format"}),
		write: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "faultline_ingest_batch_write_seconds", Help: "Latency of one batch write to the store.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "faultline_ingest_in_flight_requests", Help: "Ingest requests being decoded or written."}),
	}
	if reg != nil {
		reg.MustRegister(m.accepted, m.rejected, m.cut, m.requests, m.bytes, m.write, m.inFlight)
	}
	return m
}

func (m *metrics) count(format string, st Stats) {
	m.accepted.WithLabelValues(format).Add(float64(st.Accepted))
	if st.Truncated > 0 {
		m.cut.WithLabelValues(format).Add(float64(st.Truncated))
	}
	for r, n := range st.Rejects {
		m.rejected.WithLabelValues(format, string(r)).Add(float64(n))
	}
}
