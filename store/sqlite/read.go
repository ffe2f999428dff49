package sqlite

import (
	"context"
	"fmt"
	"iter"
	"strings"

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
	if id == "" {
		return func(func(schema.Record, error) bool) {}
	}
	what := fmt.Sprintf("cannot read trace %q", truncate(string(id)))
	if db.isLegacy(ctx) {
		return db.query(ctx, what, nil, selectCols+` WHERE trace = ? ORDER BY rowid LIMIT ?`, traceKey(id), limit)
	}
	return db.traceBlocks(ctx, what, id, limit)
}

// WindowRecords yields the records whose Time lies in [q.From, q.To),
// ordered by Time (ties in insertion order), of q.Service when set, only
// errors and WARN-or-above when q.ErrorsOnly, at most q.Limit of them
// (0: Options.WindowLimit; the newest of them with q.Newest, see
// newest.go). An empty or inverted window yields nothing.
// A zero From means from the first record (records with a zero Time
// included); bounds beyond 1678-2262 are clamped.
func (db *DB) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	limit := q.Limit
	if limit <= 0 {
		limit = db.opts.WindowLimit
	}
	what := fmt.Sprintf("cannot read records from %s to %s",
		q.From.Format("2006-01-02T15:04:05.999Z07:00"), q.To.Format("2006-01-02T15:04:05.999Z07:00"))
	from, to := clampNanos(q.From), clampNanos(q.To)
	if !db.isLegacy(ctx) {
		return db.windowBlocks(ctx, what, q, from, to, limit, nil)
	}
	sqlText, args := windowSQL(from, to, q.Service, q.ErrorsOnly, limit)
	if q.Newest {
		// The newest limit records, in time order.
		sqlText = `SELECT rec FROM (SELECT rec, ts, rowid AS r FROM records` +
			strings.TrimPrefix(strings.Replace(sqlText, "ORDER BY ts, rowid", "ORDER BY ts DESC, rowid DESC", 1), selectCols) +
			`) ORDER BY ts, r`
	}
	return db.query(ctx, what, q.Attrs, sqlText, args...)
}

// windowSQL (for a file of schema version 1, read as it is) picks the statement whose WHERE clause lets SQLite use the
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
