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
//	traces.otlp.jsonl.gz   spans, ExportTraceServiceRequest JSON per line
//	logs.otlp.jsonl[.gz]   logs of OTel-SDK services, ExportLogsServiceRequest per line
//	loki-push.jsonl.gz     Loki push JSON bodies, one per line (text and JSON lines)
//	<service>.jsonl[.gz]   JSON lines of one service's logger (zap, logrus, slog, logstash, datadog, python)
//	<service>.log[.gz]     plain text lines of one service
//	truth.json             scenario, window, onset, root_cause, failed_traces, extra_files
//
// A failed trace is one in which the fault produced at least one error (an
// ERROR log or a span with error status); its origin_service is the faulty
// service, or the third-party API for a dependency-timeout.
package sim
