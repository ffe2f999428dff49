package runbookgen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/rootcause"
)

// Commands are the commands and queries of a runbook with the incident's
// values filled in and escaped for their language. Each is one line except
// the SQL ones; none starts a line with a value, so they are safe inside a
// fenced code block.
type Commands struct {
	// StoreFlag is " --store STORE" when the generator knows the store
	// (Config.Store), else "": every analyze command carries it, and a
	// template writing its own puts it after the subcommand.
	StoreFlag string

	AnalyzeTrace  string   // analyze trace <first example>
	AnalyzeTraces []string // analyze trace <id> for every example
	// SaveTraces is a shell loop that saves every example's analyze trace
	// --json as trace-<id>.json; "" without examples.
	SaveTraces      string
	AnalyzeIncident string // analyze incident over the window, for the service

	// The log queries read the service's own lines; those of its caller
	// when the service leaves none (Data.Silent).
	LogQLTrace    string // Loki: the service's lines of the first example trace
	LogQLErrors   string // Loki: the service's error lines with the signature's fragment
	LogQLCaller   string // Loki: the caller's lines that name the service
	LogCLI        string // logcli query '<LogQLTrace>'
	SQLTrace      string // ClickHouse otel_logs: the first example trace, in time order
	SQLOnset      string // ClickHouse otel_logs: the service's errors per minute over the window
	SQLSignatures string // ClickHouse otel_logs: the service's most frequent error bodies

	// Queries over the spans (ClickHouse otel_traces, Duration in ns).
	SQLTraceSpans  string // the first example trace's spans with their durations and self time
	SQLCallGap     string // the first example trace: each call into the service, caller's wait against callee's span
	SQLCallGapBy   string // calls into the service per caller: median wait and callee span, before and during the window
	SQLSelfTime    string // the service's median self time per operation, before and during the window
	SQLSlowTraces  string // the service's slowest spans in the window, with their trace ids
	SQLErrorTraces string // otel_logs: traces in which the service logged warnings or errors, earliest first

	KubectlLogs       string // last 15 minutes of the service's logs
	KubectlPrevious   string // logs of the previous (crashed) container
	KubectlEvents     string // recent events (OOMKilled, probes, scheduling)
	KubectlTop        string // CPU and memory of the service's pods
	KubectlTopPods    string // CPU and memory of each container of the service's pods (sidecars too)
	KubectlPodsWide   string // the service's pods with their node and pod IP
	KubectlCallerPods string // the caller's pods with their node and pod IP
	KubectlTopNode    string // CPU and memory of every node, busiest first
	CPUResources      string // the CPU requests and limits of the service's containers
	SetCPULimit       string // raise the CPU limit of ONE deployment: the service (value as CPU_LIMIT)
	RolloutHistory    string
	RolloutUndo       string // roll back ONE deployment: the service
	RolloutStatus     string
	RolloutPause      string
	ScaleUp           string // scale ONE deployment: the service (replicas as REPLICAS)
	DescribeDeploy    string

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
	PromThrottled  string // share of CFS periods in which the service's containers were throttled
	PromCPUUsage   string // CPU the service's containers use against their limit (cores)
	PromClientWait string // p99 the callers wait for the service (their client spans)
	PromNetErrors  string // drops and errors on the network interfaces of the service's pods
}

// chTime formats t as a ClickHouse DateTime64 literal expression.
func chTime(t time.Time) string {
	return fmt.Sprintf("toDateTime64('%s', 9, 'UTC')", t.UTC().Format("2006-01-02 15:04:05"))
}

// newCommands fills in d's values; store is the " --store ARG" of the
// analyze commands. A zero window means the last hour.
func newCommands(d *Data, w rootcause.Window, store string) Commands {
	svc, caller := d.Service, d.Caller
	if caller.Empty() {
		caller = NewText(phCaller, 0)
	}
	// logs is whose lines the log queries read: the service's, or its
	// caller's when it leaves none.
	logs := svc
	if d.Silent {
		logs = caller
	}
	trace := NewText(phTrace, 0)
	if len(d.Examples) > 0 {
		trace = d.Examples[0]
	}
	c := Commands{
		StoreFlag:       store,
		AnalyzeTrace:    "analyze trace" + store + " " + trace.Sh(),
		AnalyzeIncident: "analyze incident" + store + " --since 1h --service " + svc.Sh(),
		LogQLTrace:      fmt.Sprintf("{service_name=%s} |= %s", logs.LogQL(), trace.LogQL()),
		LogQLErrors:     fmt.Sprintf(`{service_name=%s} | detected_level=~"error|fatal"`, logs.LogQL()),
		LogQLCaller:     fmt.Sprintf("{service_name=%s} |= %s", caller.LogQL(), svc.LogQL()),
	}
	var ids []string
	for _, ex := range d.Examples {
		c.AnalyzeTraces = append(c.AnalyzeTraces, "analyze trace"+store+" "+ex.Sh())
		ids = append(ids, ex.Sh())
	}
	if len(ids) > 0 {
		c.SaveTraces = fmt.Sprintf(`for id in %s; do analyze trace%s --json "$id" > "trace-$id.json"; done`, strings.Join(ids, " "), store)
	}
	if !w.From.IsZero() && !w.To.IsZero() {
		c.AnalyzeIncident = fmt.Sprintf("analyze incident%s --from %s --to %s --service %s",
			store, rfc3339(w.From), rfc3339(w.To), svc.Sh())
	}
	if !d.Fragment.Empty() && !d.Silent {
		c.LogQLErrors = fmt.Sprintf("{service_name=%s} |= %s", svc.LogQL(), d.Fragment.LogQL())
	}
	c.LogCLI = "logcli query --since=1h " + shQuote(c.LogQLTrace)
	fillSQL(&c, logs, trace, w)
	fillSpanSQL(&c, svc, trace, w)
	fillKubectl(&c, svc, caller)
	fillProm(&c, svc, caller)
	if d.Silent {
		fillSilent(&c, svc, caller, w)
	}
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

// fillSpanSQL fills the queries over otel_traces. "before" is the 30
// minutes before the window (the baseline), "during" the window; a zero
// window is the last hour, split at 30 minutes ago.
func fillSpanSQL(c *Commands, svc, trace Text, w rootcause.Window) {
	// when is the window with its baseline, during the window alone, for
	// the timestamp column col.
	when := func(col string) string { return col + " >= now() - INTERVAL 1 HOUR" }
	during := func(col string) string { return col + " >= now() - INTERVAL 30 MINUTE" }
	split := "now() - INTERVAL 30 MINUTE"
	if !w.From.IsZero() && !w.To.IsZero() {
		when = func(col string) string {
			return col + " >= " + chTime(w.From.Add(-30*time.Minute)) + " AND " + col + " < " + chTime(w.To)
		}
		during = func(col string) string {
			return col + " >= " + chTime(w.From) + " AND " + col + " < " + chTime(w.To)
		}
		split = chTime(w.From)
	}
	period := "if(s.Timestamp < " + split + ", 'before', 'during') AS period"
	c.SQLTraceSpans = "SELECT s.Timestamp, s.ServiceName, s.SpanName, s.SpanId, s.ParentSpanId,\n" +
		"  s.Duration / 1e6 AS ms, greatest(toInt64(s.Duration) - toInt64(k.child_ns), 0) / 1e6 AS self_ms\n" +
		"FROM otel_traces AS s\nLEFT JOIN (SELECT ParentSpanId, sum(Duration) AS child_ns FROM otel_traces\n" +
		"  WHERE TraceId = " + trace.SQL() + " GROUP BY ParentSpanId) AS k ON k.ParentSpanId = s.SpanId\n" +
		"WHERE s.TraceId = " + trace.SQL() + "\nORDER BY s.Timestamp"
	c.SQLCallGap = "SELECT p.ServiceName AS caller, p.SpanName AS caller_span, s.SpanName AS callee_span,\n" +
		"  p.Duration / 1e6 AS caller_waited_ms, s.Duration / 1e6 AS callee_took_ms,\n" +
		"  (toInt64(p.Duration) - toInt64(s.Duration)) / 1e6 AS gap_ms\n" +
		"FROM otel_traces AS s\nINNER JOIN otel_traces AS p ON p.TraceId = s.TraceId AND p.SpanId = s.ParentSpanId\n" +
		"WHERE s.TraceId = " + trace.SQL() + " AND p.TraceId = " + trace.SQL() + "\n" +
		"  AND s.ServiceName = " + svc.SQL() + " AND p.ServiceName != s.ServiceName\nORDER BY gap_ms DESC"
	c.SQLCallGapBy = "SELECT p.ServiceName AS caller, " + period + ", count() AS calls,\n" +
		"  quantile(0.5)(p.Duration) / 1e6 AS caller_waited_p50_ms, quantile(0.5)(s.Duration) / 1e6 AS callee_took_p50_ms\n" +
		"FROM otel_traces AS s\nINNER JOIN (SELECT TraceId, SpanId, ServiceName, Duration FROM otel_traces\n" +
		"  WHERE " + when("Timestamp") + ") AS p ON p.TraceId = s.TraceId AND p.SpanId = s.ParentSpanId\n" +
		"WHERE s.ServiceName = " + svc.SQL() + " AND p.ServiceName != s.ServiceName\n  AND " + when("s.Timestamp") +
		"\nGROUP BY caller, period ORDER BY caller, period"
	c.SQLSelfTime = "SELECT s.SpanName, " + period + ", count() AS spans,\n" +
		"  quantile(0.5)(greatest(toInt64(s.Duration) - toInt64(k.child_ns), 0)) / 1e6 AS self_p50_ms,\n" +
		"  quantile(0.5)(s.Duration) / 1e6 AS p50_ms\n" +
		"FROM otel_traces AS s\nLEFT JOIN (SELECT TraceId, ParentSpanId, sum(Duration) AS child_ns FROM otel_traces\n" +
		"  WHERE " + when("Timestamp") + " GROUP BY TraceId, ParentSpanId) AS k\n  ON k.TraceId = s.TraceId AND k.ParentSpanId = s.SpanId\n" +
		"WHERE s.ServiceName = " + svc.SQL() + " AND " + when("s.Timestamp") +
		"\nGROUP BY s.SpanName, period ORDER BY s.SpanName, period"
	c.SQLSlowTraces = "SELECT TraceId, SpanName, Duration / 1e6 AS ms, Timestamp\nFROM otel_traces\n" +
		"WHERE ServiceName = " + svc.SQL() + " AND " + during("Timestamp") + "\nORDER BY Duration DESC LIMIT 10"
	c.SQLErrorTraces = "SELECT TraceId, min(Timestamp) AS first, count() AS lines, any(Body) AS body\nFROM otel_logs\n" +
		"WHERE ServiceName = " + svc.SQL() + " AND SeverityNumber >= 13 AND TraceId != ''\n  AND " + during("Timestamp") +
		"\nGROUP BY TraceId ORDER BY first LIMIT 10"
}

// fillSilent replaces the queries that would read a silent service's own
// records or metrics (none exist) with its caller's view of its calls:
// the caller's client spans to it and the client-side metrics.
func fillSilent(c *Commands, svc, caller Text, w rootcause.Window) {
	during := "Timestamp >= now() - INTERVAL 30 MINUTE"
	if !w.From.IsZero() && !w.To.IsZero() {
		during = "Timestamp >= " + chTime(w.From) + " AND Timestamp < " + chTime(w.To)
	}
	calls := "ServiceName = " + caller.SQL() + " AND (SpanAttributes['peer.service'] = " + svc.SQL() +
		" OR SpanAttributes['server.address'] = " + svc.SQL() + ")"
	c.SQLSlowTraces = "SELECT TraceId, SpanName, Duration / 1e6 AS ms, Timestamp\nFROM otel_traces\n" +
		"WHERE " + calls + "\n  AND " + during + "\nORDER BY Duration DESC LIMIT 10"
	client := fmt.Sprintf("job=%s, server_address=%s", caller.PromQL(), svc.PromQL())
	c.PromLatencyP99 = fmt.Sprintf(`histogram_quantile(0.99, sum by (le) (rate(http_client_request_duration_seconds_bucket{%s}[5m])))`, client)
	c.SQLErrorTraces = "SELECT TraceId, min(Timestamp) AS first, count() AS lines, any(Body) AS body\nFROM otel_logs\n" +
		"WHERE ServiceName = " + caller.SQL() + " AND SeverityNumber >= 13 AND TraceId != ''\n  AND " + during +
		"\nGROUP BY TraceId ORDER BY first LIMIT 10"
	c.PromErrorRate = fmt.Sprintf(`sum(rate(http_client_request_duration_seconds_count{%s, error_type!=""}[5m]))`+
		` / sum(rate(http_client_request_duration_seconds_count{%s}[5m]))`, client, client)
}

func fillKubectl(c *Commands, svc, caller Text) {
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
	c.KubectlTopPods = "kubectl top pods --containers -l " + shQuote("app.kubernetes.io/name="+svc.raw())
	c.KubectlPodsWide = "kubectl get pods -o wide -l " + shQuote("app.kubernetes.io/name="+svc.raw())
	c.KubectlCallerPods = "kubectl get pods -o wide -l " + shQuote("app.kubernetes.io/name="+caller.raw())
	c.CPUResources = "kubectl get " + dep + " -o jsonpath=" +
		shQuote(`{range .spec.template.spec.containers[*]}{.name}: requests {.resources.requests.cpu}, limits {.resources.limits.cpu}{"\n"}{end}`)
	c.SetCPULimit = "kubectl set resources " + dep + " --limits=cpu=CPU_LIMIT"
	c.KubectlTopNode = "kubectl top nodes --sort-by=cpu"
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
	ctr := "container=" + svc.PromQL()
	podRe := strconv.Quote(regexp.QuoteMeta(svc.raw()) + "-.*")
	c.PromThrottled = fmt.Sprintf(`sum by (pod) (rate(container_cpu_cfs_throttled_periods_total{%s}[5m])) / sum by (pod) (rate(container_cpu_cfs_periods_total{%s}[5m]))`, ctr, ctr)
	c.PromCPUUsage = fmt.Sprintf(`sum by (pod) (rate(container_cpu_usage_seconds_total{%s}[5m])) / sum by (pod) (kube_pod_container_resource_limits{%s, resource="cpu"})`, ctr, ctr)
	c.PromClientWait = fmt.Sprintf(`histogram_quantile(0.99, sum by (le, job) (rate(http_client_request_duration_seconds_bucket{server_address=%s}[5m])))`, svc.PromQL())
	c.PromNetErrors = fmt.Sprintf(`sum by (pod) (rate(container_network_receive_packets_dropped_total{pod=~%s}[5m]) + rate(container_network_transmit_packets_dropped_total{pod=~%s}[5m]) + rate(container_network_receive_errors_total{pod=~%s}[5m]))`, podRe, podRe, podRe)
}

func fillBreaker(c *Commands, svc, caller Text) {
	u := shQuote("http://" + caller.raw() + ":8080/actuator/circuitbreakers/" + svc.Path())
	post := "curl -sS -X POST -H 'Content-Type: application/json' "
	c.BreakerForceOpen = post + `-d '{"updateState":"FORCE_OPEN"}' ` + u
	c.BreakerClose = post + `-d '{"updateState":"CLOSE"}' ` + u
}
