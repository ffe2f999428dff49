package clickhouse

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// transientCode reports whether a ClickHouse error code is worth
// retrying: overload (TOO_MANY_PARTS 252, TOO_MANY_SIMULTANEOUS_QUERIES
// 202, MEMORY_LIMIT_EXCEEDED 241), timeouts (159, 209), the network (210,
// 279), replication and Keeper trouble (225, 242, 285, 319, 999). Anything
// else the server answers (syntax, types, unknown tables, auth,
// constraints) is deterministic.
func transientCode(code int32) bool {
	switch code {
	case 3, 32, 159, 160, 202, 203, 209, 210, 225, 236, 241, 242, 252, 279, 285, 319, 394, 425, 439, 999, 1000:
		return true
	}
	return false
}

// transient reports whether err is worth retrying: the network, a
// timeout, a server that is restarting or overloaded (5xx without a
// ClickHouse code, TOO_MANY_PARTS, ...). A deterministic refusal is not.
func transient(err error) bool {
	if err == nil {
		return false
	}
	var ex *clickhouse.Exception
	if errors.As(err, &ex) {
		return transientCode(ex.Code)
	}
	var he *clickhouse.HTTPError
	if errors.As(err, &he) && he.StatusCode >= 500 {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	for _, e := range []error{context.DeadlineExceeded, context.Canceled, io.EOF, io.ErrUnexpectedEOF,
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE, net.ErrClosed} {
		if errors.Is(err, e) {
			return true
		}
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"connection refused", "connection reset", "broken pipe", "timeout", "eof", "no such host"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// backoff is the wait before try n+1 (n >= 1): exponential from base,
// capped at max, with "equal jitter" (half fixed, half random) so that
// many writers recovering at once do not retry in step.
func backoff(n int, base, max time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	d = min(d, max)
	half := d / 2
	return half + rand.N(half+1)
}

// sleep waits d or until done is closed; it reports whether it waited.
func sleep(d time.Duration, done <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	}
}
