package runbookgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
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
// differs and is a valid id, so both find it. A candidate runbook's id
// names its text (versionID), so saving another analysis's runbook never
// rewrites an older one; the candidate's id follows the latest.
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

// versionEvery is how long the latest version of a candidate's runbook
// stands for later analyses of an overlapping window that give it the same
// severity: a page that refreshes itself every few seconds over "the last
// 30 minutes" would otherwise write a new version each time.
const versionEvery = 5 * time.Minute

// SaveAll saves every runbook, stopping at the first error. A runbook
// whose candidate's latest version was written less than versionEvery
// before it, for an overlapping window, with the same severity, is not
// saved: *rb becomes that version, and the caller links it (Ref) in its
// place. The first runbook of each service (the best-ranked candidate, in
// Attach's order) is also kept under ServiceKey, for ForSuspect.
func SaveAll(ctx context.Context, ds DocStore, rbs []*Runbook) error {
	seen := map[string]bool{}
	for _, rb := range rbs {
		if prev := standing(ctx, ds, rb); prev != nil {
			*rb = *prev
		} else if err := Save(ctx, ds, rb); err != nil {
			return err
		}
		if rb.Generic || rb.Service == "" || seen[rb.Service] {
			continue
		}
		seen[rb.Service] = true
		doc, err := json.Marshal(rb)
		if err == nil {
			err = ds.PutDoc(ctx, DocKind, ServiceKey(rb.Service), doc)
		}
		if err != nil {
			return fmt.Errorf("cannot save runbook %q as the latest of its service: %w", rb.ID, err)
		}
	}
	return nil
}

// standing is the saved latest version of rb's candidate when it still
// stands for rb (see SaveAll), else nil.
func standing(ctx context.Context, ds DocStore, rb *Runbook) *Runbook {
	if rb == nil || rb.CandidateID == "" || rb.Written.IsZero() || !ValidID(rb.CandidateID) {
		return nil
	}
	prev, err := Load(ctx, ds, rb.CandidateID)
	if err != nil || prev.ID == rb.ID || prev.Written.IsZero() || prev.Service != rb.Service || prev.Kind != rb.Kind ||
		prev.Severity != rb.Severity || prev.MTTRTarget != rb.MTTRTarget {
		return nil
	}
	age := rb.Written.Sub(prev.Written)
	overlap := prev.From.Before(rb.To) && rb.From.Before(prev.To)
	if age < 0 || age >= versionEvery || !overlap || rb.To.Before(prev.To) {
		return nil
	}
	return prev
}

// suspectSlack is how long after an incident window a trace may start and
// still be linked to that incident's runbook.
const suspectSlack = time.Hour

// ForSuspect returns the runbook the latest analysis wrote for service,
// when the trace that started at start (zero: any time) falls in its
// incident window or up to suspectSlack after it: the runbook a trace page
// links for its suspect. None wraps schema.ErrNotFound.
func ForSuspect(ctx context.Context, ds DocStore, service string, start time.Time) (*Runbook, error) {
	if service == "" {
		return nil, fmt.Errorf("cannot find the runbook of no service: %w", schema.ErrNotFound)
	}
	rb, err := Load(ctx, ds, ServiceKey(service))
	if err != nil {
		return nil, err
	}
	if rb.Service != service {
		return nil, fmt.Errorf("no runbook for service %q: %w", cut(clean(service), 40), schema.ErrNotFound)
	}
	if !start.IsZero() && !rb.From.IsZero() && (start.Before(rb.From) || start.After(rb.To.Add(suspectSlack))) {
		return nil, fmt.Errorf("the latest runbook of %q is of another incident window: %w", cut(clean(service), 40), schema.ErrNotFound)
	}
	return rb, nil
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
