package clickhouse

import (
	"context"
	"fmt"

	"github.com/faultline/faultline/schema"
)

// migrate creates the database and applies the migrations not yet
// recorded in schema_migrations, each statement in order. Every statement
// is idempotent (IF NOT EXISTS), so a migration interrupted half-way is
// simply run again.
func (s *Store) migrate(ctx context.Context) error {
	p := newDDLParams(s.db, s.opts.Cluster, nil)
	if err := s.conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+p.DB+" "+p.OnCluster); err != nil {
		return fmt.Errorf("cannot create database %q: %w", s.db, err)
	}
	if err := s.conn.Exec(ctx, migrationsTableDDL(p)); err != nil {
		return fmt.Errorf("cannot create %s: %w", schema.TableMigrations, err)
	}
	done, err := s.appliedVersions(ctx)
	if err != nil {
		return err
	}
	all, err := migrations()
	if err != nil {
		return err
	}
	for _, m := range all {
		if done[m.version] {
			continue
		}
		if err := s.apply(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func migrationsTableDDL(p *ddlParams) string {
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.%s %s (
    Version UInt32,
    Name String,
    AppliedAt DateTime DEFAULT now()
) ENGINE = %s ORDER BY Version`, p.DB, quoteIdent(schema.TableMigrations), p.OnCluster, p.engine("ReplacingMergeTree"))
}

func (s *Store) appliedVersions(ctx context.Context) (map[int]bool, error) {
	rows, err := s.conn.Query(ctx, fmt.Sprintf("SELECT DISTINCT Version FROM %s.%s", quoteIdent(s.db), quoteIdent(schema.TableMigrations)))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", schema.TableMigrations, err)
	}
	defer rows.Close()
	done := map[int]bool{}
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		done[int(v)] = true
	}
	return done, rows.Err()
}

func (s *Store) apply(ctx context.Context, m migration) error {
	cols, err := s.columns(ctx)
	if err != nil {
		return err
	}
	stmts, err := newDDLParams(s.db, s.opts.Cluster, cols).render(m)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if err := s.conn.Exec(ctx, st); err != nil {
			return fmt.Errorf("cannot apply migration %d %q: %w", m.version, m.name, err)
		}
	}
	err = s.conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s.%s (Version, Name) VALUES (%d, %s)",
		quoteIdent(s.db), quoteIdent(schema.TableMigrations), m.version, quoteString(m.name)))
	if err != nil {
		return fmt.Errorf("cannot record migration %d %q: %w", m.version, m.name, err)
	}
	s.log.Info("applied ClickHouse migration", "version", m.version, "name", m.name)
	return nil
}

// schemaVersion is the newest applied migration, 0 when none is recorded.
func (s *Store) schemaVersion(ctx context.Context) (int, error) {
	if !s.layout.has(schema.TableMigrations) {
		return 0, nil
	}
	done, err := s.appliedVersions(ctx)
	if err != nil {
		return 0, err
	}
	max := 0
	for v := range done {
		if v > max {
			max = v
		}
	}
	return max, nil
}
