package sim

import (
	"fmt"
	"strings"
	"time"
)

// The wording of the seed systems' own lines. As elsewhere, one service
// keeps one wording (pickBy), as its code does.

// sqlTime is how an audit log writes a time: "2006-01-02 15:04:05", UTC.
func sqlTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

// nsRefusalMsg is the job queue's answer to a claim while the namespace's breaker is open.
func nsRefusalMsg(n *node, ns string, failed, threshold int, since time.Time, resetters []string) string {
	who := strings.Join(resetters, " or ")
	switch pickBy(n, 30, []int{0, 1, 2}) {
	case 0:
		return fmt.Sprintf("the circuit breaker for %s is open: %d jobs failed by their holders since %s UTC (threshold %d); "+
			"claims in %s wait until %s resets it", ns, failed, sqlTime(since), threshold, ns, who)
	case 1:
		return fmt.Sprintf("namespace %s is paused after repeated failures: %d jobs failed since %s UTC, limit %d; ask %s to reset its breaker",
			ns, failed, sqlTime(since), threshold, who)
	}
	return fmt.Sprintf("claim refused: breaker open namespace=%s failed=%d since=%q threshold=%d", ns, failed, sqlTime(since), threshold)
}

func nsResetMsg(n *node, ns, actor string, failed, threshold int, at time.Time) string {
	if n.stack == stackJava || n.flavor%2 == 0 {
		return fmt.Sprintf("audit job-breaker-reset namespace=%s actor=%s was_open=true failed=%d threshold=%d reset_at=%s",
			ns, actor, failed, threshold, at.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("breaker for %s reset by %s (%d failed jobs no longer count; threshold %d)", ns, actor, failed, threshold)
}

func auditFailMsg(n *node, ns string, id int) string {
	if n.flavor%2 == 0 {
		return fmt.Sprintf("audit job-fail namespace=%s path=jobs/%s/%d", ns, ns, id)
	}
	return fmt.Sprintf("job %d in %s failed by its holder; recorded in audit_log", id, ns)
}

// honestFailMsg is a holder giving up on a job whose calls went well.
func honestFailMsg(n *node, ns string, r rng) string {
	id := r.between(1000, 99999)
	return pick(r, []string{
		fmt.Sprintf("job %d (%s) failed: %d of %d tests failing after the change", id, ns, r.between(1, 6), r.between(40, 400)),
		fmt.Sprintf("job %d (%s) not done: %d items left, failing it so another holder can take it", id, ns, r.between(1, 9)),
		fmt.Sprintf("job %d (%s) failed: the diff does not apply to the current head", id, ns),
	})
}

func classifiedMsg(n *node, label string, r rng) string {
	id := r.between(100000, 999999)
	conf := 0.55 + 0.44*r.Float64()
	switch n.stack {
	case stackPython:
		return fmt.Sprintf("message %d classified as '%s' (p=%.2f)", id, label, conf)
	case stackGo:
		return fmt.Sprintf("classified message_id=%d label=%s confidence=%.2f", id, label, conf)
	}
	return fmt.Sprintf("classification done for message %d: %s (%.0f%%)", id, label, 100*conf)
}

func unknownLabelMsg(n *node, label string, run int) string {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("No draft template for label '%s' (run %d); rejecting with 422", label, run)
	case stackPython:
		return fmt.Sprintf("1 validation error for DraftRequest: label: value is not a valid enumeration member; got %q (run %d)", label, run)
	}
	return fmt.Sprintf("cannot draft run %d: unknown label %q", run, label)
}

func unapprovedRefundMsg(n *node, run, amount int) string {
	switch pickBy(n, 27, []int{0, 1, 2}) {
	case 0:
		return fmt.Sprintf("refund of %d.00 EUR for run %d refused: approval token missing", amount, run)
	case 1:
		return fmt.Sprintf("refusing refund request from workflow run %d: no approval token (refunds need a person's Approve)", run)
	}
	return fmt.Sprintf("policy: payment actions require an approval token; run=%d amount=%d", run, amount)
}

// quotedErrorMsg is a caller's error that quotes its callee's own message.
func quotedErrorMsg(n *node, e *edge, status int, reason string) string {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf(`%d %s from %s %s: "%s"`, status, httpStatusText(status), method(e), url(e), reason)
	case stackPython:
		return fmt.Sprintf("%s responded %d: %s", e.to.name, status, reason)
	case stackNode:
		return fmt.Sprintf("Request failed with status code %d: %s", status, reason)
	}
	return fmt.Sprintf("%s returned %d: %s", e.to.name, status, reason)
}

func keyedBreakerOpenMsg(n *node, e *edge) string {
	key := e.breaker.name
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("CircuitBreaker '%s' is OPEN and does not permit further calls", key)
	case stackPython:
		return fmt.Sprintf("CircuitBreakerError: circuit %s is open", key)
	case stackNode:
		return pickBy(n, 28, []string{"Circuit breaker is OPEN (" + key + ")", "Error: Circuit breaker is OPEN for " + key})
	}
	return fmt.Sprintf("circuit breaker for %s is open, not calling %s", key, hostOf(e))
}

// seedStartupMsgs are how a seed system's service says which version started.
func seedStartupMsgs(n *node, v string) []string {
	switch pickBy(n, 29, []int{0, 1, 2, 3}) {
	case 0:
		return []string{fmt.Sprintf("starting %s version %s", n.name, v), "config loaded", "listening on :8080"}
	case 1:
		return []string{"loading configuration", fmt.Sprintf("%s %s started", n.name, v)}
	case 2:
		return []string{fmt.Sprintf("Starting %s %s (pid 1)", pascal(n.name), v), fmt.Sprintf("Started %s in %d.%d seconds", pascal(n.name), 2+n.flavor%6, n.flavor%10)}
	}
	return []string{fmt.Sprintf("%s@%s ready on port 3000", n.name, v)}
}

func redeliverMsg(n *node, q *node, id string, k, max int, wait time.Duration) string {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("Seek to current after exception; will retry in %d ms (delivery attempt %d of %d) for %s record %s", ms(wait), k+1, max, q.name, id)
	case stackGo:
		return fmt.Sprintf("nack message id=%s queue=%s delivery=%d/%d redeliver_in=%s", id, q.name, k, max, wait.Round(time.Millisecond))
	}
	return fmt.Sprintf("message %s from %s failed (attempt %d/%d), redelivering in %.1fs", id, q.name, k, max, wait.Seconds())
}

// deadLetterMsg is a consumer moving a message that failed every delivery.
func deadLetterMsg(n *node, q *node, id string, k int, r rng) string {
	order := r.between(100000, 999999)
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("Backoff exhausted for %s-%d@%d (order %d); sending it to the DLT after %d failed delivery attempts", q.name, r.IntN(6), r.between(1000, 90000), order, k)
	case stackGo:
		return fmt.Sprintf("moved message id=%s (order %d) to %s after %d attempts", id, order, q.deadLetter, k)
	case stackPython:
		return fmt.Sprintf("giving up on message %s (order %d): moved to %s after %d attempts", id, order, q.deadLetter, k)
	}
	return fmt.Sprintf("message %s for order %d moved to %s after %d attempts", id, order, q.deadLetter, k)
}

func healthRoundMsg(n *node, key string, r rng) string {
	total := r.between(4, 16)
	return fmt.Sprintf("health round %s: %d/%d instances healthy", key, total, total)
}

func healthFailMsg(m, n *node, key string, k int) string {
	if m.stack == stackJava {
		return fmt.Sprintf("Health check %d/3 failed for %s instances (%s): Connection refused", k, key, n.address)
	}
	return fmt.Sprintf("health check failed for %s (%s) %d/3: connect ECONNREFUSED %s:8080", key, n.name, k, n.address)
}

func unhealthyMsg(m, n *node, key string) string {
	return fmt.Sprintf("%s instances failed 3 health checks in a row; marking %s unhealthy and notifying workload owners", key, n.name)
}

func spotNoticeMsg(m *node, key string, r rng) string {
	return fmt.Sprintf("spot interruption notice for instance i-%s in %s: draining in 120s, notifying owner", r.hexID(9)[:17], key)
}
