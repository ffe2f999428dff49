package sim

import (
	"fmt"
	"strings"
	"time"
)

// logger is the logger name or code location a service writes for a component.
func logger(n *node, comp string) string {
	pkg := strings.ReplaceAll(baseName(n), "-", "")
	b := pascal(baseName(n))
	switch n.stack {
	case stackJava:
		return javaLogger(pkg, b, comp)
	case stackGo:
		return fmt.Sprintf("%s/%s.go:%d", goPkg(comp), comp, 40+(n.flavor+len(comp)*13)%300)
	case stackPython:
		if comp == "startup" {
			return "gunicorn.error"
		}
		return "app." + comp
	}
	return comp
}

func goPkg(comp string) string {
	switch comp {
	case "web", "access", "ratelimit":
		return "internal/httpserver"
	case "client", "breaker":
		return "internal/clients"
	case "startup":
		return "cmd/server"
	}
	return "internal/" + comp
}

func javaLogger(pkg, b, comp string) string {
	switch comp {
	case "web":
		return "com.acme." + pkg + ".web." + b + "Controller"
	case "client":
		return "com.acme." + pkg + ".client." + b + "Gateway"
	case "breaker":
		return "io.github.resilience4j.circuitbreaker.internal.CircuitBreakerStateMachine"
	case "pool":
		return "com.zaxxer.hikari.pool.HikariPool"
	case "startup":
		return "com.acme." + pkg + "." + b + "Application"
	case "access":
		return "com.acme." + pkg + ".web.AccessLogFilter"
	case "gc":
		return "com.acme.common.monitor.JvmPauseMonitor"
	}
	return "com.acme." + pkg + "." + comp + "." + b + pascal(comp)
}

// handlerErrorMsg is what a handler logs when a call failed, and the exception type.
func handlerErrorMsg(n *node, e *edge, out outcome) (string, string) {
	if out.fail == failPool {
		return fmt.Sprintf(poolMsg(n), n.poolName, ms(n.poolTimeout)), poolException(n)
	}
	err := out.err
	if out.attempts > 1 && retryable(out) {
		err = exhaustedMsg(n, e, out.attempts, err)
	}
	switch n.stack {
	case stackJava:
		return pickBy(n, 5, []string{
			"Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed: " + err + "] with root cause",
			"Error calling " + e.to.name + ": " + err,
		}), javaException(out)
	case stackGo:
		return pickBy(n, 5, []string{"upstream call failed: ", "failed to call " + e.to.name + ": ", "request to " + e.to.name + " failed: "}) + err, ""
	case stackPython:
		return "Error calling " + e.to.name + ": " + err, ""
	}
	return "Error handling request: " + err, ""
}

func exhaustedMsg(n *node, e *edge, attempts int, err string) string {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("Retry '%s' recorded a failed retry attempt. Number of retry attempts: '%d'. Giving up. Last exception was: %s", camel(baseName(e.to)), attempts, err)
	case stackPython:
		return fmt.Sprintf("RetryError: gave up after %d attempts: %s", attempts, err)
	}
	return fmt.Sprintf("giving up after %d attempts: %s", attempts, err)
}

func javaException(out outcome) string {
	switch out.fail {
	case failTimeout:
		return "java.net.SocketTimeoutException"
	case failRefused:
		return "java.net.ConnectException"
	case failReset:
		return "java.net.SocketException"
	case failBreaker:
		return "io.github.resilience4j.circuitbreaker.CallNotPermittedException"
	case failBulkhead:
		return "io.github.resilience4j.bulkhead.BulkheadFullException"
	}
	return "org.springframework.web.client.HttpServerErrorException"
}

func poolMsg(n *node) string {
	switch n.stack {
	case stackJava:
		return pickBy(n, 6, []string{
			"%s - Connection is not available, request timed out after %dms.",
			"Could not open JPA EntityManager for transaction; nested exception is org.hibernate.exception.JDBCConnectionException: Unable to acquire JDBC Connection; %s - Connection is not available, request timed out after %dms.",
		})
	case stackGo:
		return pickBy(n, 6, []string{
			"query failed: failed to acquire connection from pool %s: context deadline exceeded (waited %dms)",
			"timeout waiting for connection from pool %s after %dms",
			"pg: connection pool timeout (pool=%s, timeout=%dms)",
		})
	case stackPython:
		return "(sqlalchemy.exc.TimeoutError) QueuePool limit of size 10 overflow 5 reached, connection timed out, timeout %[2]d ms (pool %[1]s) (Background on this error at: https://sqlalche.me/e/20/3o7r)"
	}
	return "KnexTimeoutError: Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call? (pool %s, %dms)"
}

func poolException(n *node) string {
	switch n.stack {
	case stackJava:
		return "java.sql.SQLTransientConnectionException"
	case stackPython:
		return "sqlalchemy.exc.TimeoutError"
	case stackNode:
		return "KnexTimeoutError"
	}
	return ""
}

func retryMsg(n *node, e *edge, attempt int, wait time.Duration, out outcome) string {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("Retry '%s' recorded a failed retry attempt. Number of retry attempts: '%d'. Waiting %s until the next attempt. Last exception was: %s",
			camel(baseName(e.to)), attempt, isoDuration(wait), out.err)
	case stackPython:
		return fmt.Sprintf("Retrying app.clients.%s.call in %.2f seconds as it raised %s.", camel(baseName(e.to)), wait.Seconds(), out.err)
	case stackNode:
		return fmt.Sprintf("retry %d/%d for %s %s in %dms: %s", attempt, e.attempts, method(e), url(e), ms(wait), out.err)
	}
	return fmt.Sprintf("retrying request to %s attempt=%d/%d backoff=%s error=%q", e.to.name, attempt+1, e.attempts, wait, out.err)
}

func isoDuration(d time.Duration) string {
	return fmt.Sprintf("PT%gS", d.Round(time.Millisecond).Seconds())
}

func fallbackMsg(n *node, e *edge, out outcome) string {
	what := e.fallback
	if e.to.role == roleCache {
		return fmt.Sprintf("cache %s unavailable, reading from database: %s", e.to.name, out.err)
	}
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("Fallback for %s triggered, returning %s: %s", e.client, what, out.err)
	case stackGo:
		return fmt.Sprintf("using fallback for %s (%s): %s", e.to.name, what, out.err)
	}
	return fmt.Sprintf("%s failed, serving %s: %s", e.to.name, what, out.err)
}

func secondFallbackMsg(n *node, e *edge) string {
	if n.stack == stackJava {
		return fmt.Sprintf("No cached response for %s, returning default value", e.client)
	}
	return fmt.Sprintf("fallback cache miss for %s, serving default value", e.to.name)
}

func compensationMsg(n *node, id int) string {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("Saga %d step failed, executing compensation: cancel %s (status=COMPENSATING)", id, baseName(n))
	case stackGo:
		return fmt.Sprintf("saga step failed, compensating saga_id=%d action=cancel_%s", id, baseName(n))
	}
	return fmt.Sprintf("compensating saga %d: cancelling %s", id, baseName(n))
}

func breakerOpenMsg(n *node, e *edge) string {
	name := e.breaker.name
	if e.breaker.keyed {
		return keyedBreakerOpenMsg(n, e)
	}
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("CircuitBreaker '%s' is OPEN and does not permit further calls", name)
	case stackGo:
		return pickBy(n, 7, []string{"circuit breaker is open", "hystrix: circuit open", "breaker " + name + ": circuit breaker is open"})
	case stackPython:
		return "CircuitBreakerError: Failures threshold reached, circuit breaker is open"
	}
	return "Breaker is open"
}

func bulkheadFullMsg(n *node, e *edge) string {
	if n.stack == stackJava {
		return fmt.Sprintf("Bulkhead '%s' is full and does not permit further calls", e.bulkhead.name)
	}
	return fmt.Sprintf("bulkhead %s full: max concurrent calls (%d) reached", e.bulkhead.name, e.bulkhead.size)
}

func breakerTransitionMsg(n *node, e *edge, tr *transition) string {
	name := e.breaker.name
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("CircuitBreaker '%s' changed state from %s to %s", name, tr.from, tr.to)
	case stackGo:
		return fmt.Sprintf("circuit breaker %q state changed from %s to %s", name, strings.ToLower(tr.from.String()), strings.ToLower(tr.to.String()))
	case stackPython:
		return fmt.Sprintf("circuit breaker %s state change: %s -> %s", name, strings.ToLower(tr.from.String()), strings.ToLower(tr.to.String()))
	}
	return fmt.Sprintf("circuit %q %s", name, map[breakerState]string{open: "opened", halfOpen: "halfOpen", closed: "closed"}[tr.to])
}
