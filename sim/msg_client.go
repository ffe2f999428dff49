package sim

import (
	"fmt"
	"strconv"
	"time"
)

// The wording of what clients and handlers log when a call fails, per
// stack; pickBy keeps one service's wording stable, as its libraries are.

func itoa(i int) string { return strconv.Itoa(i) }

func ms(d time.Duration) int64 { return d.Milliseconds() }

// url is the address a caller uses for its callee.
func url(e *edge) string {
	switch e.to.role {
	case roleExternal:
		if e.to.address != "" {
			return "https://" + e.to.address + e.to.path
		}
		return "https://" + externalHost(e.to.name) + "/v1/" + baseName(e.from)
	case roleService:
		if e.toOp != nil && e.toOp.method != "" {
			return fmt.Sprintf("http://%s:8080%s", e.to.name, fillRoute(e.toOp.route, 4821+len(e.from.name)*97))
		}
	}
	return e.to.name + ":9090"
}

func fillRoute(r string, id int) string {
	out := []byte{}
	for i := 0; i < len(r); i++ {
		if r[i] == '{' {
			for i < len(r) && r[i] != '}' {
				i++
			}
			out = strconv.AppendInt(out, int64(id), 10)
			continue
		}
		out = append(out, r[i])
	}
	return string(out)
}

func method(e *edge) string {
	if e.toOp != nil && e.toOp.method != "" {
		return e.toOp.method
	}
	if e.to.role == roleExternal {
		return "POST"
	}
	return "GET"
}

func isGRPC(e *edge) bool {
	return e.to.role == roleService && e.toOp != nil && e.toOp.method == ""
}

// clientErrorMsg is the error a caller's client returns for a failed attempt.
func clientErrorMsg(n *node, e *edge, out outcome) string {
	switch e.to.role {
	case roleDatabase:
		return dbTimeoutMsg(n, e)
	case roleQueue:
		return fmt.Sprintf("kafka: failed to produce to %s: request timed out after %dms", e.to.name, ms(e.timeout))
	}
	if isGRPC(e) {
		return grpcErrorMsg(n, e, out)
	}
	switch out.fail {
	case failTimeout:
		return timeoutMsg(n, e)
	case failRefused:
		return refusedMsg(n, e)
	case failReset:
		return resetMsg(n, e)
	}
	return statusErrMsg(n, e, out.status)
}

func grpcErrorMsg(n *node, e *edge, out outcome) string {
	code, desc := "Internal", httpStatusText(out.status)
	switch {
	case out.fail == failTimeout:
		code, desc = "DeadlineExceeded", "context deadline exceeded"
	case out.fail == failRefused:
		code, desc = "Unavailable", fmt.Sprintf(`connection error: desc = "transport: Error while dialing: dial tcp %s: connect: connection refused"`, podAddr(e.to, 9090))
	case out.fail == failReset:
		code, desc = "Unavailable", "error reading from server: EOF"
	case out.status == 429:
		code, desc = "ResourceExhausted", "rate limit exceeded"
	case out.status == 400:
		code, desc = "InvalidArgument", "invalid request"
	}
	upper := grpcUpper(code)
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("io.grpc.StatusRuntimeException: %s: %s", upper, desc)
	case stackPython:
		return fmt.Sprintf(`<_InactiveRpcError of RPC that terminated with: status = StatusCode.%s details = "%s">`, upper, desc)
	case stackNode:
		return fmt.Sprintf("%s %s: %s", grpcStatusNumber(grpcHTTP(code)), upper, desc)
	}
	return fmt.Sprintf("rpc error: code = %s desc = %s", code, desc)
}

// grpcUpper is the upper-case spelling of a gRPC code.
func grpcUpper(code string) string {
	var b []byte
	for i := 0; i < len(code); i++ {
		c := code[i]
		if c >= 'A' && c <= 'Z' && i > 0 {
			b = append(b, '_')
		}
		if c >= 'a' && c <= 'z' {
			c -= 32
		}
		b = append(b, c)
	}
	return string(b)
}

// grpcHTTP maps a gRPC code name back to the HTTP-like status the simulator uses.
func grpcHTTP(code string) int {
	switch code {
	case "DeadlineExceeded":
		return 504
	case "Unavailable":
		return 503
	case "ResourceExhausted":
		return 429
	}
	return 500
}

func podAddr(n *node, port int) string {
	if len(n.pods) == 0 {
		return fmt.Sprintf("%s:%d", n.name, port)
	}
	return fmt.Sprintf("%s:%d", n.pods[0].ip, port)
}

func timeoutMsg(n *node, e *edge) string {
	u, m := url(e), method(e)
	switch n.stack {
	case stackGo:
		return fmt.Sprintf(`%s %q: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, titleMethod(m), u)
	case stackJava:
		return pickBy(n, 1, []string{
			fmt.Sprintf(`I/O error on %s request for "%s": Read timed out; nested exception is java.net.SocketTimeoutException: Read timed out`, m, u),
			fmt.Sprintf("java.util.concurrent.TimeoutException: TimeLimiter '%s' recorded a timeout exception.", camel(baseName(e.to))),
			fmt.Sprintf("feign.RetryableException: Read timed out executing %s %s", m, u),
		})
	case stackPython:
		return fmt.Sprintf("HTTPConnectionPool(host='%s', port=8080): Read timed out. (read timeout=%.1f)", hostOf(e), e.timeout.Seconds())
	}
	return pickBy(n, 1, []string{fmt.Sprintf("timeout of %dms exceeded", ms(e.timeout)), "ETIMEDOUT: request to " + u + " timed out"})
}

func titleMethod(m string) string {
	if m == "" {
		return m
	}
	return m[:1] + toLower(m[1:])
}

func toLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func hostOf(e *edge) string {
	if e.to.role == roleExternal && e.to.address != "" {
		return e.to.address
	}
	if e.to.role == roleExternal {
		return externalHost(e.to.name)
	}
	return e.to.name
}

func refusedMsg(n *node, e *edge) string {
	addr := podAddr(e.to, 8080)
	switch n.stack {
	case stackGo:
		return fmt.Sprintf("%s %q: dial tcp %s: connect: connection refused", titleMethod(method(e)), url(e), addr)
	case stackJava:
		return fmt.Sprintf(`I/O error on %s request for "%s": Connection refused; nested exception is java.net.ConnectException: Connection refused`, method(e), url(e))
	case stackPython:
		return fmt.Sprintf("HTTPConnectionPool(host='%s', port=8080): Max retries exceeded with url: %s (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f3a%04x>: Failed to establish a new connection: [Errno 111] Connection refused'))",
			hostOf(e), pathOf(e), n.flavor)
	}
	return "connect ECONNREFUSED " + addr
}

func pathOf(e *edge) string {
	if e.toOp != nil && e.toOp.method != "" {
		return fillRoute(e.toOp.route, 4821+len(e.from.name)*97)
	}
	return "/"
}

func resetMsg(n *node, e *edge) string {
	switch n.stack {
	case stackGo:
		return pickBy(n, 2, []string{
			fmt.Sprintf("%s %q: read tcp %s->%s: read: connection reset by peer", titleMethod(method(e)), url(e), podAddr(n, 43122), podAddr(e.to, 8080)),
			fmt.Sprintf("%s %q: EOF", titleMethod(method(e)), url(e)),
		})
	case stackJava:
		return fmt.Sprintf(`I/O error on %s request for "%s": Connection reset; nested exception is java.net.SocketException: Connection reset`, method(e), url(e))
	case stackPython:
		return "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))"
	}
	return pickBy(n, 2, []string{"socket hang up", "read ECONNRESET"})
}

func statusErrMsg(n *node, e *edge, status int) string {
	text := httpStatusText(status)
	switch n.stack {
	case stackGo:
		return fmt.Sprintf("unexpected status %d %s from %s", status, text, hostOf(e))
	case stackJava:
		return pickBy(n, 3, []string{
			fmt.Sprintf(`%d %s: "{"timestamp":"…","status":%d,"error":"%s","path":"%s"}"`, status, text, status, text, pathOf(e)),
			fmt.Sprintf("[%d %s] during [%s] to [%s] [%s#call()]", status, text, method(e), url(e), e.client),
		})
	case stackPython:
		kind := "Server"
		if status < 500 {
			kind = "Client"
		}
		return fmt.Sprintf("%d %s Error: %s for url: %s", status, kind, text, url(e))
	}
	return fmt.Sprintf("Request failed with status code %d", status)
}

func dbTimeoutMsg(n *node, e *edge) string {
	if e.to.dbSystem == "sqlite" { // Cloudflare D1, a seed system's
		return pickBy(n, 32, []string{fmt.Sprintf("D1_ERROR: query to %s timed out after %dms", e.to.name, ms(e.timeout)),
			"D1 lookup failed: Error: Network connection lost."})
	}
	switch n.stack {
	case stackGo:
		return "pq: canceling statement due to statement timeout"
	case stackJava:
		return "org.springframework.dao.QueryTimeoutException: PreparedStatementCallback; SQL [select * from orders where id = ?]; ERROR: canceling statement due to statement timeout"
	case stackPython:
		return "(psycopg2.errors.QueryCanceled) canceling statement due to statement timeout"
	}
	return "Query read timeout"
}

// httpStatusText is the reason phrase of an HTTP status.
func httpStatusText(code int) string {
	switch code {
	case 0, 200:
		return "OK"
	case 201:
		return "Created"
	case 204:
		return "No Content"
	case 400:
		return "Bad Request"
	case 403:
		return "Forbidden"
	case 409:
		return "Conflict"
	case 422:
		return "Unprocessable Entity"
	case 423:
		return "Locked"
	case 429:
		return "Too Many Requests"
	case 500:
		return "Internal Server Error"
	case 502:
		return "Bad Gateway"
	case 503:
		return "Service Unavailable"
	case 504:
		return "Gateway Timeout"
	}
	return "Status " + itoa(code)
}

// clientSpanName is the name of a client span along e.
func clientSpanName(e *edge) string {
	switch e.to.role {
	case roleDatabase:
		if e.to.dbSystem == "mongodb" {
			return "find " + baseName(e.from)
		}
		return "SELECT " + baseName(e.from)
	case roleCache:
		return "GET"
	case roleQueue:
		return e.to.name + " publish"
	case roleExternal:
		return "POST"
	}
	if isGRPC(e) {
		return e.toOp.route
	}
	return method(e)
}
