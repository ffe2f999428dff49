package sim

import (
	"fmt"
	"time"
)

// The wording of what a service logs while serving: access lines, chatter,
// and the errors that start at the service itself.

func accessMsg(n *node, o *op, out outcome, d time.Duration, id int) string {
	if o.method == "" {
		return fmt.Sprintf("finished call grpc.method=%s grpc.code=%s grpc.time_ms=%.3f", o.route, grpcCode(out.status), float64(d.Microseconds())/1000)
	}
	switch n.stack {
	case stackGo:
		return fmt.Sprintf("%s %s %d %s", o.method, fillRoute(o.route, id), out.status, d.Round(10*time.Microsecond))
	case stackJava:
		return fmt.Sprintf("%s %s -> %d (%d ms)", o.method, fillRoute(o.route, id), out.status, ms(d))
	case stackPython:
		return fmt.Sprintf(`10.0.%d.%d - - "%s %s HTTP/1.1" %d %d`, n.flavor%200, n.flavor%250, o.method, fillRoute(o.route, id), out.status, 120+n.flavor%900)
	}
	return fmt.Sprintf("request completed %s %s %d %dms", o.method, fillRoute(o.route, id), out.status, ms(d))
}

// grpcStatusNumber is the gRPC status code number for an HTTP-like status.
func grpcStatusNumber(status int) string {
	switch grpcCode(status) {
	case "ResourceExhausted":
		return "8"
	case "DeadlineExceeded":
		return "4"
	case "Unavailable":
		return "14"
	case "Internal":
		return "13"
	case "InvalidArgument":
		return "3"
	}
	return "0"
}

func grpcCode(status int) string {
	switch {
	case status == 429:
		return "ResourceExhausted"
	case status == 400:
		return "InvalidArgument"
	case status == 504:
		return "DeadlineExceeded"
	case status == 503 || status == 502:
		return "Unavailable"
	case status >= 500:
		return "Internal"
	}
	return "OK"
}

func arrivalMsg(n *node, o *op) string {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("[%s][Received request %s]", camel(pascal(o.route)), o.spanName())
	case stackGo:
		return "handling request " + o.spanName()
	}
	return "incoming request " + o.spanName()
}

func businessMsg(n *node, r rng) string {
	id := r.between(1000, 99999)
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("loaded %s %d with %d items", baseName(n), id, r.between(1, 9))
	case 1:
		return fmt.Sprintf("cache %s for key %s:%d", pick(r, []string{"hit", "miss", "hit"}), baseName(n), id)
	case 2:
		return fmt.Sprintf("%s %d updated in %dms", baseName(n), id, r.between(1, 40))
	case 3:
		return fmt.Sprintf("fetched %d records for customer %d", r.between(0, 50), id)
	case 4:
		return fmt.Sprintf("validated request for account %d", id)
	}
	return fmt.Sprintf("computed total=%d.%02d EUR for order %d", r.between(5, 900), r.IntN(100), id)
}

func slowRequestMsg(n *node, o *op, d time.Duration) string {
	if n.stack == stackJava {
		return fmt.Sprintf("Slow request detected: %s took %d ms", o.spanName(), ms(d))
	}
	return fmt.Sprintf("slow request: %s took %s", o.spanName(), d.Round(time.Millisecond))
}

// nilPointerMsg is the deterministic error of a bad deploy: message, exception type, stack.
func nilPointerMsg(n *node, o *op) (string, string, string) {
	b := pascal(baseName(n))
	pkg := toLower(b)
	switch n.stack {
	case stackJava:
		exc := "java.lang.NullPointerException"
		msg := fmt.Sprintf(`Cannot invoke "com.acme.%s.model.Address.getCountryCode()" because the return value of "com.acme.%s.model.Customer.getShippingAddress()" is null`, pkg, pkg)
		stack := fmt.Sprintf("%s: %s\n\tat com.acme.%s.service.%sService.resolveRegion(%sService.java:214)\n\tat com.acme.%s.web.%sController.handle(%sController.java:88)",
			exc, msg, pkg, b, b, pkg, b, b)
		return "Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed: " + exc + ": " + msg + "] with root cause", exc, stack
	case stackGo:
		stack := fmt.Sprintf("goroutine %d [running]:\nruntime/debug.Stack()\n\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\ngithub.com/acme/%s/internal/service.(*%sService).Resolve(...)\n\t/app/internal/service/resolve.go:131 +0x1d",
			200+n.flavor%5000, pkg, b)
		return pickBy(n, 8, []string{"panic recovered: runtime error: invalid memory address or nil pointer dereference",
			"http: panic serving 10.0.3.14:51234: runtime error: invalid memory address or nil pointer dereference"}), "runtime.Error", stack
	case stackPython:
		stack := fmt.Sprintf("Traceback (most recent call last):\n  File \"/app/app/views.py\", line 88, in handle\n    region = customer[\"address\"][\"country\"]\nTypeError: 'NoneType' object is not subscriptable")
		return "Exception on " + fillRoute(o.route, 1000+n.flavor%9000) + " [" + o.method + "]", "TypeError", stack
	}
	return "TypeError: Cannot read properties of undefined (reading 'countryCode')", "TypeError",
		"TypeError: Cannot read properties of undefined (reading 'countryCode')\n    at resolveRegion (/app/dist/services/region.js:42:31)\n    at async handler (/app/dist/routes/index.js:88:17)"
}

func rateLimitMsg(n *node, retryAfter time.Duration) string {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("RateLimiter 'api' does not permit further calls, responding 429 with Retry-After: %d", int(retryAfter.Seconds()))
	case stackPython:
		return fmt.Sprintf("ratelimit 100 per 1 second (10.0.%d.%d) exceeded at endpoint: api", n.flavor%200, n.flavor%250)
	case stackNode:
		return fmt.Sprintf("Too many requests, retry after %ds", int(retryAfter.Seconds()))
	}
	return fmt.Sprintf("rate limit exceeded limit=200/s burst=50, responding 429 retry_after=%s", retryAfter)
}

// poisonMsg is a consumer's error on a message it cannot process, and the exception type.
func poisonMsg(n *node, q *node, id string, k int) (string, string) {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("Error processing message %s from %s (receive count %d): com.fasterxml.jackson.databind.exc.InvalidFormatException: Cannot deserialize value of type `java.time.Instant` from String \"2026-13-41T25:61:00\": Failed to deserialize java.time.Instant", id, q.name, k),
			"com.fasterxml.jackson.databind.exc.InvalidFormatException"
	case stackGo:
		return fmt.Sprintf("failed to handle message id=%s queue=%s receive_count=%d: json: cannot unmarshal string into Go struct field Event.amount of type int64", id, q.name, k), ""
	case stackPython:
		return fmt.Sprintf("Failed to process message %s from %s (attempt %d): KeyError: 'customer_id'", id, q.name, k), "KeyError"
	}
	return fmt.Sprintf("Failed to process message %s (attempt %d): SyntaxError: Unexpected token < in JSON at position 0", id, k), "SyntaxError"
}

func dlqMsg(n *node, q *node, id string, k int) string {
	if n.stack == stackGo {
		return fmt.Sprintf("moved message id=%s to DLQ queue=%s-dlq receive_count=%d", id, q.name, k)
	}
	return fmt.Sprintf("Message %s exceeded maxReceiveCount (%d), moving to dead-letter queue %s-dlq", id, k, q.name)
}

func noiseMsg(n *node, r rng) string {
	msgs := []string{
		"failed to flush metrics to statsd: write udp 127.0.0.1:8125: connection refused",
		"feature flag refresh failed: GET https://flags.internal/api/client/features: 401 Unauthorized",
		"Deprecated API version v1 used by client mobile-app/3.2.1",
		"Could not resolve locale 'xx-YY', falling back to en-US",
		"failed to send audit event: audit-sink returned 413 Payload Too Large",
		"token validation failed: jwt expired",
	}
	if n.noiseLines != nil {
		msgs = n.noiseLines
	}
	i := pickBy(n, 9, []int{0, 1, 2, 3, 4, 5})
	return msgs[(i+r.IntN(2))%len(msgs)]
}

func rareWarnMsg(n *node, r rng) string {
	return pick(r, []string{
		fmt.Sprintf("request validation failed: field 'email' must be a well-formed email address (customer %d)", r.between(1000, 99999)),
		"client closed connection before response was written",
		fmt.Sprintf("slow query detected: %dms", r.between(300, 900)),
	})
}
