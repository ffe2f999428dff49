package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// maxDocKey bounds a document's kind and id.
const maxDocKey = 512

// PutDoc stores doc under (kind, id), replacing any previous document with
// that key. Kind and id must be non-empty. doc is copied.
func (db *DB) PutDoc(ctx context.Context, kind, id string, doc []byte) error {
	if err := db.putDoc(ctx, kind, id, doc); err != nil {
		return fmt.Errorf("cannot store %s document %q: %w", truncate(kind), truncate(id), explain(err))
	}
	return nil
}

func (db *DB) putDoc(ctx context.Context, kind, id string, doc []byte) error {
	if err := checkDocKey(kind, id); err != nil {
		return err
	}
	w, err := db.writer()
	if err != nil {
		return err
	}
	if doc == nil {
		doc = []byte{}
	}
	_, err = w.ExecContext(ctx, `INSERT INTO docs (kind, id, doc, updated) VALUES (?, ?, ?, ?)
		ON CONFLICT (kind, id) DO UPDATE SET doc = excluded.doc, updated = excluded.updated`,
		kind, id, doc, time.Now().UnixNano())
	return err
}

// GetDoc returns the document stored under (kind, id); an absent one is an
// error wrapping schema.ErrNotFound. The result is the caller's.
func (db *DB) GetDoc(ctx context.Context, kind, id string) ([]byte, error) {
	doc, err := db.getDoc(ctx, kind, id)
	if err != nil {
		return nil, fmt.Errorf("cannot load %s document %q: %w", truncate(kind), truncate(id), explain(err))
	}
	return doc, nil
}

func (db *DB) getDoc(ctx context.Context, kind, id string) ([]byte, error) {
	if err := checkDocKey(kind, id); err != nil {
		return nil, err
	}
	r, err := db.reader()
	if err != nil {
		return nil, err
	}
	doc := []byte{}
	err = r.QueryRowContext(ctx, `SELECT doc FROM docs WHERE kind = ? AND id = ?`, kind, id).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, schema.ErrNotFound
	}
	return doc, err
}

func checkDocKey(kind, id string) error {
	if kind == "" || id == "" || len(kind) > maxDocKey || len(id) > maxDocKey {
		return backend.ErrBadDoc
	}
	return nil
}
