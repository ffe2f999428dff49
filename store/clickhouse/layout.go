package clickhouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/faultline/faultline/schema"
)

// layout is what the database holds: the tables faultline knows and
// their columns with types. Reads and writes adapt to it, so tables the
// Collector created (of either generation) work as they are.
type layout struct {
	columns map[string]map[string]string // table → column → type
}

func (l *layout) has(table string) bool { _, ok := l.columns[table]; return ok }

func (l *layout) hasCol(table, col string) bool {
	_, ok := l.columns[table][col]
	return ok
}

func (l *layout) colType(table, col string) string { return l.columns[table][col] }

// knownTables are the tables a layout records.
var knownTables = []string{
	schema.TableLogs, schema.TableTraces, schema.TableTraceIDTs, schema.TableLogTraceIDTs,
	schema.TableErrors, schema.TableDocs, schema.TableMigrations,
}

// columns reads the columns of the known tables. On a cluster the data
// lives in *_local tables; they are reported under the plain name.
func (s *Store) columns(ctx context.Context) (map[string]map[string]string, error) {
	names := make([]string, 0, 2*len(knownTables))
	for _, t := range knownTables {
		names = append(names, quoteString(t), quoteString(t+"_local"))
	}
	q := fmt.Sprintf("SELECT table, name, type FROM system.columns WHERE database = %s AND table IN (%s)",
		quoteString(s.db), strings.Join(names, ", "))
	rows, err := s.conn.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("cannot read the columns of database %q: %w", s.db, err)
	}
	defer rows.Close()
	out := map[string]map[string]string{}
	for rows.Next() {
		var table, name, typ string
		if err := rows.Scan(&table, &name, &typ); err != nil {
			return nil, err
		}
		if s.opts.Cluster != "" {
			if !strings.HasSuffix(table, "_local") {
				continue
			}
			table = strings.TrimSuffix(table, "_local")
		} else if strings.HasSuffix(table, "_local") {
			continue
		}
		if out[table] == nil {
			out[table] = map[string]string{}
		}
		out[table][name] = typ
	}
	return out, rows.Err()
}

func (s *Store) detect(ctx context.Context) error {
	cols, err := s.columns(ctx)
	if err != nil {
		return err
	}
	// On a cluster, reads and writes go through the Distributed tables,
	// which have the plain names and the same columns.
	s.layout = &layout{columns: cols}
	return nil
}

// table is the qualified name of a table for reads and writes.
func (s *Store) table(name string) string { return quoteIdent(s.db) + "." + quoteIdent(name) }
