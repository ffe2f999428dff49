package enrich

import "github.com/prometheus/client_golang/prometheus"

// metrics are the enrichment's Prometheus series.
type metrics struct {
	received    *prometheus.CounterVec // source, status
	rejected    *prometheus.CounterVec // reason
	duplicates  prometheus.Counter
	delivered   *prometheus.CounterVec // action: posted, updated, replied, resent
	slackCalls  *prometheus.CounterVec // result
	deadLetters *prometheus.CounterVec // reason
	analysisErr prometheus.Counter
	queued      prometheus.Gauge
	breakerOpen prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		received: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "faultline_enrich_alerts_received_total",
			Help: "Alert groups accepted by the hooks."}, []string{"source", "status"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "faultline_enrich_alerts_rejected_total",
			Help: "Hook calls refused, by reason."}, []string{"reason"}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{Name: "faultline_enrich_duplicates_total",
			Help: "Alert groups dropped as resends of one already queued or delivered."}),
		delivered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "faultline_enrich_messages_delivered_total",
			Help: "Slack messages delivered, by action."}, []string{"action"}),
		slackCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "faultline_enrich_slack_calls_total",
			Help: "Calls to Slack, by result."}, []string{"result"}),
		deadLetters: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "faultline_enrich_dead_letters_total",
			Help: "Messages that could not be delivered and were kept as dead letters, by reason."}, []string{"reason"}),
		analysisErr: prometheus.NewCounter(prometheus.CounterOpts{Name: "faultline_enrich_analysis_failures_total",
			Help: "Alerts sent without an analysis because it could not run."}),
		queued: prometheus.NewGauge(prometheus.GaugeOpts{Name: "faultline_enrich_queue_length",
			Help: "Alert groups waiting for a worker."}),
		breakerOpen: prometheus.NewGauge(prometheus.GaugeOpts{Name: "faultline_enrich_slack_breaker_open",
			Help: "1 while the circuit breaker around Slack is open or half-open."}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.received, m.rejected, m.duplicates, m.delivered, m.slackCalls,
		m.deadLetters, m.analysisErr, m.queued, m.breakerOpen} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
