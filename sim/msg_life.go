package sim

import (
	"fmt"
	"time"
)

// The wording of a service's life: startups, shutdowns, crashes, GC and memory.

func startupMsgs(n *node, p *pod, t time.Time) []string {
	v := n.versions[p.version(t)]
	app := n.app
	if n.seedStart {
		return seedStartupMsgs(n, v)
	}
	switch n.stack {
	case stackJava:
		return []string{
			fmt.Sprintf("Starting %s v%s using Java 21.0.4 with PID 1 (/app/app.jar started by app in /app)", app, v),
			`The following 1 profile is active: "prod"`,
			"Tomcat started on port 8080 (http) with context path ''",
			fmt.Sprintf("Started %s in %d.%03d seconds (process running for %d.%03d)", app, 6+n.flavor%5, n.flavor%1000, 7+n.flavor%5, (n.flavor/3)%1000),
		}
	case stackGo:
		return []string{fmt.Sprintf("starting %s version=%s commit=%s go=go1.22.5", n.name, v, fmt.Sprintf("%07x", n.flavor*7919%0xfffffff)),
			"connected to dependencies", "listening on :8080"}
	case stackPython:
		return []string{"Starting gunicorn 21.2.0", "Listening at: http://0.0.0.0:8000 (1)", "Using worker: gthread",
			"Booting worker with pid: 7", fmt.Sprintf("%s %s ready", n.name, v)}
	}
	return []string{fmt.Sprintf("%s@%s starting in production mode", n.name, v), "Server listening at http://0.0.0.0:3000"}
}

func shutdownMsg(n *node) string {
	switch n.stack {
	case stackJava:
		return "Commencing graceful shutdown. Waiting for active requests to complete"
	case stackGo:
		return "received signal terminated, shutting down"
	case stackPython:
		return "Handling signal: term"
	}
	return "SIGTERM received, closing server"
}

func crashMsg(n *node, i int) string {
	switch n.stack {
	case stackJava:
		return "Uncaught exception in thread \"main\", shutting down: java.lang.IllegalStateException: Failed to load ApplicationContext: Could not resolve placeholder 'PAYMENTS_SIGNING_KEY' in value \"${PAYMENTS_SIGNING_KEY}\""
	case stackGo:
		return pickBy(n, 10, []string{"unrecoverable error, exiting: assignment to entry in nil map",
			"fatal: failed to load config: open /etc/secrets/signing-key: no such file or directory"})
	case stackPython:
		return "Worker failed to boot. Shutting down: Master. Reason: App failed to load."
	}
	return "Unhandled promise rejection, process exiting with code 1: Error: ENOENT: no such file or directory, open '/app/config/production.json'"
}

func oomMsg(n *node) string {
	switch n.stack {
	case stackJava:
		return "Terminating due to java.lang.OutOfMemoryError: Java heap space"
	case stackGo:
		return pickBy(n, 12, []string{"fatal error: runtime: out of memory", ""})
	case stackNode:
		return "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"
	}
	return "Worker (pid:9) was sent SIGKILL! Perhaps out of memory?"
}

func gcPauseMsg(n *node, d time.Duration, i int) string {
	switch n.stack {
	case stackJava:
		return pickBy(n, 13, []string{
			fmt.Sprintf("Detected pause in JVM or host machine (eg GC): pause of approximately %dms", ms(d)),
			fmt.Sprintf("GC(%d) Pause Full (G1 Compaction Pause) %dM->%dM(4096M) %.3fms", 1800+i, 3900+i%150, 3800+i%90, float64(d.Microseconds())/1000),
		})
	case stackNode:
		return fmt.Sprintf("event loop blocked for %dms (possible GC pressure)", ms(d))
	case stackPython:
		return fmt.Sprintf("worker blocked for %.2fs: gc generation 2 collection", d.Seconds())
	}
	return fmt.Sprintf("memory pressure: GC stalled the process for %s, gc_cpu_fraction=%.2f", d.Round(time.Millisecond), 0.2+float64(i%7)/20)
}

func heapMsg(n *node, used float64) string {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("Heap usage above threshold after GC: %.1f GiB of 4.0 GiB (%.0f%%)", 4*used, 100*used)
	case stackNode:
		return fmt.Sprintf("heap used %.2f GB of 2.00 GB", 2*used)
	}
	return fmt.Sprintf("memory usage high: rss=%.2fGiB limit=2GiB", 2*used)
}

func poolStatsMsg(n *node, waiting int) string {
	if n.stack == stackJava {
		return fmt.Sprintf("%s - Pool stats (total=10, active=10, idle=0, waiting=%d)", n.poolName, waiting)
	}
	return fmt.Sprintf("db pool %s saturated: in_use=20/20 idle=0 waiting=%d", n.poolName, waiting)
}

func dlqDepthMsg(q *node, depth int) string {
	return fmt.Sprintf("dead-letter queue %s-dlq has %d messages (ApproximateNumberOfMessagesVisible > 0)", q.name, depth)
}

func limiterSummaryMsg(n *node, rejected int) string {
	return fmt.Sprintf("rate limiter rejected %d requests in the last 10s", rejected)
}
