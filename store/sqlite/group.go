package sqlite

import (
	"context"
	"database/sql"
	"sync"

	"github.com/faultline/faultline/store/backend"
)

// maxGroupRows bounds one group commit so a transaction stays short.
const maxGroupRows = 50_000

// groupWriter commits concurrent WriteBatch calls together: one goroutine
// takes every batch queued while the previous transaction ran and writes
// them in one transaction (group commit). Small concurrent batches (one per
// HTTP push) then share the fixed costs of a commit: the fsync, the WAL
// frames of index pages they both touch. Each batch is still all or
// nothing: it is in exactly one transaction, and its caller learns that
// transaction's outcome.
type groupWriter struct {
	w       *sql.DB
	mu      sync.Mutex
	pend    []*writeReq // FIFO; guarded by mu
	stopped bool        // guarded by mu: close was called
	wake    chan struct{}
	quit    chan struct{}
	done    chan struct{}
}

type writeReq struct {
	blocks []*block
	n      int        // records
	res    chan error // buffered: the writer never blocks on a caller
}

func newGroupWriter(w *sql.DB) *groupWriter {
	g := &groupWriter{w: w, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go g.loop()
	return g
}

// write queues req's blocks and waits for the transaction that holds them. When
// ctx ends first and the rows are still queued, they are withdrawn and
// ctx's error returned; once a transaction holds them, write waits for its
// outcome so that an error always means nothing was written.
func (g *groupWriter) write(ctx context.Context, req *writeReq) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req.res = make(chan error, 1)
	g.mu.Lock()
	if g.stopped {
		g.mu.Unlock()
		return backend.ErrClosed
	}
	g.pend = append(g.pend, req)
	g.mu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default:
	}
	select {
	case err := <-req.res:
		return err
	case <-ctx.Done():
		if g.withdraw(req) {
			return ctx.Err()
		}
		return <-req.res
	}
}

func (g *groupWriter) withdraw(req *writeReq) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, r := range g.pend {
		if r == req {
			g.pend = append(g.pend[:i], g.pend[i+1:]...)
			return true
		}
	}
	return false
}

// take removes the oldest queued requests, up to maxGroupRows rows (at
// least one request).
func (g *groupWriter) take() []*writeReq {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, rows := 0, 0
	for n < len(g.pend) && (n == 0 || rows+g.pend[n].n <= maxGroupRows) {
		rows += g.pend[n].n
		n++
	}
	group := append([]*writeReq(nil), g.pend[:n]...)
	g.pend = append(g.pend[:0], g.pend[n:]...)
	return group
}

func (g *groupWriter) loop() {
	defer close(g.done)
	for {
		select {
		case <-g.wake:
			g.drain()
		case <-g.quit:
			g.drain() // commit what was queued before Close
			return
		}
	}
}

func (g *groupWriter) drain() {
	for {
		group := g.take()
		if len(group) == 0 {
			return
		}
		err := g.commit(group)
		for _, r := range group {
			r.res <- err
		}
	}
}

// commit writes a group in one transaction. It does not take a caller's
// context: a caller stops waiting only while its batch is still queued.
func (g *groupWriter) commit(group []*writeReq) error {
	ctx := context.Background()
	return inTx(ctx, g.w, func(tx *sql.Tx) error {
		st, next, err := beginBlocks(ctx, tx)
		if err != nil {
			return err
		}
		defer st.close()
		total := 0
		for _, r := range group {
			if err := insertBlocks(ctx, st, &next, r.blocks); err != nil {
				return err
			}
			total += r.n
		}
		_, err = tx.ExecContext(ctx, `UPDATE counters SET value = value + ? WHERE name = 'records'`, total)
		return err
	})
}

// close commits what is queued and stops the goroutine; later writes
// fail with backend.ErrClosed. It is idempotent.
func (g *groupWriter) close() {
	g.mu.Lock()
	first := !g.stopped
	g.stopped = true
	g.mu.Unlock()
	if first {
		close(g.quit)
	}
	<-g.done
}
