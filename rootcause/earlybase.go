package rootcause

import (
	"context"
	"time"
)

// baseSize is what a baseline's read depends on of its window (loadBase):
// the window's records and the time they cover (the window's, or that of
// the newest records kept when the read was cut at the record limit).
type baseSize struct {
	n       int
	covered time.Duration
}

// baseSize is the size of window l, read for q, that its baseline depends on.
func (l *loaded) baseSize(q Query) baseSize {
	covered := q.To.Sub(q.From)
	if l.cut {
		covered = l.last.Sub(l.first)
	}
	return baseSize{n: l.n, covered: covered}
}

// serverReads is a store whose reads run on a server of its own, the
// process waiting for their rows (ClickHouse).
type serverReads interface {
	ReadsOnServer() bool
}

// readsOnServer reports whether st's reads run on its server (serverReads).
func readsOnServer(st Store) bool {
	sr, ok := st.(serverReads)
	return ok && sr.ReadsOnServer()
}

// early is a baseline read begun before its window's read, from the size
// the store counted: the window's read and the baseline's then share the
// machine's cores, where the baseline would otherwise wait for the window.
// On the 1M-record incident of scripts/bench.sh, the baseline's read is
// half a million records of the analysis's million.
type early struct {
	bp     *basePeriod
	sz     baseSize
	cancel context.CancelFunc
}

// earlyBase begins reading the baseline of window q with load when the store
// counted the window's records (counted >= 0) and a read of them would not
// be cut at the record limit (a cut read's covered time is known only once
// read): one of fewer records than the limit, or the sample the store draws
// (sampled; a window that counts what the store counted, and is cut only
// when the sample is as large as the limit). nil otherwise.
//
// Not of a store whose reads run on its own server (serverReads): the
// process waits for its rows rather than decoding them, the two reads
// would share the server's cores, and the baseline, read during the wait
// for the window's sample, is held while the window streams. Measured on
// the 10M-record window of docs/analysis-bench-clickhouse.md (chDB on the
// same two cores): no faster, and 1.2 GB at its peak rather than 0.87. On
// the embedded store the peak fell instead (0.72 to 0.55 GB on that
// window, 440 to 385 MB on the 1M-record incident): the baseline's read
// then meets the window's stream, not the window's traces, all held, as
// they are explained.
func earlyBase(ctx context.Context, st Store, counted int, sampled bool, q Query, opt Options, load func(context.Context, baseSize) (*loaded, error)) *early {
	if readsOnServer(st) || counted < 0 || !sampled && opt.Limit > 0 && counted >= opt.Limit {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	sz := baseSize{n: counted, covered: q.To.Sub(q.From)}
	return &early{bp: startBase(func() (*loaded, error) { return load(ctx, sz) }), sz: sz, cancel: cancel}
}

// take is the baseline begun early when the window's read found the size
// it was begun for; else it is stopped, and take returns nil (a store that
// took records in between, or passed over a damaged block, counted other
// than it read): the baseline is then read for the size found, as a
// baseline begun after the window's read would be.
func (e *early) take(sz baseSize) *basePeriod {
	if e == nil {
		return nil
	}
	if e.sz == sz {
		return e.bp
	}
	e.cancel()
	e.bp.get() // its read has stopped: nothing of it runs on
	return nil
}

// stop ends what is left of e's read (a window that failed to read), once
// the analysis is done with it.
func (e *early) stop() {
	if e != nil {
		e.cancel()
	}
}
