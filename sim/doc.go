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
// Config.Topology picks the shape of the system (Topologies); each has its
// own vocabulary of names, drawn from the seed, so that nothing tuned on one
// carries over to another:
//
//	shop      the graph above: entry gateways, business services on levels,
//	          per-service databases and caches, third-party APIs, one queue
//	jobqueue  an API that enqueues jobs (POST /v1/jobs, after a tenant quota
//	          check) on <word>-jobs; a pool of <word>-worker pods consumes it
//	          (traces run producer → queue → worker) and calls two to four stage
//	          services, the jobs database, a third-party store and an audit-log
//	          service every worker writes to; job status and result links are
//	          read through a status service
//	edge      an edge router in front: each route checks a token, looks in a
//	          cache (a hit answers at once, a miss goes on), then calls its own
//	          backend (<word>-origin, -backend, …), some of which fail over to a
//	          fallback backend (static-fallback, …) when they fail; backends call a
//	          resolver, their databases and a third-party API, and publish
//	          invalidations a purger consumes
//
// The seed systems (SeedTopologies) are the four systems faultline's first
// users run, each with the mechanisms its seed document tells of and its
// own faults (TopologyFaults), which a case of the system takes unless
// Config.Fault names another; every fault of Faults applies to them too:
//
//	routing   a router (a Worker) looks a workload's endpoint up in KV, on a
//	          miss in D1, and when D1 fails (logged at ERROR) in the health
//	          monitor's Durable Object state, then forwards to the workload's
//	          instances in their provider:region; a control API provisions
//	          through a provisioner that calls a policy proxy, a price feed
//	          (cached prices on failure) and the provider's regional API with
//	          retries and a breaker named provider:region. Faults:
//	          region-api-outage (a regional API times out or fails),
//	          d1-unavailable, instance-down (a region's instances refuse;
//	          the monitor's checks fail three times, then mark them unhealthy)
//	jobclaim  holders claim jobs by namespace from a jobs API, call the stage
//	          services and third-party APIs their namespace's jobs need, then
//	          complete or fail them; the API computes each namespace's breaker
//	          at claim time from its audit log (failed jobs since the later of
//	          a day ago and the last reset, against a threshold) and refuses
//	          claims while it is open, naming the namespace, not a
//	          dependency; a person resets it minutes later, and failures
//	          before the reset stop counting. Holders fail a few jobs of their
//	          own accord too. Faults: holder-api-slow, holder-stage-regression
//	triage    an email-triage workflow: a runner classifies each message,
//	          drafts a reply and asks a person to approve it; sending and
//	          refunding need the approval. Faults: classifier-new-label (the
//	          classifier's new version, seen only in its version, startup
//	          lines and new pods, answers a label the runner's flow never had,
//	          logging no error: the runner calls the payment tool, which
//	          refuses a refund without an approval, or its drafter refuses the
//	          label; both are logged by the callee and by the runner, which
//	          quotes it), model-api-slow
//	payment   orders are published on a queue; a payment worker charges them
//	          through the payment service, which calls the card gateway (3 s
//	          timeout, retries, a breaker); a message that fails every
//	          delivery (3 to 5) moves to the dead letter queue (-dlq, .DLT)
//	          and the order is cancelled (the saga's compensation).
//	          Redeliveries happen in time order with the other requests.
//	          Faults: gateway-timeout, payment-pool-exhaustion
//
// Their callers name callees by peer.service, remote.service or peer, as
// their loggers do; their third-party APIs have hosts of their own (a URL
// host is not the name); their services announce their versions at
// startup in their own words ("X v1.2.3 started") and log everyday errors
// of their kind.
//
// Outside the shop, databases are named <word>-pg, -store, -mysql or -mongo
// and their clients' spans carry db.name and server.address besides
// peer.service; the namespace (OTLP service.namespace, Loki's label) is the
// topology's own. Every fault kind applies to every topology.
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
//	truth.json             scenario, window, onset, root_cause (service, kind, fault_type),
//	                       failed_traces, extra_files, plus seed, topology, baseline and
//	                       services (service → format)
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
// # Faults
//
// Faults lists every variant (truth.json's root_cause.fault_type) of every
// kind; Config.Fault picks the kind and Config.FaultType the variant:
//
//	dependency-timeout  third-party-slow            a third-party API slows down; callers time out, breakers open
//	                    silent-db                   a database slows down; its callers time out and log it
//	                    silent-api                  third-party-slow, the API spelled differently by each caller
//	db-pool-exhaustion  connection-pool-exhaustion  a service's pool runs dry; it logs acquire timeouts
//	resource-gc         gc-pressure                 stop-the-world pauses, WARN lines, callers time out
//	bad-deploy          regression-after-deploy     a new version throws on one operation
//	                    silent-deploy               a new version, on new pods, sends calls its callee rejects
//	rate-limit          rate-limit-retry-storm      a service answers 429; retries without jitter amplify
//	poison-message      poison-message              the consumer fails on a message until the DLQ
//	connection-refused  crash-loop                  the service is down, restarts, is down longer
//	oom                 oom-kill                    pods are killed for memory, after GC pauses
//	network-delay       network-delay               one pod's network slows down
//	cpu-starvation      cpu-starvation              a service's own work slows down
//
// The silent faults write no log line about themselves and no error of
// their own at the faulty component:
//
//   - network-delay: one pod of a business service (the service, when it
//     has one pod) gets +50..400 ms (from the seed) per round trip, half each
//     way, log-normal jitter, ramping in with the fault. Calls into the pod
//     wait longer on the wire, so its callers' client spans grow while its own
//     server spans, and their self time, stay as in the baseline; a caller
//     pushed past its timeout times out as it would. Its own outgoing calls
//     are delayed too, but never past a third of their timeout, so it never
//     times out itself.
//   - cpu-starvation: a business service's own work (the self time of its
//     spans) is 3..10 times slower, and its clients add a little overhead
//     (under a third of each call's timeout) to every outgoing call; its
//     callees do not slow.
//   - silent-db: a database (no spans, no logs of its own) gets slow for a
//     share of queries and slower for the rest; callers time out (statement
//     timeouts) and log it naming the database by peer.service, the name
//     truth.json gives.
//   - silent-api: third-party-slow, but each calling service names the API
//     its own way: the busiest by peer.service (the name truth.json gives),
//     the others only by server.address (api.<name>.example.com) or only by
//     url.full and the URLs in their messages. An API with fewer than three
//     calling services gets more.
//   - silent-deploy: shortly before onset a business service rolls out its
//     new service.version on new pods (new replica set, new pod names,
//     INFO startup lines), an old pod stopping as each new one is ready. The
//     new version leaves a field out of the requests along one call to a
//     service; the callee logs the validation failure at ERROR and answers
//     400, which the new version ignores: it logs nothing and answers its
//     caller as usual (only its HTTP client's span records the 400).
//
// A failed trace is one in which the fault produced at least one error (an
// ERROR log or a span with error status); its origin_service is the faulty
// service (truth.json's root_cause.service: the API or database for a
// dependency-timeout, the deployed service for silent-deploy), also for
// network-delay and cpu-starvation, whose target writes no error: the
// caller that timed out wrote the trace's first error, and its timeout
// points at the target (as DOMAIN.md has it, a good analyzer follows the
// pointer). For these two, a trace whose only fault-caused error is a span
// left unexported is not counted. Without errors these two leave few or no failed traces. A
// third-party API logs nothing: it appears as peer.service on its callers'
// client spans and error logs, in URLs (api.<name>.example.com) and in
// breaker names.
//
// A fault draws from the seed only on its own paths: adding faults and
// topologies left what the earlier kinds generate in the shop unchanged.
//
// Seeds are stable for one version of this package: a change to the
// simulator may change what a seed generates.
package sim
