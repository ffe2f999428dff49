package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"iter"
	"unsafe"

	"github.com/faultline/faultline/schema"
)

// Scanning rows (files of schema version 1, read as they are: legacy.go;
// blocks are read by blockread.go) is a two-stage pipeline: a goroutine steps SQLite and copies
// each row's blob out (half the work for a large window), while the
// consumer's goroutine decodes the blobs into records and yields them.
// On a multi-core machine a million-record window then takes about the
// time of the slower stage instead of the sum. Rows are read through the
// driver directly (sql.Conn.Raw): database/sql's per-row locking and
// conversions would cost more than SQLite itself.

// scanChunk is how many blobs the reader hands over at once; scanAhead
// how many chunks it may read ahead of the consumer.
const (
	scanChunk = 512
	scanAhead = 4
)

type chunk struct {
	blobs [][]byte
	err   error
}

// query runs a SELECT of selectCols and yields its records, with only the
// attributes named in attrs (all when nil); what prefixes any error, which
// is yielded once.
func (db *DB) query(ctx context.Context, what string, attrs []string, sqlText string, args ...any) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		keep := newAttrFilter(attrs) // per iteration: it holds scratch space
		ctx, cancel := context.WithCancel(ctx)
		ch := make(chan chunk, scanAhead)
		go db.produce(ctx, sqlText, args, ch)
		defer func() {
			// Also when yield panics: stop the reader and let it finish,
			// so that it releases its connection.
			cancel()
			for range ch {
			}
		}()
		if err := consume(ch, keep, yield); err != nil {
			yield(schema.Record{}, fmt.Errorf("%s: %w", what, explain(err)))
		}
	}
}

// consume decodes and yields until the consumer stops or the chunks end;
// it returns the error to report.
func consume(ch <-chan chunk, keep *attrFilter, yield func(schema.Record, error) bool) error {
	for c := range ch {
		for _, b := range c.blobs {
			// The blob is a fresh copy that nothing else references or
			// writes: viewing it as a string saves a second copy, and the
			// record's strings are substrings of it.
			var rec schema.Record
			if err := decodeRecord(unsafe.String(unsafe.SliceData(b), len(b)), &rec, keep); err != nil {
				return err
			}
			if !yield(rec, nil) {
				return nil
			}
		}
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// produce sends the rows' blobs in chunks, then any error, and closes ch.
// It stops early when ctx ends.
func (db *DB) produce(ctx context.Context, sqlText string, args []any, ch chan<- chunk) {
	defer close(ch)
	var c chunk
	err := db.readRows(ctx, sqlText, args, func(b []byte) error {
		if c.blobs == nil {
			c.blobs = make([][]byte, 0, scanChunk)
		}
		c.blobs = append(c.blobs, b)
		if len(c.blobs) < scanChunk {
			return nil
		}
		ch <- c
		c = chunk{}
		return ctx.Err()
	})
	c.err = err
	ch <- c
}

// readRows calls f with each row's blob until f fails or the rows end.
func (db *DB) readRows(ctx context.Context, sqlText string, args []any, f func([]byte) error) error {
	r, err := db.reader()
	if err != nil {
		return err
	}
	conn, err := r.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		rows, err := rawRows(ctx, dc, sqlText, args)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]driver.Value, 1)
		for {
			if err := rows.Next(dest); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			b, ok := dest[0].([]byte)
			if !ok {
				return errCorrupt
			}
			if err := f(b); err != nil {
				return err
			}
		}
	})
}

// rawRows prepares and runs sqlText on a driver connection.
func rawRows(ctx context.Context, dc any, sqlText string, args []any) (driver.Rows, error) {
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, errors.New("the sqlite driver cannot prepare with a context")
	}
	stmt, err := pc.PrepareContext(ctx, sqlText)
	if err != nil {
		return nil, err
	}
	sq, ok := stmt.(driver.StmtQueryContext)
	if !ok {
		return nil, errors.Join(errors.New("the sqlite driver cannot query with a context"), stmt.Close())
	}
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		if n, ok := a.(int); ok {
			a = int64(n)
		}
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	rows, err := sq.QueryContext(ctx, named)
	if err != nil {
		return nil, errors.Join(err, stmt.Close())
	}
	return &stmtRows{Rows: rows, stmt: stmt}, nil
}

// stmtRows closes its statement with the rows.
type stmtRows struct {
	driver.Rows
	stmt driver.Stmt
}

func (r *stmtRows) Close() error { return errors.Join(r.Rows.Close(), r.stmt.Close()) }
