package correlate

import (
	"strconv"
	"strings"

	"github.com/faultline/faultline/schema"
)

// Classify returns the failure kind that a record's text, attributes
// (HTTP and gRPC status, exception.type) and span status show.
//
// Specific phrases of real software win over status codes, and status codes
// over generic wording: "HikariPool-1 - Connection is not available,
// request timed out" is db-pool-exhaustion, not timeout; a 500 whose text
// is a NullPointerException is deterministic, not transient.
//
// An error record (schema.Record.IsError) nothing recognises is
// KindUnknown. A record that is not an error (a WARN line, a span with a
// 5xx status but no error status) gets a kind only for failure signals:
// GC pauses, pool waits, retries, timeouts, breakers and the like; for
// anything else, and for INFO and below, Classify returns "".
func Classify(r *schema.Record) schema.Kind {
	k, _ := classifyWithHint(r, false)
	return k
}

// ClassifyTarget is Classify that also names the dependency the record's
// attributes or text point at, as written (lowercase, not resolved to a
// service of any trace), or "" when it names none. A warning that tells of
// no failure kind still names the dependency it is about ("using fallback
// for ads-svc").
func ClassifyTarget(r *schema.Record) (schema.Kind, string) {
	k, hint := classifyWithHint(r, true)
	if k == "" && !r.IsError() && r.Severity >= schema.SeverityWarn {
		if hint = hintFromAttrs(r); hint == "" {
			var buf [textCap]byte
			var l lowered
			l.init(buf[:], r)
			hint = hintFromText(&l)
		}
	}
	return k, hint
}

// classifyWithHint is Classify that also names the callee the record's
// attributes or text point at (lowercase, unresolved) when wantHint is set
// and the record carries a failure.
func classifyWithHint(r *schema.Record, wantHint bool) (schema.Kind, string) {
	return classifyNaming(r, wantHint, byName)
}

// classifyNaming is classifyWithHint with the callee named by n.
func classifyNaming(r *schema.Record, wantHint bool, n calleeNaming) (schema.Kind, string) {
	isErr := r.IsError()
	if !isErr && r.Type == schema.TypeLog && r.Severity != schema.SeverityUnspecified &&
		r.Severity < schema.SeverityWarn {
		return "", ""
	}
	var buf [textCap]byte
	var l lowered
	l.init(buf[:], r)
	k := classifyText(&l, r)
	switch {
	case isErr && k == "":
		k = schema.KindUnknown
	case !isErr && !isSignalKind(k):
		return "", ""
	}
	if !wantHint {
		return k, ""
	}
	h := hintBy(r, n)
	if h == "" {
		return k, clientOf(dashed(r.Body, hintFromText(&l)))
	}
	if strings.IndexByte(h, '.') > 0 && !isIPv4(h) {
		// An attribute gives the host ("api.geo-vendor.example.com") and
		// the text the name the caller calls it by ("failed to call
		// geo-vendor-api"): the name, as peer.service would give it.
		if t := dashed(r.Body, hintFromText(&l)); t != "" && t != h && strings.IndexByte(t, '.') < 0 &&
			!isIPv4(t) && sameService(externalName(h), t) {
			return k, t
		}
	}
	return k, h
}

// dashed gives a label that the text writes in camelCase ("TimeLimiter
// 'fxRatesApi'") the dashed form service names take in DNS
// ("fx-rates-api"); the lowercased text the hint was read from lost the
// case. Other hints are returned as they are.
func dashed(body, tok string) string {
	if len(tok) < 4 || strings.ContainsAny(tok, ".-_:") || !hasUpper(body) {
		return tok
	}
	for i := 0; i+len(tok) <= len(body); i++ {
		if body[i]|0x20 != tok[0] || !strings.EqualFold(body[i:i+len(tok)], tok) {
			continue
		}
		orig := body[i : i+len(tok)]
		var b strings.Builder
		for j := 0; j < len(orig); j++ {
			c := orig[j]
			if 'A' <= c && c <= 'Z' {
				if j > 0 && ('a' <= orig[j-1] && orig[j-1] <= 'z' || isDigit(orig[j-1])) {
					b.WriteByte('-')
				}
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	return tok
}

// clientOf names the callee of a client class ("WorkloadsD1Client",
// dashed "workloads-d1-client"): the callee, "workloads-d1". Other names
// are returned as they are.
func clientOf(tok string) string {
	if n, ok := strings.CutSuffix(tok, "-client"); ok && len(n) >= 2 {
		return n
	}
	return tok
}

// isSignalKind reports whether a kind on a non-error record still means
// something is failing.
func isSignalKind(k schema.Kind) bool {
	switch k {
	case "", schema.KindDeterministic, schema.KindAuth, schema.KindNotFound, schema.KindUnknown:
		return false
	}
	return true
}

// classifyText applies the rules from the most specific to the most
// generic; "" when none matches.
func classifyText(l *lowered, r *schema.Record) schema.Kind {
	// Direct calls, not a table of funcs: l then stays on the stack.
	if k := memoryKind(l); k != "" {
		return k
	}
	if k := poolKind(l); k != "" {
		return k
	}
	// A message moved to a dead letter queue after its retries is a poison
	// message, whatever gave up on it: poison before resilience.
	if k := poisonKind(l); k != "" {
		return k
	}
	if k := resilienceKind(l); k != "" {
		if k == schema.KindRetryExhausted {
			// Retries that gave up name what they gave up on: a callee that
			// refused, throttled or timed out is that, whoever retried.
			if inner := retriedKind(l, r); inner != "" {
				return inner
			}
		}
		return k
	}
	if k := rateKind(l); k != "" {
		return k
	}
	if k := deployKind(l); k != "" {
		return k
	}
	if k := refusedKind(l); k != "" {
		return k
	}
	if isTimeoutText(l) {
		return timeoutKind(l, r)
	}
	if isOverloadText(l) {
		return schema.KindOverload
	}
	if k := deterministicText(l); k != "" {
		return k
	}
	if k := statusKind(l, r); k != "" {
		return k
	}
	return genericKind(l)
}

// memoryKind: out of memory, and garbage-collector pressure.
func memoryKind(l *lowered) schema.Kind {
	switch {
	case l.has("outofmemoryerror", "out of memory", "oomkilled", "oom-kill", "oom killer",
		"cannot allocate memory", "memoryerror", "heap out of memory", "memory limit exceeded",
		"allocation failed - javascript heap", "exit code 137", "insufficient memory"):
		return schema.KindOOM
	case l.has("gc overhead", "gc pause", "long gc", "gc took", "pause young", "pause full",
		"full gc", "stop-the-world", "stop the world", "gc (allocation failure)",
		"jvm pause", "jvmpause", "detected pause", "pause of approximately", "[gc][", "garbage collect", "memory pressure",
		"heap usage", "heap is", "high heap", "gc overhead limit", "gc_pause", "gc pressure",
		"heap used", "event loop blocked", "event loop lag", "eventloop lag", "event-loop lag"):
		return schema.KindResourceGC
	}
	return ""
}

// poolKind: a client-side connection pool with no free connection
// (HikariCP, DBCP, c3p0, pgxpool, SQLAlchemy, database/sql waits) or a
// database refusing more clients.
func poolKind(l *lowered) schema.Kind {
	if l.has("connection is not available, request timed out", "hikaripool",
		"timeout waiting for idle object", "cannot get a connection, pool error",
		"unable to acquire jdbc connection", "could not get jdbc connection",
		"pool exhausted", "pool is exhausted", "connection pool exhausted",
		"queuepool limit", "too many connections", "too many clients",
		"remaining connection slots are reserved", "failed to acquire connection",
		"acquire connection timeout", "timed out waiting for a connection",
		"waiting for a connection", "waiting for connection from pool",
		"pgxpool", "max_connections", "connection pool is full",
		"no available connection", "resourcepool", "checkout timeout",
		"timeout acquiring a connection", "pool is probably full", "acquiring a connection",
		"connection pool timeout", "pool timeout", "pool is full") {
		return schema.KindDBPoolExhaustion
	}
	return ""
}

// retriedKind is the kind of the failure a retry-exhausted message says
// the retries were of, when it says: refused, throttled, timed out.
func retriedKind(l *lowered, r *schema.Record) schema.Kind {
	if k := refusedKind(l); k != "" {
		return k
	}
	if k := rateKind(l); k != "" {
		return k
	}
	if isTimeoutText(l) {
		return timeoutKind(l, r)
	}
	return ""
}

// resilienceKind: circuit breakers, bulkheads and retries giving up
// (Resilience4j, Hystrix, Polly, gobreaker, Spring Retry, ...).
func resilienceKind(l *lowered) schema.Kind {
	switch {
	case l.has("callnotpermittedexception", "short-circuited", "circuit breaker is open",
		"circuitbreaker is open", "breaker is open", "circuit is open", "circuit open",
		"breaker open", "brokencircuitexception", "open state", "circuit breaker open",
		"hystrixruntimeexception: short") ||
		(l.has("circuit") && l.has("is open", "' is open", "\" is open", "state open", "opened", " to open", "-> open")) ||
		l.has("breaker tripped", "circuit tripped", "breaker has tripped", "tripped the breaker") ||
		// Work refused because earlier work failed: a breaker by
		// another name ("namespace X is paused after repeated failures").
		l.has("paused", "suspended", "halted", "quarantined", "disabled", "stopped handing out") &&
			l.has("repeated failures", "too many failures", "consecutive failures", "failures since", "failed since", "jobs failed"):
		return schema.KindCircuitOpen
	case l.has("bulkheadfullexception", "bulkhead", "could not acquire a semaphore",
		"rejectedexecutionexception", "thread pool is exhausted", "threadpool is exhausted",
		"executor rejected", "rejected from java.util.concurrent", "semaphore rejected"):
		return schema.KindBulkheadFull
	case l.has("retries exhausted", "retry exhausted", "exhaustedretryexception",
		"retryexhausted", "max retries", "maximum retries", "max retry", "exhausted retries",
		"retry limit", "all retries failed", "retries exceeded", "retry attempts exhausted",
		"maxretriesexceeded", "gave up after", "giving up after", "too many retries") ||
		l.exceedsAttempts():
		return schema.KindRetryExhausted
	}
	return ""
}

// exceedsAttempts finds "failed after 3 attempts" / "after 5 retries".
func (l *lowered) exceedsAttempts() bool {
	s := l.s
	for {
		i := strings.Index(s, "after ")
		if i < 0 {
			return false
		}
		s = s[i+len("after "):]
		j := 0
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > 0 {
			w := s[j:min(len(s), j+9)]
			if strings.HasPrefix(w, " attempt") || strings.HasPrefix(w, " retries") || strings.HasPrefix(w, " tries") {
				return true
			}
		}
	}
}

// poisonKind: a message that keeps failing and goes to a dead letter queue
// (or topic: Kafka's DLT).
func poisonKind(l *lowered) schema.Kind {
	if l.has("dead letter", "dead-letter", "deadletter", "dlq", "dlt", "maxreceivecount",
		"max receive count", "poison", "max delivery", "redelivery limit",
		"delivery attempts exceeded", "exceeded max deliveries") {
		return schema.KindPoisonMessage
	}
	return ""
}

// rateKind: throttling by a server or a gateway.
func rateKind(l *lowered) schema.Kind {
	if l.has("too many requests", "rate limit", "ratelimit", "rate-limit", "rate exceeded",
		"throttl", "requestlimitexceeded", "retry-after", "quota exceeded",
		"slow down", "requests per second exceeded") {
		return schema.KindRateLimit
	}
	return ""
}

// refusedKind: nothing answers at the callee's address, or no instance is
// registered for it.
func refusedKind(l *lowered) schema.Kind {
	if l.has("connection refused", "econnrefused", "connectexception", "connect exception",
		"no route to host", "ehostunreach", "no instances available", "no healthy upstream",
		"upstream connect error", "connection reset by peer before", "failed to connect",
		"could not connect", "unable to connect", "cannot connect",
		"name or service not known", "unknownhostexception", "no such host", "getaddrinfo enotfound",
		"getaddrinfo", "unreachable") {
		return schema.KindConnectionRefused
	}
	return ""
}

// deployKind: code that does not match what it runs against, typical
// right after a deploy.
func deployKind(l *lowered) schema.Kind {
	if l.has("nosuchmethoderror", "noclassdeffounderror", "classnotfoundexception",
		"nosuchfielderror", "incompatibleclasschangeerror", "unsupportedclassversionerror",
		"abstractmethoderror", "modulenotfounderror", "importerror", "cannot find module",
		"undefined symbol", "symbol lookup error", "migration failed", "schema version mismatch",
		"flywayexception", "liquibase", "column does not exist", "unknown column",
		"no such column", "relation does not exist", "unrecognized field", "unknown field") ||
		(l.has("column \"", "relation \"") && l.has("does not exist")) {
		return schema.KindBadDeploy
	}
	return ""
}

func isTimeoutText(l *lowered) bool {
	return l.has("timeout", "timed out", "time out", "deadline exceeded", "deadline_exceeded",
		"deadlineexceeded", "etimedout", "esockettimedout", "took too long") ||
		l.exceedsDuration("exceeded", "exceeds", "after waiting")
}

// timeoutKind tells a timeout on a call to a dependency (a 504, an
// upstream, a named callee) from one of the service's own work.
func timeoutKind(l *lowered, r *schema.Record) schema.Kind {
	if l.has("gateway timeout", "upstream", "read timed out", "sockettimeoutexception",
		"calling", "call to", "request to", "query to", "connect timed out", "while awaiting headers",
		"client.timeout", "grpc", "rpc", "http") || httpStatus(r) == 504 ||
		hintFromAttrs(r) != "" {
		return schema.KindDependencyTimeout
	}
	return schema.KindTimeout
}

func isOverloadText(l *lowered) bool {
	return l.has("overload", "shedding", "load shed", "server busy", "server is busy",
		"too busy", "capacity exceeded", "cpu throttling", "resource_exhausted",
		"resourceexhausted", "queue full", "queue is full")
}

// deterministicText: programming and input errors that fail the same way
// on every try.
func deterministicText(l *lowered) schema.Kind {
	switch {
	case l.has("nullpointerexception", "nil pointer dereference", "invalid memory address",
		"illegalargumentexception", "numberformatexception", "classcastexception",
		"indexoutofboundsexception", "index out of range", "arithmeticexception",
		"divide by zero", "zerodivisionerror", "typeerror", "keyerror", "valueerror",
		"attributeerror", "is not a function", "cannot read propert", "undefined is not",
		"unsupportedoperationexception", "jsonparseexception", "jsonmappingexception",
		"httpmessagenotreadableexception", "methodargumentnotvalidexception",
		"constraintviolationexception", "constraint violation", "duplicate key",
		"unique constraint", "integrityerror", "dataintegrityviolation", "validation failed",
		"validationerror", "invalid argument", "invalid_argument", "malformed",
		"cannot unmarshal", "unmarshal", "parse error", "panic:", "assertionerror",
		"stackoverflowerror", "illegalstateexception", "is null"):
		return schema.KindDeterministic
	case l.has("unauthorized", "unauthenticated", "forbidden", "permission denied",
		"access denied", "accessdeniedexception", "authentication failed",
		"invalid token", "token expired", "jwt expired", "expiredjwtexception",
		"invalid credentials", "bad credentials", "badcredentialsexception",
		"not authorized", "permission_denied"):
		return schema.KindAuth
	}
	return ""
}

// statusKind maps HTTP and gRPC status codes, from attributes or text.
func statusKind(l *lowered, r *schema.Record) schema.Kind {
	code := httpStatus(r)
	if code == 0 {
		code = l.statusAfter("status", "http/1.1 ", "http/2 ", "http ", "code ", "code=", "code:",
			"returned ", "answered ", "responded ", "responding with ", "rejecting with ", "rejected with ", "response ", "got ")
	}
	if k := httpKind(code); k != "" {
		return k
	}
	if v := r.Attrs[schema.AttrRPCGRPCStatus]; v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return grpcKind(n)
		}
	}
	return ""
}

func httpStatus(r *schema.Record) int {
	for _, k := range [...]string{schema.AttrHTTPStatus, "http.status_code"} {
		if v := r.Attrs[k]; v != "" {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	return 0
}

func httpKind(code int) schema.Kind {
	switch {
	case code == 429:
		return schema.KindRateLimit
	case code == 504, code == 408:
		return schema.KindDependencyTimeout
	case code == 401, code == 403, code == 407:
		return schema.KindAuth
	case code == 404, code == 410:
		return schema.KindNotFound
	case code >= 400 && code < 500:
		return schema.KindDeterministic
	case code >= 500 && code < 600:
		return schema.KindTransient
	}
	return ""
}

// grpcKind maps a gRPC status code (google.golang.org/grpc/codes).
func grpcKind(code int) schema.Kind {
	switch code {
	case 4: // DEADLINE_EXCEEDED
		return schema.KindDependencyTimeout
	case 8: // RESOURCE_EXHAUSTED
		return schema.KindRateLimit
	case 7, 16: // PERMISSION_DENIED, UNAUTHENTICATED
		return schema.KindAuth
	case 5: // NOT_FOUND
		return schema.KindNotFound
	case 3, 6, 9, 11, 12: // INVALID_ARGUMENT, ALREADY_EXISTS, FAILED_PRECONDITION, OUT_OF_RANGE, UNIMPLEMENTED
		return schema.KindDeterministic
	case 1, 2, 10, 13, 14, 15: // CANCELLED, UNKNOWN, ABORTED, INTERNAL, UNAVAILABLE, DATA_LOSS
		return schema.KindTransient
	}
	return ""
}

// genericKind: the wording left once nothing specific matched.
func genericKind(l *lowered) schema.Kind {
	switch {
	case l.has("service unavailable", "bad gateway", "internal server error",
		"connection reset", "econnreset", "broken pipe", "unexpected eof", ": eof", "temporarily unavailable",
		"connection lost", "connection was lost", "connection closed unexpectedly",
		"try again", "deadlock", "serialization failure", "could not serialize",
		"retrying", "will retry", "retry attempt", "retry #", "transient"):
		return schema.KindTransient
	case l.has("not found", "notfound", "no such", "does not exist", "nosuchelementexception",
		"entitynotfound", "filenotfound"):
		return schema.KindNotFound
	case l.has("slow query", "slow request", "slow response", "high latency", "latency exceeded"):
		return schema.KindLatency
	case l.has("bad request", "unprocessable", "invalid", "validation"):
		return schema.KindDeterministic
	}
	return ""
}
