package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// maxDocKey bounds a document's kind and id.
const maxDocKey = 512

// PutDoc stores doc under (kind, id) in faultline_docs, replacing any
// previous document with that key (the newest version wins on read).
func (s *Store) PutDoc(ctx context.Context, kind, id string, doc []byte) error {
	if err := s.putDoc(ctx, kind, id, doc); err != nil {
		return fmt.Errorf("cannot store %s document %q: %w", truncate(kind, 40), truncate(id, 80), err)
	}
	return nil
}

func (s *Store) putDoc(ctx context.Context, kind, id string, doc []byte) error {
	if err := checkDocKey(kind, id); err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	if s.opts.ReadOnly {
		return errReadOnly
	}
	b, err := s.conn.PrepareBatch(ctx, "INSERT INTO "+s.table(schema.TableDocs)+" (Kind, Id, Body, Version)")
	if err != nil {
		return err
	}
	if err := b.Append(kind, id, string(doc), time.Now()); err != nil {
		b.Abort()
		return err
	}
	return b.Send()
}

// GetDoc returns the newest document under (kind, id); an absent one is an
// error wrapping schema.ErrNotFound.
func (s *Store) GetDoc(ctx context.Context, kind, id string) ([]byte, error) {
	doc, err := s.getDoc(ctx, kind, id)
	if err != nil {
		return nil, fmt.Errorf("cannot load %s document %q: %w", truncate(kind, 40), truncate(id, 80), err)
	}
	return doc, nil
}

func (s *Store) getDoc(ctx context.Context, kind, id string) ([]byte, error) {
	if err := checkDocKey(kind, id); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	if !s.layout.has(schema.TableDocs) {
		return nil, schema.ErrNotFound
	}
	var n uint64
	var body string
	q := "SELECT count(), argMax(Body, Version) FROM " + s.table(schema.TableDocs) + " WHERE Kind = ? AND Id = ?"
	if err := s.conn.QueryRow(ctx, q, kind, id).Scan(&n, &body); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, schema.ErrNotFound
	}
	return []byte(body), nil
}

func checkDocKey(kind, id string) error {
	if kind == "" || id == "" || len(kind) > maxDocKey || len(id) > maxDocKey {
		return backend.ErrBadDoc
	}
	return nil
}
