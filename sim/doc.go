// Package sim simulates incidents in a microservice system and writes them
// as case folders that faultline can ingest and score itself against.
//
// # Model
//
// Generate builds a service graph from the seed (entry gateways, business
// services on three to five levels, databases, caches, a queue with its
// consumer, third-party APIs), then plays traffic through it: Poisson
// arrivals at the entry points, each request a trace that fans out along
// the graph. Every call has a timeout by kind (database ~2 s, cache ~100 ms,
// HTTP ~3 s, queue ~500 ms), retries with or without jitter, and some edges
// have circuit breakers (closed, open after a failure ratio, half-open after
// ~30 s), bulkheads and fallbacks. Services run on pods whose clocks are
// skewed, write in one log format each (the one their shipper carries) and
// most of them export spans; some traces are exported without spans.
//
// After a fault-free baseline, one fault (one of FaultKinds) starts inside
// the incident window and the system reacts as real systems do: callers
// time out after their callee logged the real failure, breakers open and
// fail fast, retries amplify, noise services keep logging ERROR as in the
// baseline. The truth (root cause, onset, and the origin of every failed
// trace) is recorded by the simulator, never derived from the logs.
//
// # Case folder
//
// WriteCase writes the baseline and the window into the same files (the
// baseline precedes truth.window.from; extra_files is empty):
//
//	traces.otlp.jsonl.gz   spans of traced services, ExportTraceServiceRequest JSON per line
//	logs.otlp.jsonl[.gz]   logs of OTel-SDK services, ExportLogsServiceRequest JSON per line
//	loki-push.jsonl.gz     Loki push JSON bodies, one per line: text lines and JSON lines,
//	                       labels service_name, pod, namespace, container, node
//	<service>.jsonl[.gz]   JSON lines of one service's logger
//	<service>.log[.gz]     text lines of one service (traceparent format)
//	truth.json             scenario, window, onset, root_cause, failed_traces,
//	                       extra_files, plus seed, baseline and services (service → format)
//
// Each service logs in one format, the one its shipper carries:
//
//	otlp              OTel SDK; the Collector's file exporter
//	zap               {"level","ts" (unix s, float),"caller","msg","service","version","trace_id","span_id"}
//	logrus            {"level","msg","time","service","version","traceID","spanID"}
//	slog              {"time","level","source","msg","service.name","service.version","trace_id","span_id"}
//	logstash          {"@timestamp","@version","message","logger_name","thread_name","level","level_value","traceId","spanId","app","version"}
//	datadog           {"timestamp","level","message","dd.service","dd.version","dd.trace_id","dd.span_id"} (64-bit ids in decimal)
//	python-json       {"timestamp","levelname","name","message","otelServiceName","otelTraceID","otelSpanID"} (via Loki)
//	pino              {"level" (30/40/50),"time" (unix ms),"hostname","name","trace_id","span_id","msg"} (via Loki)
//	spring-text       2026-01-15 09:30:01.234 ERROR [app,traceId,spanId] 1 --- [thread] logger : msg (via Loki)
//	trainticket-text  09:30:01.234 ERROR logger#88 TraceID: … SpanID: … [msg] (via Loki)
//	logfmt            time=… level=error msg="…" service=… trace_id=… span_id=… (via Loki)
//	python-text       … ERROR [logger] [trace_id=… span_id=… resource.service.name=… trace_sampled=True] - msg (via Loki)
//	traceparent-text  2026-…Z [ERROR] service=… msg traceparent=00-…-…-01
//
// Stack traces follow the message on the next lines in text formats and sit
// in a field in JSON ones. A system with a Datadog-format service uses
// 64-bit trace ids throughout (zero-padded to 32 hex in OTLP and truth).
//
// A failed trace is one in which the fault produced at least one error (an
// ERROR log or a span with error status); its origin_service is the faulty
// service, or the third-party API for a dependency-timeout. A third-party
// API logs nothing: it appears as peer.service on its callers' client spans
// and error logs, in URLs (api.<name>.example.com) and in breaker names.
//
// Seeds are stable for one version of this package: a change to the
// simulator may change what a seed generates.
package sim
