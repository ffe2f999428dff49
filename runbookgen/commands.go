package runbookgen

import (
	"fmt"
	"time"

	"github.com/faultline/faultline/rootcause"
)

// Commands are the commands and queries of a runbook with the incident's
// values filled in and escaped for their language. Each is one line except
// the SQL ones; none starts a line with a value, so they are safe inside a
// fenced code block.
type Commands struct {
	AnalyzeTrace    string   // analyze trace <first example>
	AnalyzeTraces   []string // analyze trace <id> for every example
	AnalyzeIncident string   // analyze incident over the window, for the service

	LogQLTrace    string // Loki: the service's lines of the first example trace
	LogQLErrors   string // Loki: the service's error lines with the signature's fragment
	LogQLCaller   string // Loki: the caller's lines that name the service
	LogCLI        string // logcli query '<LogQLTrace>'
	SQLTrace      string // ClickHouse otel_logs: the first example trace, in time order
	SQLOnset      string // ClickHouse otel_logs: the service's errors per minute over the window
	SQLSignatures string // ClickHouse otel_logs: the service's most frequent error bodies

	KubectlLogs     string // last 15 minutes of the service's logs
	KubectlPrevious string // logs of the previous (crashed) container
	KubectlEvents   string // recent events (OOMKilled, probes, scheduling)
	KubectlTop      string // CPU and memory of the service's pods
	RolloutHistory  string
	RolloutUndo     string // roll back ONE deployment: the service
	RolloutStatus   string
	RolloutPause    string
	ScaleUp         string // scale ONE deployment: the service (replicas as REPLICAS)
	DescribeDeploy  string

	PgActivity string // SQL for pg_stat_activity: connections by state and their age

	// BreakerForceOpen and BreakerClose drive the caller's breaker for the
	// service through the resilience4j Spring Boot actuator; other stacks
	// have their own switch.
	BreakerForceOpen string
	BreakerClose     string

	PromErrorRate  string // the service's 5xx rate
	PromLatencyP99 string // p99 latency of the service's server spans
	PromHeap       string // heap in use (Go and JVM)
	PromGCPause    string // GC pause time per second (Go and JVM)
	PromPool       string // DB client connection pool: used and pending
	PromBreaker    string // the caller's breaker state for the service (resilience4j)
	PromDLQ        string // dead letter queue depth (RabbitMQ and SQS exporters)
	PromRetries    string // the caller's retry rate towards the service
	PromRateLimit  string // 429 rate answered to or by the service
}

// chTime formats t as a ClickHouse DateTime64 literal expression.
func chTime(t time.Time) string {
	return fmt.Sprintf("toDateTime64('%s', 9, 'UTC')", t.UTC().Format("2006-01-02 15:04:05"))
}

// newCommands fills in d's values. A zero window means the last hour.
func newCommands(d *Data, w rootcause.Window) Commands {
	svc, caller := d.Service, d.Caller
	if caller.Empty() {
		caller = NewText(phCaller, 0)
	}
	trace := NewText(phTrace, 0)
	if len(d.Examples) > 0 {
		trace = d.Examples[0]
	}
	c := Commands{
		AnalyzeTrace:    "analyze trace " + trace.Sh(),
		AnalyzeIncident: "analyze incident --since 1h --service " + svc.Sh(),
		LogQLTrace:      fmt.Sprintf("{service_name=%s} |= %s", svc.LogQL(), trace.LogQL()),
		LogQLErrors:     fmt.Sprintf(`{service_name=%s} | detected_level=~"error|fatal"`, svc.LogQL()),
		LogQLCaller:     fmt.Sprintf("{service_name=%s} |= %s", caller.LogQL(), svc.LogQL()),
	}
	for _, ex := range d.Examples {
		c.AnalyzeTraces = append(c.AnalyzeTraces, "analyze trace "+ex.Sh())
	}
	if !w.From.IsZero() && !w.To.IsZero() {
		c.AnalyzeIncident = fmt.Sprintf("analyze incident --from %s --to %s --service %s",
			rfc3339(w.From), rfc3339(w.To), svc.Sh())
	}
	if !d.Fragment.Empty() {
		c.LogQLErrors = fmt.Sprintf("{service_name=%s} |= %s", svc.LogQL(), d.Fragment.LogQL())
	}
	c.LogCLI = "logcli query --since=1h " + shQuote(c.LogQLTrace)
	fillSQL(&c, svc, trace, w)
	fillKubectl(&c, svc)
	fillProm(&c, svc, caller)
	fillBreaker(&c, svc, caller)
	c.PgActivity = "SELECT state, wait_event_type, count(*) AS conns, max(now() - state_change) AS oldest\n" +
		"FROM pg_stat_activity WHERE datname = current_database()\n" +
		"GROUP BY state, wait_event_type ORDER BY conns DESC;"
	return c
}

func fillSQL(c *Commands, svc, trace Text, w rootcause.Window) {
	c.SQLTrace = "SELECT Timestamp, ServiceName, SpanId, SeverityText, Body\nFROM otel_logs\n" +
		"WHERE TraceId = " + trace.SQL() + "\nORDER BY Timestamp"
	when := "Timestamp >= now() - INTERVAL 1 HOUR"
	if !w.From.IsZero() && !w.To.IsZero() {
		when = "Timestamp >= " + chTime(w.From.Add(-30*time.Minute)) + " AND Timestamp < " + chTime(w.To)
	}
	c.SQLOnset = "SELECT toStartOfMinute(Timestamp) AS minute, count() AS errors\nFROM otel_logs\n" +
		"WHERE ServiceName = " + svc.SQL() + " AND SeverityNumber >= 17\n  AND " + when +
		"\nGROUP BY minute ORDER BY minute"
	c.SQLSignatures = "SELECT left(replaceRegexpAll(Body, '[0-9a-fA-F-]{8,}|[0-9]+', '<*>'), 120) AS pattern,\n" +
		"  count() AS n, min(Timestamp) AS first, any(TraceId) AS example_trace\nFROM otel_logs\n" +
		"WHERE ServiceName = " + svc.SQL() + " AND SeverityNumber >= 13\n  AND " + when +
		"\nGROUP BY pattern ORDER BY first LIMIT 20"
}

func fillKubectl(c *Commands, svc Text) {
	dep := shQuote("deploy/" + svc.raw())
	c.KubectlLogs = "kubectl logs " + dep + " --all-containers --since=15m --timestamps"
	c.KubectlPrevious = "kubectl logs " + dep + " --previous --timestamps"
	c.KubectlEvents = "kubectl get events --sort-by=.lastTimestamp --field-selector involvedObject.name=" +
		shQuote(svc.raw())
	c.KubectlTop = "kubectl top pods -l " + shQuote("app.kubernetes.io/name="+svc.raw())
	c.RolloutHistory = "kubectl rollout history " + dep
	c.RolloutUndo = "kubectl rollout undo " + dep
	c.RolloutStatus = "kubectl rollout status " + dep
	c.RolloutPause = "kubectl rollout pause " + dep
	c.ScaleUp = "kubectl scale " + dep + " --replicas=REPLICAS"
	c.DescribeDeploy = "kubectl describe " + dep
}

func fillProm(c *Commands, svc, caller Text) {
	job := "job=" + svc.PromQL()
	c.PromErrorRate = fmt.Sprintf(`sum(rate(http_server_request_duration_seconds_count{%s, http_response_status_code=~"5.."}[5m]))`+
		` / sum(rate(http_server_request_duration_seconds_count{%s}[5m]))`, job, job)
	c.PromLatencyP99 = fmt.Sprintf(`histogram_quantile(0.99, sum by (le) (rate(http_server_request_duration_seconds_bucket{%s}[5m])))`, job)
	c.PromHeap = fmt.Sprintf(`go_memstats_heap_inuse_bytes{%s} or sum by (instance) (jvm_memory_used_bytes{%s, jvm_memory_type="heap"})`, job, job)
	c.PromGCPause = fmt.Sprintf(`rate(go_gc_duration_seconds_sum{%s}[1m]) or sum by (instance) (rate(jvm_gc_duration_seconds_sum{%s}[1m]))`, job, job)
	c.PromPool = fmt.Sprintf(`sum by (state) (db_client_connection_count{%s}) or db_client_connection_pending_requests{%s}`, job, job)
	c.PromBreaker = fmt.Sprintf(`resilience4j_circuitbreaker_state{job=%s, name=%s} == 1`, caller.PromQL(), svc.PromQL())
	c.PromDLQ = `max by (queue) (rabbitmq_queue_messages_ready{queue=~".*(dlq|dead).*"})` +
		` or max by (queue_name) (aws_sqs_approximate_number_of_messages_visible_average{queue_name=~".*(dlq|dead).*"})`
	c.PromRetries = fmt.Sprintf(`sum(rate(resilience4j_retry_calls_total{job=%s, kind!="successful_without_retry"}[5m]))`, caller.PromQL())
	c.PromRateLimit = fmt.Sprintf(`sum(rate(http_client_request_duration_seconds_count{job=%s, http_response_status_code="429"}[5m]))`, caller.PromQL())
}

func fillBreaker(c *Commands, svc, caller Text) {
	u := shQuote("http://" + caller.raw() + ":8080/actuator/circuitbreakers/" + svc.Path())
	post := "curl -sS -X POST -H 'Content-Type: application/json' "
	c.BreakerForceOpen = post + `-d '{"updateState":"FORCE_OPEN"}' ` + u
	c.BreakerClose = post + `-d '{"updateState":"CLOSE"}' ` + u
}
