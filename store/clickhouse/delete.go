package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/faultline/faultline/schema"
)

// DeleteBefore removes the records older than t from the record tables and
// faultline's derived tables (a synchronous ALTER ... DELETE mutation) and
// reports how many records it removed.
func (s *Store) DeleteBefore(ctx context.Context, t time.Time) (int64, error) {
	n, err := s.deleteBefore(ctx, t)
	if err != nil {
		return n, fmt.Errorf("cannot delete records before %s: %w", t.UTC().Format(time.RFC3339), err)
	}
	return n, nil
}

func (s *Store) deleteBefore(ctx context.Context, t time.Time) (int64, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	if s.opts.ReadOnly {
		return 0, errReadOnly
	}
	ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"mutations_sync": 2}))
	cond := fmt.Sprintf("Timestamp < fromUnixTimestamp64Nano(toInt64(%d))", t.UnixNano())
	var total int64
	for _, table := range []string{schema.TableLogs, schema.TableTraces} {
		if !s.layout.has(table) {
			continue
		}
		n, err := s.deleteWhere(ctx, table, cond)
		if err != nil {
			return total, err
		}
		total += n
	}
	if s.layout.has(schema.TableErrors) {
		if _, err := s.deleteWhere(ctx, schema.TableErrors, cond); err != nil {
			return total, err
		}
	}
	// A lookup row goes when its whole trace is gone.
	endCond := fmt.Sprintf("End < toDateTime(%d)", t.Unix())
	for _, table := range []string{schema.TableTraceIDTs, schema.TableLogTraceIDTs} {
		if s.layout.has(table) {
			if _, err := s.deleteWhere(ctx, table, endCond); err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// deleteWhere counts the rows matching cond and deletes them.
func (s *Store) deleteWhere(ctx context.Context, table, cond string) (int64, error) {
	var n uint64
	if err := s.conn.QueryRow(ctx, "SELECT count() FROM "+s.table(table)+" WHERE "+cond).Scan(&n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	target, on := s.table(table), ""
	if s.opts.Cluster != "" {
		target, on = quoteIdent(s.db)+"."+quoteIdent(table+"_local"), " ON CLUSTER "+quoteIdent(s.opts.Cluster)
	}
	if err := s.conn.Exec(ctx, "ALTER TABLE "+target+on+" DELETE WHERE "+cond); err != nil {
		return 0, err
	}
	return int64(n), nil
}
