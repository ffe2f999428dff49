package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// errReadOnly is returned by writes on a store opened read-only.
var errReadOnly = backend.ErrReadOnly

// Bounds is the time of the oldest and newest record; zero times when the
// store holds none.
func (s *Store) Bounds(ctx context.Context) (first, last time.Time, err error) {
	first, last, _, err = s.bounds(ctx)
	if err != nil {
		return first, last, fmt.Errorf("cannot read the time range of the store: %w", err)
	}
	return first, last, nil
}

func (s *Store) bounds(ctx context.Context) (first, last time.Time, n uint64, err error) {
	if err := s.check(); err != nil {
		return first, last, 0, err
	}
	var subs []string
	for _, t := range []string{schema.TableLogs, schema.TableTraces} {
		if s.layout.has(t) {
			subs = append(subs, "SELECT min(Timestamp) AS lo, max(Timestamp) AS hi, count() AS n FROM "+s.table(t))
		}
	}
	q := "SELECT toInt64(sum(n)), toInt64(toUnixTimestamp64Nano(minIf(lo, n > 0))), toInt64(toUnixTimestamp64Nano(maxIf(hi, n > 0))) FROM (" +
		strings.Join(subs, " UNION ALL ") + ")"
	var cnt, lo, hi int64
	if err := s.conn.QueryRow(ctx, q).Scan(&cnt, &lo, &hi); err != nil {
		return first, last, 0, err
	}
	if cnt == 0 {
		return first, last, 0, nil
	}
	return time.Unix(0, lo).UTC(), time.Unix(0, hi).UTC(), uint64(cnt), nil
}

// Stats describes the store for /healthz and the UI.
func (s *Store) Stats(ctx context.Context) (backend.Stats, error) {
	st := backend.Stats{Backend: "clickhouse", Location: s.location, ReadOnly: s.opts.ReadOnly}
	first, last, n, err := s.bounds(ctx)
	if err != nil {
		return st, fmt.Errorf("cannot read the store's statistics: %w", err)
	}
	st.First, st.Last, st.Records = first, last, int64(n)
	if st.SchemaVersion, err = s.schemaVersion(ctx); err != nil {
		return st, fmt.Errorf("cannot read the store's schema version: %w", err)
	}
	var bytes uint64
	q := "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = ?"
	if err := s.conn.QueryRow(ctx, q, s.db).Scan(&bytes); err == nil {
		st.Bytes = int64(bytes)
	}
	return st, nil
}
