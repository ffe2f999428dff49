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

const selectCols = `SELECT rec FROM records`

// TraceRecords yields every record whose TraceID is id, in insertion
// order, at most limit of them (limit <= 0: Options.TraceLimit). An
// unknown id yields nothing and no error; a read failure is yielded once.
func (db *DB) TraceRecords(ctx context.Context, id schema.TraceID, limit int) iter.Seq2[schema.Record, error] {
	if limit <= 0 {
		limit = db.opts.TraceLimit
	}
	key := traceKey(id)
	if key == nil {
		return func(func(schema.Record, error) bool) {}
	}
	what := fmt.Sprintf("cannot read trace %q", truncate(string(id)))
	return db.query(ctx, what, selectCols+` WHERE trace = ? ORDER BY rowid LIMIT ?`, key, limit)
}

// WindowRecords yields the records whose Time lies in [q.From, q.To),
// ordered by Time (ties in insertion order), of q.Service when set, only
// errors and WARN-or-above when q.ErrorsOnly, at most q.Limit of them
// (0: Options.WindowLimit). An empty or inverted window yields nothing.
func (db *DB) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	limit := q.Limit
	if limit <= 0 {
		limit = db.opts.WindowLimit
	}
	what := fmt.Sprintf("cannot read records from %s to %s",
		q.From.Format("2006-01-02T15:04:05.999Z07:00"), q.To.Format("2006-01-02T15:04:05.999Z07:00"))
	from, err1 := timeToNanos(q.From)
	to, err2 := timeToNanos(q.To)
	if err := firstErr(err1, err2); err != nil {
		return failed(fmt.Errorf("%s: %w", what, err))
	}
	sqlText, args := windowSQL(from, to, q.Service, q.ErrorsOnly, limit)
	return db.query(ctx, what, sqlText, args...)
}

// windowSQL picks the statement whose WHERE clause lets SQLite use the
// right index: (service, ts) for one service, the partial alert index for
// ErrorsOnly, ts otherwise.
func windowSQL(from, to int64, service string, errorsOnly bool, limit int) (string, []any) {
	where := ` WHERE ts >= ? AND ts < ?`
	args := []any{from, to}
	if service != "" {
		where = ` WHERE service = ? AND ts >= ? AND ts < ?`
		args = []any{service, from, to}
	}
	if errorsOnly {
		where += ` AND alert = 1`
	}
	return selectCols + where + ` ORDER BY ts, rowid LIMIT ?`, append(args, limit)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func failed(err error) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) { yield(schema.Record{}, err) }
}

// query runs a SELECT of selectCols and yields its records; what prefixes
// any error. It reads through the driver directly (sql.Conn.Raw): for
// million-record windows database/sql's per-row locking and conversions
// cost more than SQLite itself.
func (db *DB) query(ctx context.Context, what, sqlText string, args ...any) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		if err := db.queryRaw(ctx, sqlText, args, yield); err != nil {
			yield(schema.Record{}, fmt.Errorf("%s: %w", what, err))
		}
	}
}

// queryRaw yields rows until the consumer stops; it returns the error to
// report, if any (never after the consumer stopped).
func (db *DB) queryRaw(ctx context.Context, sqlText string, args []any, yield func(schema.Record, error) bool) error {
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
		return yieldRows(rows, yield)
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

// yieldRows yields each row until the consumer stops.
func yieldRows(rows driver.Rows, yield func(schema.Record, error) bool) error {
	dest := make([]driver.Value, 1)
	for {
		err := rows.Next(dest)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		b, ok := dest[0].([]byte)
		if !ok {
			return errCorrupt
		}
		// The driver hands over a fresh copy of the blob that nothing else
		// references or writes: viewing it as a string saves a second copy,
		// and the record's strings are substrings of it.
		var rec schema.Record
		if err := decodeRecord(unsafe.String(unsafe.SliceData(b), len(b)), &rec); err != nil {
			return err
		}
		if !yield(rec, nil) {
			return nil
		}
	}
}
