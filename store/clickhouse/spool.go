package clickhouse

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/schema"
)

// ErrSpoolFull means the spool is at its bound: the batch was not
// accepted. An ingest endpoint answers 503 with Retry-After.
var ErrSpoolFull = errors.New("the ClickHouse write spool is full")

// entry is one batch kept on disk, in the spool or the dead-letter
// directory. ID is also its insert_deduplication_token, so inserting it
// again never duplicates rows.
type entry struct {
	ID        string
	Tries     int // deterministic refusals so far
	LastError string
	Created   time.Time
	Failed    time.Time
	Records   []schema.Record

	file string // path, when loaded from disk
	size int64
}

// batchDir is a directory of entries, named SEQ-ID.batch so that the
// names sort in arrival order. Writes are atomic (temporary file, fsync,
// rename).
type batchDir struct {
	dir string
}

const batchExt = ".batch"

func (d batchDir) names() ([]string, error) {
	des, err := os.ReadDir(d.dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, de := range des {
		if strings.HasSuffix(de.Name(), batchExt) {
			out = append(out, de.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func (d batchDir) write(name string, e *entry) (int64, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(e); err != nil {
		return 0, fmt.Errorf("cannot encode batch %s: %w", e.ID, err)
	}
	tmp, err := os.CreateTemp(d.dir, ".tmp-*")
	if err != nil {
		return 0, err
	}
	_, werr := tmp.Write(buf.Bytes())
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return 0, fmt.Errorf("cannot write batch %s: %w", e.ID, err)
	}
	path := filepath.Join(d.dir, name)
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	syncDir(d.dir)
	return int64(buf.Len()), nil
}

func (d batchDir) read(name string) (*entry, error) {
	path := filepath.Join(d.dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	e := &entry{}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(e); err != nil {
		return nil, fmt.Errorf("cannot decode batch file %q: %w", path, err)
	}
	e.file, e.size = path, int64(len(b))
	return e, nil
}

func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}

// spool keeps accepted batches that could not be inserted yet, in order,
// bounded in bytes.
type spool struct {
	mu    sync.Mutex
	d     batchDir
	max   int64
	bytes int64
	count int
	seq   uint64
}

func openSpool(dir string, max int64) (*spool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create spool directory %q: %w", dir, err)
	}
	sp := &spool{d: batchDir{dir}, max: max}
	names, err := sp.d.names()
	if err != nil {
		return nil, fmt.Errorf("cannot read spool directory %q: %w", dir, err)
	}
	for _, n := range names {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil {
			sp.bytes += fi.Size()
		}
		seq, _, _ := strings.Cut(n, "-")
		if v, err := strconv.ParseUint(seq, 10, 64); err == nil && v > sp.seq {
			sp.seq = v
		}
	}
	sp.count = len(names)
	return sp, nil
}

// add appends a batch; past the bound it fails with ErrSpoolFull.
func (sp *spool) add(e *entry) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.bytes >= sp.max {
		return fmt.Errorf("%w (%d batches, %d bytes)", ErrSpoolFull, sp.count, sp.bytes)
	}
	sp.seq++
	n, err := sp.d.write(fmt.Sprintf("%020d-%s%s", sp.seq, e.ID, batchExt), e)
	if err != nil {
		return err
	}
	sp.bytes += n
	sp.count++
	return nil
}

// head loads the oldest batch; nil when the spool is empty.
func (sp *spool) head() (*entry, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	names, err := sp.d.names()
	if err != nil || len(names) == 0 {
		return nil, err
	}
	return sp.d.read(names[0])
}

// update rewrites a batch in place (its tries and last error).
func (sp *spool) update(e *entry) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	n, err := sp.d.write(filepath.Base(e.file), e)
	if err == nil {
		sp.bytes += n - e.size
		e.size = n
	}
	return err
}

// remove deletes a batch that was inserted or moved to the dead letters.
func (sp *spool) remove(e *entry) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if err := os.Remove(e.file); err != nil && !os.IsNotExist(err) {
		return err
	}
	sp.bytes -= e.size
	sp.count--
	syncDir(sp.d.dir)
	return nil
}

func (sp *spool) stats() (count int, bytes int64) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.count, sp.bytes
}
