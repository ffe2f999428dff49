package runbookgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// DocStore keeps JSON documents by kind and id. The consumer owns this
// interface; both store backends implement it. PutDoc replaces a document
// with the same kind and id. GetDoc of a missing document returns an error
// that wraps schema.ErrNotFound.
type DocStore interface {
	PutDoc(ctx context.Context, kind, id string, doc []byte) error
	GetDoc(ctx context.Context, kind, id string) ([]byte, error)
}

// DocKind is the document kind runbooks are stored under.
const DocKind = "runbook"

// Sentinel errors of Save and Load.
var (
	// ErrBadID: an id that no runbook can have (see ValidID).
	ErrBadID = errors.New("not a runbook id")
	// ErrCorrupt: a stored document that is not a runbook.
	ErrCorrupt = errors.New("stored runbook is unreadable")
)

// Save stores rb under its id, and also under its candidate's id when that
// differs and is a valid id, so both find it.
func Save(ctx context.Context, ds DocStore, rb *Runbook) error {
	if rb == nil || !ValidID(rb.ID) {
		return fmt.Errorf("cannot save runbook: %w", ErrBadID)
	}
	doc, err := json.Marshal(rb)
	if err != nil {
		return fmt.Errorf("cannot save runbook %q: %w", rb.ID, err)
	}
	if err := ds.PutDoc(ctx, DocKind, rb.ID, doc); err != nil {
		return fmt.Errorf("cannot save runbook %q: %w", rb.ID, err)
	}
	if rb.CandidateID != "" && rb.CandidateID != rb.ID && ValidID(rb.CandidateID) {
		if err := ds.PutDoc(ctx, DocKind, rb.CandidateID, doc); err != nil {
			return fmt.Errorf("cannot save runbook %q as %q: %w", rb.ID, rb.CandidateID, err)
		}
	}
	return nil
}

// SaveAll saves every runbook, stopping at the first error.
func SaveAll(ctx context.Context, ds DocStore, rbs []*Runbook) error {
	for _, rb := range rbs {
		if err := Save(ctx, ds, rb); err != nil {
			return err
		}
	}
	return nil
}

// Load reads the runbook saved under id (a runbook id or a candidate id).
// A missing runbook returns an error wrapping schema.ErrNotFound.
func Load(ctx context.Context, ds DocStore, id string) (*Runbook, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("cannot load runbook %q: %w", cut(clean(id), 40), ErrBadID)
	}
	doc, err := ds.GetDoc(ctx, DocKind, id)
	if err != nil {
		return nil, fmt.Errorf("cannot load runbook %q: %w", id, err)
	}
	var rb Runbook
	if err := json.Unmarshal(doc, &rb); err != nil || rb.ID == "" {
		return nil, fmt.Errorf("cannot load runbook %q: %w", id, ErrCorrupt)
	}
	return &rb, nil
}
