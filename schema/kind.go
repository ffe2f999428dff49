package schema

// Kind is a failure kind: the class of an error record and the kind of a
// root-cause candidate. Kinds are added, never renamed (a test pins the list).
type Kind string

const (
	KindTimeout           Kind = "timeout"
	KindDependencyTimeout Kind = "dependency-timeout"
	KindConnectionRefused Kind = "connection-refused"
	KindRateLimit         Kind = "rate-limit"
	KindOverload          Kind = "overload"
	KindCircuitOpen       Kind = "circuit-open"
	KindBulkheadFull      Kind = "bulkhead-full"
	KindRetryExhausted    Kind = "retry-exhausted"
	KindDBPoolExhaustion  Kind = "db-pool-exhaustion"
	KindResourceGC        Kind = "resource-gc"
	KindOOM               Kind = "oom"
	KindBadDeploy         Kind = "bad-deploy"
	KindDeterministic     Kind = "deterministic"
	KindAuth              Kind = "auth"
	KindNotFound          Kind = "not-found"
	KindPoisonMessage     Kind = "poison-message"
	KindTransient         Kind = "transient"
	KindUnknown           Kind = "unknown"
	// KindLatency is a candidate whose evidence is slowness, not errors:
	// spans that got much slower than the baseline.
	KindLatency Kind = "latency"
	// KindLogAnomaly is a candidate whose evidence is a change in what a
	// service logs (patterns that appeared or stopped) without errors.
	KindLogAnomaly Kind = "log-anomaly"
	// KindNetworkDelay is a candidate whose evidence is the time calls
	// spend between caller and callee: the callee's own spans did not slow,
	// its callers waited longer for them (a slow network, a pod's packets
	// delayed, queueing in front of it).
	KindNetworkDelay Kind = "network-delay"
	// KindCPUStarvation is a candidate whose own work slowed across its
	// operations while what it calls did not: CPU contention or throttling,
	// a noisy neighbour, a process short of cycles.
	KindCPUStarvation Kind = "cpu-starvation"
)

// Kinds lists every kind in a fixed order.
var Kinds = []Kind{
	KindTimeout, KindDependencyTimeout, KindConnectionRefused, KindRateLimit,
	KindOverload, KindCircuitOpen, KindBulkheadFull, KindRetryExhausted,
	KindDBPoolExhaustion, KindResourceGC, KindOOM, KindBadDeploy,
	KindDeterministic, KindAuth, KindNotFound, KindPoisonMessage,
	KindTransient, KindUnknown, KindLatency, KindLogAnomaly,
	KindNetworkDelay, KindCPUStarvation,
}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, v := range Kinds {
		if v == k {
			return true
		}
	}
	return false
}

// PointsElsewhere reports whether an error of this kind is usually a symptom
// of a failure in a dependency (the callee) rather than in the service that
// logged it: timeouts, open breakers, full bulkheads, exhausted retries and
// refused connections.
func (k Kind) PointsElsewhere() bool {
	switch k {
	case KindTimeout, KindDependencyTimeout, KindCircuitOpen, KindBulkheadFull,
		KindRetryExhausted, KindConnectionRefused:
		return true
	}
	return false
}

// Vague reports whether an error of this kind says only that something
// failed: a bare 5xx (transient) or an error nothing recognises.
func (k Kind) Vague() bool { return k == KindTransient || k == KindUnknown }

// Signature is an opaque hash of an error template: records whose messages
// differ only in their variable parts share it. Sixteen lowercase hex characters.
type Signature string
