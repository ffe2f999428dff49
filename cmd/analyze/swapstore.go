package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/sqlite"
)

// swapStore is the embedded store of analyze serve, which follows its
// file: a store written beside it and moved over it (mv new.db
// faultline.db) is opened in its place without a restart. The server used
// to keep reading the old, unlinked file.
//
// The replacement is opened only once the old file is closed: SQLite
// pairs a file with the write-ahead log named after its path, and a
// connection still open on the old file keeps that log, and its index,
// alive for the new one. So a request that finds the file replaced marks
// a swap; requests keep reading the old file until none still does, then
// it is closed and the new one opened. Past swapWait, new requests wait
// for the swap (or their deadline) rather than holding it off for ever.
// Another process still holding the old file (ingest serve) keeps its log
// at the path too: the new file is then not opened, and the requests are
// told to stop that process.
//
// A file rewritten in place (cp over it: same inode, another size or
// time) is reopened the same way when no other process has the store
// open (with a writer such as ingest serve, the change is its own; a copy
// under it cannot be followed). That is safe because the server
// checkpoints after each of its own writes (runbooks), so its log holds
// nothing the file lacks, and closing writes nothing into the new file;
// reopening drops the page caches that describe the old content. Reads
// that find damage after an in-place change that could not be followed
// are told what to do (restart, and use mv next time).
//
// The server's own writes change the file's size and time too: while one
// runs, no change in place is looked for, and when the last one ends the
// file as it then is becomes the one open (adopt). Only another
// process's rewrite landing during one of the server's own writes goes
// unseen; a file moved over it is always seen (another inode).
type swapStore struct {
	path string
	open func(context.Context) (store.Store, error)
	log  *slog.Logger
	// onSwap runs after a replacement was opened (the server forgets the
	// damage it saw in the old file).
	onSwap func()

	mu      sync.Mutex
	cur     *storeGen
	pending time.Time     // when a replacement was seen; zero: none
	writing int           // the server's own writes in flight
	swapped chan struct{} // closed when the pending swap is done
	closed  bool
}

// storeGen is one opened file and the calls still using it.
type storeGen struct {
	st   store.Store // nil: the replacement could not be opened (err)
	err  error
	file os.FileInfo
	refs int
}

// swapWait is how long requests keep reading a replaced file while
// earlier ones finish, before new ones wait for the swap.
const swapWait = 10 * time.Second

func newSwapStore(path string, st store.Store, open func(context.Context) (store.Store, error), log *slog.Logger) *swapStore {
	fi, _ := os.Stat(path)
	return &swapStore{path: path, open: open, log: log, cur: &storeGen{st: st, file: fi}, swapped: make(chan struct{})}
}

// acquire returns the generation a call is to use, counted until release;
// own marks one of the server's own writes (see swapStore).
func (s *swapStore) acquire(ctx context.Context, own bool) (*storeGen, error) {
	s.mu.Lock()
	for {
		if s.closed {
			s.mu.Unlock()
			return nil, store.ErrClosed
		}
		if s.pending.IsZero() {
			s.checkFile()
		}
		if s.pending.IsZero() {
			break
		}
		if s.cur.refs == 0 {
			s.swapLocked() // once per request: a refused file is tried again by the next one
			break
		}
		if time.Since(s.pending) < swapWait {
			break
		}
		ch := s.swapped
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
	}
	g := s.cur
	if g.st == nil {
		s.mu.Unlock()
		return nil, g.err
	}
	g.refs++
	if own {
		s.writing++
	}
	s.mu.Unlock()
	return g, nil
}

func (s *swapStore) release(g *storeGen, own bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g.refs--
	if own {
		s.writing--
		s.adopt(g)
	}
	if g.refs == 0 && g == s.cur && !s.pending.IsZero() && !s.closed {
		s.swapLocked()
	}
}

// checkFile marks a swap when the file at the path is another one than
// the one open, or was rewritten in place while no other process has it
// open (a missing file is not: nothing to open yet).
func (s *swapStore) checkFile() {
	now, err := os.Stat(s.path)
	switch {
	case err != nil:
		return
	case s.cur.file == nil || !os.SameFile(s.cur.file, now):
		s.log.Info("store file replaced; reading the new one once the requests reading the old one finish", "path", s.path)
	case now.Size() == s.cur.file.Size() && now.ModTime().Equal(s.cur.file.ModTime()):
		return
	case s.writing > 0:
		return // the server's own write changes it (adopt)
	case sqlite.HeldElsewhere(s.path):
		return // a writer's own change (or a copy under it, see explain)
	default:
		s.log.Info("store file rewritten in place; reading it anew once the requests reading it finish", "path", s.path)
	}
	s.pending = time.Now()
}

// adopt takes the file at the path as g's own once the server's last
// write in flight on it has ended: what changed it was the server. A
// replacement already seen, or a file of another inode, is left to swap.
func (s *swapStore) adopt(g *storeGen) {
	if s.writing > 0 || g != s.cur || g.st == nil || !s.pending.IsZero() || g.file == nil {
		return
	}
	if now, err := os.Stat(s.path); err == nil && os.SameFile(g.file, now) {
		g.file = now
	}
}

// checkpointer is a store that can fold its write-ahead log into its file
// (the embedded one).
type checkpointer interface {
	Checkpoint(ctx context.Context) error
}

// wrote checkpoints after a write of the server's own (see swapStore).
func wrote(ctx context.Context, st store.Store, err error) error {
	if c, ok := st.(checkpointer); ok && err == nil {
		_ = c.Checkpoint(ctx)
	}
	return err
}

// swapLocked closes the old file and opens the one now at the path.
func (s *swapStore) swapLocked() {
	old := s.cur
	if old.st != nil {
		if err := old.st.Close(); err != nil {
			s.log.Warn("closing the replaced store file", "error", err)
		}
		old.st = nil
		old.err = store.ErrClosed
	}
	fi, _ := os.Stat(s.path)
	g := &storeGen{file: fi}
	if busy, err := sqlite.InUse(s.path); busy || err != nil {
		g.err = fmt.Errorf("the store file %s was replaced while another process (ingest serve?) still has the old one open; "+
			"stop that process (analyze serve then opens the new file), or restart both", s.path)
		if err != nil {
			g.err = err
		}
		g.file = old.file // look again on the next request
	} else if err := s.setAsideLog(old.file, fi); err != nil {
		g.err, g.file = err, old.file
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		g.st, g.err = s.open(ctx)
		cancel()
		if g.err != nil {
			g.err = fmt.Errorf("the store file %s was replaced by one that cannot be opened: %w", s.path, g.err)
		} else if now, err := os.Stat(s.path); err == nil {
			g.file = now // as opening left it
		}
	}
	s.cur, s.pending = g, time.Time{}
	close(s.swapped)
	s.swapped = make(chan struct{})
	if g.err != nil {
		s.log.Error("store file replaced; not reading it", "error", g.err)
		return
	}
	s.log.Info("store file replaced; now reading the new one", "path", s.path)
	if s.onSwap != nil {
		s.onSwap()
	}
}

// setAsideLog moves aside the write-ahead log that the last connection to
// a file moved away from the path left there (SQLite keeps a moved file's
// log when it closes): opened with the file now at the path, SQLite would
// read it as that file's own, the replaced file's pages over the new
// one's. Called with no connection to either file open.
func (s *swapStore) setAsideLog(was, now os.FileInfo) error {
	wal := s.path + "-wal"
	fi, err := os.Stat(wal)
	if was == nil || now == nil || os.SameFile(was, now) || err != nil || fi.Size() == 0 {
		return nil
	}
	aside := wal + ".replaced"
	if err := os.Rename(wal, aside); err != nil {
		return fmt.Errorf("the store file %s was replaced, and the write-ahead log its old file left at %s cannot be moved aside (%w); "+
			"remove it, then the next request opens the new file", s.path, wal, err)
	}
	s.log.Warn("the replaced store file left its write-ahead log at the path; moved it aside, so that the new file is read as it is", "log", aside)
	return nil
}

// explain adds what to do to a read that found damage after the file
// changed in place (same file, other size or time) since it was opened.
func (s *swapStore) explain(g *storeGen, err error) error {
	if err == nil || !errors.Is(err, store.ErrCorrupt) || g.file == nil {
		return err
	}
	now, serr := os.Stat(s.path)
	if serr != nil || !os.SameFile(g.file, now) || now.Size() == g.file.Size() && now.ModTime().Equal(g.file.ModTime()) {
		return err
	}
	return fmt.Errorf("%w; the file changed on disk since analyze serve opened it, while another process (ingest serve?) has it open: "+
		"a file copied over in place under a writer cannot be followed; stop both, copy the file again and start them; "+
		"next time copy it beside the store and mv it over with ingest serve stopped, which analyze serve picks up without a restart", err)
}

// do runs f, which only reads, on the current generation.
func (s *swapStore) do(ctx context.Context, f func(store.Store) error) error {
	return s.run(ctx, false, f)
}

// write runs f, one of the server's own writes, on the current generation.
func (s *swapStore) write(ctx context.Context, f func(store.Store) error) error {
	return s.run(ctx, true, f)
}

func (s *swapStore) run(ctx context.Context, own bool, f func(store.Store) error) error {
	g, err := s.acquire(ctx, own)
	if err != nil {
		return err
	}
	defer s.release(g, own)
	return s.explain(g, f(g.st))
}

// records runs an iterator on the current generation, holding it until
// the iteration ends.
func (s *swapStore) records(ctx context.Context, it func(store.Store) iter.Seq2[schema.Record, error]) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		g, err := s.acquire(ctx, false)
		if err != nil {
			yield(schema.Record{}, err)
			return
		}
		defer s.release(g, false)
		for r, err := range it(g.st) {
			if !yield(r, s.explain(g, err)) {
				return
			}
		}
	}
}

func (s *swapStore) WriteBatch(ctx context.Context, recs []schema.Record) error {
	return s.write(ctx, func(st store.Store) error { return wrote(ctx, st, st.WriteBatch(ctx, recs)) })
}

func (s *swapStore) TraceRecords(ctx context.Context, id schema.TraceID, limit int) iter.Seq2[schema.Record, error] {
	return s.records(ctx, func(st store.Store) iter.Seq2[schema.Record, error] { return st.TraceRecords(ctx, id, limit) })
}

func (s *swapStore) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	return s.records(ctx, func(st store.Store) iter.Seq2[schema.Record, error] { return st.WindowRecords(ctx, q) })
}

func (s *swapStore) DeleteBefore(ctx context.Context, t time.Time) (n int64, err error) {
	err = s.write(ctx, func(st store.Store) (err error) { n, err = st.DeleteBefore(ctx, t); return wrote(ctx, st, err) })
	return n, err
}

func (s *swapStore) Bounds(ctx context.Context) (first, last time.Time, err error) {
	err = s.do(ctx, func(st store.Store) (err error) { first, last, err = st.Bounds(ctx); return err })
	return first, last, err
}

func (s *swapStore) Stats(ctx context.Context) (st store.Stats, err error) {
	err = s.do(ctx, func(cur store.Store) (err error) { st, err = cur.Stats(ctx); return err })
	return st, err
}

func (s *swapStore) PutDoc(ctx context.Context, kind, id string, doc []byte) error {
	return s.write(ctx, func(st store.Store) error { return wrote(ctx, st, st.PutDoc(ctx, kind, id, doc)) })
}

func (s *swapStore) GetDoc(ctx context.Context, kind, id string) (doc []byte, err error) {
	err = s.do(ctx, func(st store.Store) (err error) { doc, err = st.GetDoc(ctx, kind, id); return err })
	return doc, err
}

// CheckIntegrity checks the current file when its store can (integrityChecker).
func (s *swapStore) CheckIntegrity(ctx context.Context) error {
	return s.do(ctx, func(st store.Store) error {
		if ic, ok := st.(integrityChecker); ok {
			return ic.CheckIntegrity(ctx)
		}
		return nil
	})
}

// Close closes the current file; later calls fail with store.ErrClosed.
func (s *swapStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	close(s.swapped)
	if s.cur.st != nil {
		return s.cur.st.Close()
	}
	return nil
}

// health is /healthz's check of the file itself: removed while the
// server runs is unhealthy (a file put back at the path is opened by the
// next request).
func (s *swapStore) health(ctx context.Context) error {
	if _, err := os.Stat(s.path); err != nil {
		return fmt.Errorf("the store file %s was removed while analyze serve ran (%v); put a store back at that path, which the next request opens", s.path, err)
	}
	return s.do(ctx, func(store.Store) error { return nil })
}
