package correlate

import (
	"fmt"
	"testing"

	"github.com/faultline/faultline/schema"
)

func errorLog(msg string) *schema.Record {
	return &schema.Record{Type: schema.TypeLog, Severity: schema.SeverityError, Body: msg}
}

func warnLog(msg string) *schema.Record {
	return &schema.Record{Type: schema.TypeLog, Severity: schema.SeverityWarn, Body: msg}
}

// TestClassifyMessages runs Classify over error messages as real software
// writes them (Java, Go, Python, Node, proxies, databases, resilience
// libraries).
func TestClassifyMessages(t *testing.T) {
	cases := []struct {
		msg  string
		want schema.Kind
	}{
		// Timeouts.
		{`Get "http://payment:8080/charge": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, schema.KindDependencyTimeout},
		{`java.net.SocketTimeoutException: Read timed out`, schema.KindDependencyTimeout},
		{`rpc error: code = DeadlineExceeded desc = context deadline exceeded`, schema.KindDependencyTimeout},
		{`upstream request timeout`, schema.KindDependencyTimeout},
		{`ERROR: canceling statement due to statement timeout`, schema.KindTimeout},
		{`Lock wait timeout exceeded; try restarting transaction`, schema.KindTimeout},
		{`operation exceeded 3000ms`, schema.KindTimeout},
		{`Error: ETIMEDOUT`, schema.KindTimeout},
		{`requests.exceptions.ReadTimeout: HTTPConnectionPool(host='inventory', port=80): Read timed out. (read timeout=5)`, schema.KindDependencyTimeout},
		// Connection refused and unreachable callees.
		{`dial tcp 10.0.0.7:5432: connect: connection refused`, schema.KindConnectionRefused},
		{`Error: connect ECONNREFUSED 127.0.0.1:6379`, schema.KindConnectionRefused},
		{`java.net.ConnectException: Connection refused (Connection refused)`, schema.KindConnectionRefused},
		{`Request processing failed; nested exception is java.lang.IllegalStateException: No instances available for ts-basic-service`, schema.KindConnectionRefused},
		{`no healthy upstream`, schema.KindConnectionRefused},
		// The callee closed the connection: it died, or a proxy cut it.
		{`request to promotion failed: Get "http://promotion:8080/api/v1/promotion/5694": EOF`, schema.KindTransient},
		{`java.net.UnknownHostException: payment-service: Name or service not known`, schema.KindConnectionRefused},
		// Rate limits.
		{`429 Too Many Requests`, schema.KindRateLimit},
		{`Rate limit exceeded, Retry-After: 30`, schema.KindRateLimit},
		{`botocore.exceptions.ClientError: An error occurred (ThrottlingException) when calling the PutItem operation: Rate exceeded`, schema.KindRateLimit},
		// Overload.
		{`server overloaded, shedding load`, schema.KindOverload},
		{`rpc error: code = ResourceExhausted desc = grpc: received message larger than max`, schema.KindOverload},
		// Resilience patterns.
		{`io.github.resilience4j.circuitbreaker.CallNotPermittedException: CircuitBreaker 'backendA' is OPEN and does not permit further calls`, schema.KindCircuitOpen},
		{`com.netflix.hystrix.exception.HystrixRuntimeException: getUser short-circuited and fallback failed.`, schema.KindCircuitOpen},
		{`circuit breaker is open`, schema.KindCircuitOpen},
		// Retries that gave up are what they retried.
		{`HTTPConnectionPool(host='us-tx-1.lambda.internal', port=8080): Max retries exceeded with url: / (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f>: Failed to establish a new connection: [Errno 111] Connection refused'))`, schema.KindConnectionRefused},
		{`giving up after 5 attempts: 429 Too Many Requests`, schema.KindRateLimit},
		{`retries exhausted: context deadline exceeded calling payments`, schema.KindDependencyTimeout},
		{`ERR_STORE: query to orders-db timed out after 800ms`, schema.KindDependencyTimeout},
		{`retries exhausted`, schema.KindRetryExhausted},
		// Work refused because earlier work failed, by other names.
		{`jobs-worker responded 423: namespace billing-etl is paused after repeated failures: 9 jobs failed since 2026-01-15 00:01:57 UTC, limit 8`, schema.KindCircuitOpen},
		{`tenant acme suspended: too many failures in the last hour`, schema.KindCircuitOpen},
		{`breaker tripped for provider lambda:us-east-1`, schema.KindCircuitOpen},
		{`export paused by the operator for maintenance`, schema.KindUnknown},
		{`io.github.resilience4j.bulkhead.BulkheadFullException: Bulkhead 'inventory' is full and does not permit further calls`, schema.KindBulkheadFull},
		{`java.util.concurrent.RejectedExecutionException: Task rejected from java.util.concurrent.ThreadPoolExecutor@5f1`, schema.KindBulkheadFull},
		{`HystrixRuntimeException: could not acquire a semaphore for execution`, schema.KindBulkheadFull},
		{`org.springframework.retry.ExhaustedRetryException: Retry exhausted after last attempt`, schema.KindRetryExhausted},
		{`giving up after 5 attempts: connection reset by peer`, schema.KindRetryExhausted},
		{`request failed after 3 retries`, schema.KindRetryExhausted},
		// Connection pools.
		{`HikariPool-1 - Connection is not available, request timed out after 30000ms.`, schema.KindDBPoolExhaustion},
		{`KnexTimeoutError: Knex: Timeout acquiring a connection. The pool is probably full.`, schema.KindDBPoolExhaustion},
		{`org.apache.commons.dbcp.SQLNestedException: Cannot get a connection, pool error Timeout waiting for idle object`, schema.KindDBPoolExhaustion},
		{`sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached, connection timed out, timeout 30`, schema.KindDBPoolExhaustion},
		{`FATAL: sorry, too many clients already`, schema.KindDBPoolExhaustion},
		{`FATAL: remaining connection slots are reserved for non-replication superuser connections`, schema.KindDBPoolExhaustion},
		{`failed to acquire connection from pgxpool: context deadline exceeded`, schema.KindDBPoolExhaustion},
		// Memory.
		{`java.lang.OutOfMemoryError: Java heap space`, schema.KindOOM},
		{`java.lang.OutOfMemoryError: GC overhead limit exceeded`, schema.KindOOM},
		{`fatal error: runtime: out of memory`, schema.KindOOM},
		{`FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory`, schema.KindOOM},
		{`MemoryError`, schema.KindOOM},
		{`Container killed: OOMKilled (exit code 137)`, schema.KindOOM},
		// Deploy regressions.
		{`java.lang.NoSuchMethodError: 'void com.acme.Client.send(java.lang.String)'`, schema.KindBadDeploy},
		{`ModuleNotFoundError: No module named 'requests'`, schema.KindBadDeploy},
		{`Error: Cannot find module 'express'`, schema.KindBadDeploy},
		{`ERROR: column "discount_code" does not exist`, schema.KindBadDeploy},
		// Deterministic bugs and bad input.
		{`java.lang.NullPointerException: Cannot invoke "String.length()" because "s" is null`, schema.KindDeterministic},
		{`panic: runtime error: invalid memory address or nil pointer dereference`, schema.KindDeterministic},
		{`TypeError: Cannot read properties of undefined (reading 'id')`, schema.KindDeterministic},
		{`KeyError: 'customer_id'`, schema.KindDeterministic},
		{`json: cannot unmarshal string into Go struct field Order.total of type float64`, schema.KindDeterministic},
		{`pq: duplicate key value violates unique constraint "orders_pkey"`, schema.KindDeterministic},
		{`POST /users returned 400 Bad Request`, schema.KindDeterministic},
		{`No draft template for label 'refund_request' (run 43579); rejecting with 422`, schema.KindDeterministic},
		{`refund failed: psp-api responded 422: charge_already_refunded`, schema.KindDeterministic},
		// Auth and missing things.
		{`401 Unauthorized: invalid token`, schema.KindAuth},
		{`io.jsonwebtoken.ExpiredJwtException: JWT expired at 2024-01-01T00:00:00Z`, schema.KindAuth},
		{`rpc error: code = PermissionDenied desc = permission denied`, schema.KindAuth},
		{`GET /api/items/9 returned 404`, schema.KindNotFound},
		{`user 42 not found`, schema.KindNotFound},
		// Dead letters.
		{`message 7f3a moved to DLQ after maxReceiveCount 5`, schema.KindPoisonMessage},
		{`Rejecting poison message orders-v2/offset 1773: deserialization failed`, schema.KindPoisonMessage},
		{`retries exhausted for message 8812: moved to orders-dlq after 5 attempts`, schema.KindPoisonMessage},
		{`sent record to the DLT after 5 failed delivery attempts`, schema.KindPoisonMessage},
		// Transient.
		{`read tcp 10.0.0.3:5432: read: connection reset by peer`, schema.KindTransient},
		{`D1 lookup failed: Error: Network connection lost.`, schema.KindTransient},
		{`502 Bad Gateway`, schema.KindTransient},
		{`upstream responded with status 503`, schema.KindTransient},
		{`write: broken pipe`, schema.KindTransient},
		// Nothing recognisable.
		{`[getAllFood][Get the Get Food Request Failed!]`, schema.KindUnknown},
		{`something went wrong`, schema.KindUnknown},
	}
	for _, c := range cases {
		if got := Classify(errorLog(c.msg)); got != c.want {
			t.Errorf("Classify(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
}

// TestClassifySignals: lines below ERROR get a kind only when they signal
// a failure.
func TestClassifySignals(t *testing.T) {
	cases := []struct {
		rec  *schema.Record
		want schema.Kind
	}{
		{warnLog(`[GC (Allocation Failure) [PSYoungGen: 1398144K->1398144K(1398272K)], 1.8522941 secs]`), schema.KindResourceGC},
		{warnLog(`[gc][young][1288][47] duration [2.1s], collections [1]/[2.3s], total [2.1s]/[11.2s]`), schema.KindResourceGC},
		{warnLog(`GC pause (G1 Evacuation Pause) (young) 1250M->1180M(1300M), 0.9123 secs`), schema.KindResourceGC},
		{warnLog(`event loop blocked for 1447ms (possible GC pressure)`), schema.KindResourceGC},
		{warnLog(`circuit breaker "ads" state changed from closed to open`), schema.KindCircuitOpen},
		{warnLog(`heap used 1.81 GB of 2.00 GB`), schema.KindResourceGC},
		{warnLog(`HikariPool-1 - Thread starvation or clock leap detected (housekeeper delta=1m2s).`), schema.KindDBPoolExhaustion},
		{warnLog(`seat hold failed, retrying (attempt 2/3)`), schema.KindTransient},
		{warnLog(`slow query: SELECT * FROM orders took 4200ms`), schema.KindLatency},
		{warnLog(`Order not found`), ""},
		{warnLog(`[verifyCode][Verify code start]`), ""},
		{&schema.Record{Type: schema.TypeLog, Severity: schema.SeverityInfo, Body: "connection refused"}, ""},
		{&schema.Record{Type: schema.TypeSpan, Name: "GET /x", Attrs: map[string]string{schema.AttrHTTPStatus: "503"}}, schema.KindTransient},
		{&schema.Record{Type: schema.TypeSpan, Name: "GET /x", Attrs: map[string]string{schema.AttrHTTPStatus: "404"}}, ""},
		{&schema.Record{Type: schema.TypeSpan, Name: "GET /x", Status: schema.StatusError, Attrs: map[string]string{schema.AttrHTTPStatus: "504"}}, schema.KindDependencyTimeout},
		{&schema.Record{Type: schema.TypeSpan, Name: "charge", Status: schema.StatusError, Attrs: map[string]string{schema.AttrRPCGRPCStatus: "14"}}, schema.KindTransient},
		{&schema.Record{Type: schema.TypeSpan, Name: "charge", Status: schema.StatusError, Attrs: map[string]string{schema.AttrExceptionType: "java.net.SocketTimeoutException"}}, schema.KindDependencyTimeout},
		{&schema.Record{Type: schema.TypeSpan, Name: "charge", Status: schema.StatusError}, schema.KindUnknown},
	}
	for _, c := range cases {
		if got := Classify(c.rec); got != c.want {
			t.Errorf("Classify(%+v) = %q, want %q", *c.rec, got, c.want)
		}
	}
}

// TestClassifyLongStackTrace finds the root cause at the end of a long
// Java stack trace.
func TestClassifyLongStackTrace(t *testing.T) {
	msg := "Request processing failed\n"
	for range 100 {
		msg += "\tat org.springframework.web.servlet.FrameworkServlet.processRequest(FrameworkServlet.java:1014)\n"
	}
	msg += "Caused by: java.net.SocketTimeoutException: Read timed out"
	if got := Classify(errorLog(msg)); got != schema.KindDependencyTimeout {
		t.Errorf("Classify(long trace) = %q, want dependency-timeout", got)
	}
}

func TestHintFromText(t *testing.T) {
	cases := []struct{ msg, want string }{
		{`I/O error on GET request for "http://inventory:8080/stock/77": Read timed out`, "inventory"},
		{`timeout calling payment-service after 3000ms`, "payment-service"},
		{`CircuitBreaker 'paymentService' is OPEN and does not permit further calls`, "paymentservice"},
		{`No instances available for ts-basic-service`, "ts-basic-service"},
		{`upstream request to https://user:pw@api.bank.example/v1/charge failed`, "api.bank.example"},
		{`circuit breaker is open`, ""},
		{`dial tcp 10.0.0.7:5432: connect: connection refused`, "10.0.0.7"},
		{`Error: connect ECONNREFUSED 127.0.0.1:6379`, "127.0.0.1"},
		{`something failed`, ""},
		// The callee's name beats a breaker's label, often short for it.
		{`Error calling fraud-svc: CircuitBreaker 'fraud' is OPEN and does not permit further calls`, "fraud-svc"},
		// An address beside a URL: the URL's host names the service.
		{`Get "http://session:8080/api/v1/session": dial tcp 10.3.219.194:8080: connect: connection refused`, "session"},
		{`upstream call failed: circuit breaker is open`, ""},
		{`Retry 'order' recorded a failed retry attempt. Number of retry attempts: '1'.`, "order"},
		{`upstream call failed: unexpected status 500 Internal Server Error from billing`, "billing"},
		{`circuit "ledger" opened`, "ledger"},
		{`circuit 'ledger' changed state to OPEN`, "ledger"},
		{`Error handling request: bulkhead identityProvider full: max concurrent calls (4) reached`, "identityprovider"},
		{`bulkhead full: max concurrent calls (4) reached`, ""},
		{`Bulkhead 'inventory' is full and does not permit further calls`, "inventory"},
		// urllib3's pool names its host, without a scheme.
		{`Retrying app.clients.keys.call in 0.50 seconds as it raised HTTPConnectionPool(host='api.drm-keys.example.com', port=8080): Read timed out.`, "api.drm-keys.example.com"},
		{`HTTPSConnectionPool(host="ledger", port=443): Max retries exceeded with url: /v1/entries`, "ledger"},
		// A breaker kept for a composite key ("provider:region") names no
		// dependency; a port after the name is no key.
		{`Request processing failed: CircuitBreaker 'gcp:europe-west4' is OPEN and does not permit further calls`, ""},
		{`circuit breaker "aws:us-east-1" state changed from closed to open`, ""},
		{`CircuitBreaker 'ledger:8443' is OPEN and does not permit further calls`, "ledger"},
		// A query names the store it went to, as a call names its callee;
		// what is queried (a table) is not one.
		{`ERR_STORE: query to orders-db timed out after 800ms`, "orders-db"},
		{`error querying invoices: deadline exceeded`, ""},
	}
	for _, c := range cases {
		if got := hintFromText(lowerOf(errorLog(c.msg))); got != c.want {
			t.Errorf("hintFromText(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
}

// A label written in camelCase names the service in the dashed form DNS
// names take: the hint is read from lowercased text, so this needs the
// record's own text.
func TestHintUndoesCamelCase(t *testing.T) {
	for msg, want := range map[string]string{
		`java.util.concurrent.TimeoutException: TimeLimiter 'fxRatesApi' recorded a timeout exception.`: "fx-rates-api",
		`CircuitBreaker 'paymentService' is OPEN and does not permit further calls`:                     "payment-service",
		`Retry 'order' recorded a failed retry attempt.`:                                                "order",
		`timeout calling Payment-Service after 3000ms`:                                                  "payment-service",
		// A client class names its callee.
		`Fallback for WorkloadsD1Client triggered, returning cached state: D1 lookup failed: Network connection lost.`: "workloads-d1",
		// A label that says more than its URL's host keeps; one short for
		// it gives way to the host.
		`failed to call geo-vendor-api: Post "https://api.geo-vendor.example.com/v1/tiles": context deadline exceeded`: "geo-vendor-api",
		`circuit "identityProvider" opened: Get "https://api.identity-provider.example.com/v1/keys": EOF`:              "api.identity-provider.example.com",
	} {
		if _, got := classifyWithHint(errorLog(msg), true); got != want {
			t.Errorf("hint of %q = %q, want %q", msg, got, want)
		}
	}
}

func TestResolveHint(t *testing.T) {
	// A client span's error message gives the address behind its peer.
	tr := &Trace{recs: []schema.Record{{Type: schema.TypeSpan, Service: "frontend", Status: schema.StatusError,
		Body: "connect ECONNREFUSED 10.1.63.206:8080", Attrs: map[string]string{schema.AttrPeerService: "promotion-service"}},
		// Without a span, a line naming the callee beside its address.
		{Type: schema.TypeLog, Service: "storefront", Severity: schema.SeverityWarn,
			Body: `retrying request to shipping-svc attempt=2/2 error="connection error: desc = \"transport: Error while dialing: dial tcp 10.3.225.155:50051: connect: connection refused\""`},
		{Type: schema.TypeLog, Service: "storefront", Severity: schema.SeverityInfo, Body: "dns: 10.3.225.7 is cache-svc"},
	}}
	for _, s := range []string{"frontend", "payment-service", "inventory", "promotion-service"} {
		tr.service(s)
	}
	cases := []struct{ hint, want string }{
		{"payment-service", "payment-service"},
		{"paymentservice", "payment-service"},
		{"payment-service.prod.svc.cluster.local", "payment-service"},
		{"inventory-7d9f8c-x2x1", "inventory"},
		// An external dependency is named by its registered domain, so
		// that every host of one provider is one suspect.
		{"api.stripe.com", "stripe"},
		{"files.stripe.com", "stripe"},
		{"api.email-provider.example.com", "email-provider"},
		{"flags.internal", "flags"},
		{"ledger.default.svc.cluster.local", "ledger"},
		{"10.0.0.1", "10.0.0.1"},
		{"10.1.63.206", "promotion-service"},
		{"10.3.225.155", "shipping-svc"},
		{"10.3.225.7", "10.3.225.7"}, // an info line does not name the callee of a failure
	}
	for _, c := range cases {
		if got := resolveHint(tr, c.hint); got != c.want {
			t.Errorf("resolveHint(%q) = %q, want %q", c.hint, got, c.want)
		}
	}
}

// TestResolveHintKeepsALongerName: a name that begins with a service's
// name and adds a name of its own is another service.
func TestResolveHintKeepsALongerName(t *testing.T) {
	tr := &Trace{}
	tr.service("payment")
	for hint, want := range map[string]string{
		"payment-provider-api": "payment-provider-api",
		"payment-svc":          "payment",
		"payment-6b77f24b37":   "payment",
	} {
		if got := resolveHint(tr, hint); got != want {
			t.Errorf("resolveHint(%q) = %q, want %q", hint, got, want)
		}
	}
}

func FuzzClassify(f *testing.F) {
	f.Add("HikariPool-1 - Connection is not available", "503", "after 3 attempts")
	f.Add("status 5", "abc", "exceeded 12")
	f.Fuzz(func(t *testing.T, body, status, exc string) {
		r := &schema.Record{Severity: schema.SeverityError, Body: body,
			Attrs: map[string]string{schema.AttrHTTPStatus: status, schema.AttrExceptionType: exc}}
		k := Classify(r)
		if !k.Valid() {
			t.Fatalf("Classify gave %q, not a kind", k)
		}
		_ = hintFromText(lowerOf(r))
	})
}

func lowerOf(r *schema.Record) *lowered {
	var buf [textCap]byte
	l := &lowered{}
	l.init(buf[:], r)
	return l
}

func TestClassifyTargetOfAWarning(t *testing.T) {
	k, target := ClassifyTarget(warnLog(`request to ads-svc served from the local cache`))
	if k != "" || target != "ads-svc" {
		t.Errorf("ClassifyTarget = %q, %q; want no kind and ads-svc", k, target)
	}
	k, target = ClassifyTarget(warnLog(`circuit breaker "ads" state changed from half_open to open`))
	if k != schema.KindCircuitOpen || target != "ads" {
		t.Errorf("ClassifyTarget = %q, %q; want circuit-open and ads", k, target)
	}
}

// TestHintFromAttrs checks that a callee an attribute names explicitly is
// preferred to the host of a URL, and that a span's own attributes other
// than the semantic conventions' name no callee (its span tree does).
func TestHintFromAttrs(t *testing.T) {
	for _, c := range []struct {
		attrs map[string]string
		span  bool
		want  string
	}{
		{map[string]string{"remote.service": "card-gateway", "url.full": "https://api.cardgateway.io/v1/charge"}, false, "card-gateway"},
		{map[string]string{"peer": "fx-rates-api", "http.url": "https://fxrates.example.com/latest"}, false, "fx-rates-api"},
		{map[string]string{"messaging.destination.name": "orders"}, false, "orders"},
		{map[string]string{"url.full": "https://api.cardgateway.io/v1/charge"}, false, "api.cardgateway.io"},
		{map[string]string{"rpc.service": "hipstershop.PaymentService"}, true, ""},
		{map[string]string{"peer.service": "payments"}, true, "payments"},
		{map[string]string{"peer": "fx-rates-api:443"}, false, "fx-rates-api"},
		{map[string]string{"server.address": "10.0.3.7:8080", "remote.service": "ledger"}, false, "ledger"},
	} {
		r := errorLog("charge failed")
		r.Attrs = c.attrs
		if c.span {
			r.Type = schema.TypeSpan
		}
		if got := hintFromAttrs(r); got != c.want {
			t.Errorf("hintFromAttrs(%v, span %v) = %q, want %q", c.attrs, c.span, got, c.want)
		}
	}
	// The same keys written key=value in a plain line's text, after its
	// attributes and before a URL's host; "peer=" is not read in
	// "remote.peer=".
	for _, c := range []struct{ body, want string }{
		{"quote failed: GET https://rates.fxhub.example.com/latest: 503 peer=fx-rates-api:443", "fx-rates-api"},
		{`charge failed status=503 remote.service="card-gateway"`, "card-gateway"},
		{"charge failed remote.peer=10.0.0.1", ""},
	} {
		r := errorLog(c.body)
		r.Attrs = nil
		if got := hintFromAttrs(r); got != c.want {
			t.Errorf("hintFromAttrs(%q) = %q, want %q", c.body, got, c.want)
		}
	}
}

// A host a failure line's URL gives ("geo-vendor" of
// api.geo-vendor.example.com) takes the fuller name the same service's
// lines give the dependency (its breaker "geoVendorApi"): the suspect is
// named as its callers know it.
func TestHostInTextTakesTheCallersName(t *testing.T) {
	res := AnalyzeRecords(inTrace(fmt.Sprintf("%032x", 0x9e0),
		logAt("", "fonts", 1_000, schema.SeverityWarn, `circuit "geoVendorApi" opened`),
		logAt("", "fonts", 1_010, schema.SeverityError,
			"retry 2/2 for POST https://api.geo-vendor.example.com/v1/fonts failed: ETIMEDOUT"),
	), Options{})
	if res.Suspect == nil || res.Suspect.Service != "geo-vendor-api" {
		t.Fatalf("suspect = %+v, want geo-vendor-api", res.Suspect)
	}
}

// A consumer's error about a message names its queue (an attribute), but
// it made no call the queue left unanswered: the failure is its own, not
// the queue's (silent_callee_unknown needs an unanswered call).
func TestConsumerErrorIsNoUnansweredCall(t *testing.T) {
	consume := span("c1", "", "search", "s-0", 0, 40)
	consume.Status = schema.StatusError
	line := logAt("c1", "search", 30, schema.SeverityError,
		"Failed to process message 6f47 (attempt 1): SyntaxError: Unexpected token < in JSON at position 0")
	line.Attrs = map[string]string{"messaging.destination.name": "cart-events"}
	res := AnalyzeRecords(inTrace(fmt.Sprintf("%032x", 0x9e1), consume, line), Options{})
	if res.Suspect == nil || res.Suspect.Service != "search" {
		t.Fatalf("suspect = %+v, want search", res.Suspect)
	}
}
