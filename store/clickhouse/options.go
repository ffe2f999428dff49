package clickhouse

import (
	"log/slog"
	"time"
)

// Defaults for Options' zero values.
const (
	DefaultTraceLimit     = 100_000
	DefaultWindowLimit    = 2_000_000
	DefaultCallTimeout    = 30 * time.Second
	DefaultMaxBatch       = 100_000
	DefaultFlushInterval  = 50 * time.Millisecond
	DefaultAttempts       = 3
	DefaultBackoff        = 100 * time.Millisecond
	DefaultMaxBackoff     = 2 * time.Second
	DefaultBreakerFails   = 5
	DefaultBreakerOpenFor = 10 * time.Second
	DefaultSpoolMaxBytes  = 1 << 30
	DefaultPoisonTries    = 3
	DefaultReplayInterval = time.Second
)

// Options configure Open. The zero value works: a read-write store with
// the defaults above, no spool.
type Options struct {
	// Logger receives warnings and debug messages; nil discards them.
	Logger *slog.Logger
	// ReadOnly skips migrations and refuses writes (backend.ErrReadOnly).
	ReadOnly bool
	// Cluster, when set, runs the DDL ON CLUSTER with Replicated engines and
	// Distributed tables. The URL parameter cluster=NAME sets it too.
	Cluster string
	// TraceLimit and WindowLimit are the caps for a query limit <= 0.
	TraceLimit, WindowLimit int
	// Writer tunes batching, retries, the breaker and the spool.
	Writer WriterOptions
}

// WriterOptions tune the reliable writer.
type WriterOptions struct {
	// MaxBatch flushes a group of batches once it holds this many records;
	// FlushInterval flushes it that long after its first batch arrived.
	MaxBatch      int
	FlushInterval time.Duration
	// CallTimeout bounds one INSERT call.
	CallTimeout time.Duration
	// Attempts is how often a transient failure is tried before the group
	// goes to the spool (or fails, without a spool); Backoff and MaxBackoff
	// bound the exponential, jittered wait between tries.
	Attempts            int
	Backoff, MaxBackoff time.Duration
	// BreakerFailures consecutive failed calls open the breaker for
	// BreakerOpenFor; then one probe decides (half-open).
	BreakerFailures int
	BreakerOpenFor  time.Duration
	// SpoolDir keeps accepted batches that cannot be inserted now; empty
	// disables the spool and the dead-letter directory (SpoolDir/dlq).
	// The URL parameter spool_dir=PATH sets it too.
	SpoolDir string
	// NoSpool ignores SpoolDir and the URL's spool_dir, for tools that must
	// not replay the spool of a running server (ingest dlq).
	NoSpool bool
	// SpoolMaxBytes bounds the spool; past it WriteBatch fails with ErrSpoolFull.
	SpoolMaxBytes int64
	// PoisonTries is how often ClickHouse may reject a batch as bad before
	// it goes to the dead-letter directory.
	PoisonTries int
	// ReplayInterval is how often the spool is retried.
	ReplayInterval time.Duration
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.TraceLimit <= 0 {
		o.TraceLimit = DefaultTraceLimit
	}
	if o.WindowLimit <= 0 {
		o.WindowLimit = DefaultWindowLimit
	}
	o.Writer = o.Writer.withDefaults()
	return o
}

func (w WriterOptions) withDefaults() WriterOptions {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defInt(&w.MaxBatch, DefaultMaxBatch)
	defInt(&w.Attempts, DefaultAttempts)
	defInt(&w.BreakerFailures, DefaultBreakerFails)
	defInt(&w.PoisonTries, DefaultPoisonTries)
	def(&w.FlushInterval, DefaultFlushInterval)
	def(&w.CallTimeout, DefaultCallTimeout)
	def(&w.Backoff, DefaultBackoff)
	def(&w.MaxBackoff, DefaultMaxBackoff)
	def(&w.BreakerOpenFor, DefaultBreakerOpenFor)
	def(&w.ReplayInterval, DefaultReplayInterval)
	if w.SpoolMaxBytes <= 0 {
		w.SpoolMaxBytes = DefaultSpoolMaxBytes
	}
	return w
}
