package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// ErrNoDeadBatch is returned for a dead-letter batch id that is not there.
var ErrNoDeadBatch = errors.New("no such dead-letter batch")

var batchIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// DLQDir is the dead-letter directory under a spool directory.
func DLQDir(spoolDir string) string { return filepath.Join(spoolDir, "dlq") }

// SpoolSubdir is the directory of pending batches under a spool directory.
func SpoolSubdir(spoolDir string) string { return filepath.Join(spoolDir, "pending") }

// DLQ is the dead-letter directory: batches ClickHouse refused as bad
// PoisonTries times. They stay until replayed or dropped.
type DLQ struct {
	d batchDir
}

// DeadBatch describes one dead-letter batch.
type DeadBatch struct {
	ID        string    `json:"id"`
	Records   int       `json:"records"`
	Tries     int       `json:"tries"`
	LastError string    `json:"last_error"`
	Created   time.Time `json:"created"`
	Failed    time.Time `json:"failed"`
	Bytes     int64     `json:"bytes"`
}

// OpenDLQ opens (creating) the dead-letter directory dir.
func OpenDLQ(dir string) (*DLQ, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create dead-letter directory %q: %w", dir, err)
	}
	return &DLQ{d: batchDir{dir}}, nil
}

// Dir is the directory.
func (q *DLQ) Dir() string { return q.d.dir }

func (q *DLQ) put(e *entry) error {
	_, err := q.d.write(e.Failed.UTC().Format("20060102T150405.000000000Z")+"-"+e.ID+batchExt, e)
	return err
}

// List describes every dead-letter batch, oldest failure first.
func (q *DLQ) List() ([]DeadBatch, error) {
	names, err := q.d.names()
	if err != nil {
		return nil, fmt.Errorf("cannot list dead-letter directory %q: %w", q.d.dir, err)
	}
	out := make([]DeadBatch, 0, len(names))
	for _, n := range names {
		e, err := q.d.read(n)
		if err != nil {
			return out, err
		}
		out = append(out, e.describe())
	}
	return out, nil
}

// Count is the number of dead-letter batches.
func (q *DLQ) Count() int {
	names, _ := q.d.names()
	return len(names)
}

func (e *entry) describe() DeadBatch {
	return DeadBatch{ID: e.ID, Records: len(e.Records), Tries: e.Tries, LastError: e.LastError,
		Created: e.Created, Failed: e.Failed, Bytes: e.size}
}

// Show returns one batch and its records.
func (q *DLQ) Show(id string) (DeadBatch, []schema.Record, error) {
	e, err := q.find(id)
	if err != nil {
		return DeadBatch{}, nil, err
	}
	return e.describe(), e.Records, nil
}

func (q *DLQ) find(id string) (*entry, error) {
	if !batchIDPattern.MatchString(id) {
		return nil, fmt.Errorf("%w: %q is not a batch id (32 hex characters; see 'ingest dlq list')", ErrNoDeadBatch, truncate(id, 40))
	}
	names, err := q.d.names()
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if strings.HasSuffix(n, "-"+id+batchExt) {
			return q.d.read(n)
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrNoDeadBatch, id)
}

// Drop deletes a batch for good.
func (q *DLQ) Drop(id string) error {
	e, err := q.find(id)
	if err != nil {
		return err
	}
	if err := os.Remove(e.file); err != nil {
		return fmt.Errorf("cannot drop dead-letter batch %s: %w", id, err)
	}
	return nil
}

// ReplayDead inserts a dead-letter batch into s (directly, with the
// batch's own deduplication token, so that a replay that is repeated adds
// nothing) and removes it from q once ClickHouse took it.
func (s *Store) ReplayDead(ctx context.Context, q *DLQ, id string) (int, error) {
	e, err := q.find(id)
	if err != nil {
		return 0, err
	}
	if err := s.check(); err != nil {
		return 0, err
	}
	if s.opts.ReadOnly {
		return 0, errReadOnly
	}
	if err := s.insertGroup(ctx, e.Records, e.ID); err != nil {
		return 0, fmt.Errorf("cannot replay dead-letter batch %s: %w", id, err)
	}
	if err := os.Remove(e.file); err != nil {
		return len(e.Records), fmt.Errorf("batch %s was replayed but cannot be removed: %w", id, err)
	}
	return len(e.Records), nil
}
