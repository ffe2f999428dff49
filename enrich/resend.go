package enrich

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/faultline/faultline/schema"
)

// ErrNoDeadLetter is a dead-letter id that is not (or no longer) listed.
var ErrNoDeadLetter = errors.New("no such dead letter")

// Resend delivers the dead letter id now, with the usual retries and
// breaker (the message kept with it, or, when none was built, a new one
// from a fresh analysis). Delivered, it leaves the list; not delivered, it
// stays listed with the new error. Resending a letter already resent is
// ErrNoDeadLetter.
func (s *Service) Resend(ctx context.Context, id string) error {
	if s.docs == nil {
		return ErrNoDeadLetter
	}
	dl, err := s.loadDeadLetter(ctx, id)
	if err != nil {
		return err
	}
	now := s.cfg.Now()
	msg := dl.Message
	if msg == nil {
		a := Analyze(ctx, s.an, dl.Group, now, AnalyzeOptions{LookBack: s.cfg.LookBack,
			MaxWindow: s.cfg.MaxWindow, Timeout: s.cfg.AnalysisTimeout, Top: s.cfg.Top})
		opt := s.mopts
		opt.Now = now
		msg = BuildMessage(dl.Group, a, opt)
	}
	var prev Posted
	if st := s.loadState(ctx, dl.Group.ID); st != nil {
		prev = st.Posted
	}
	posted, attempts, err := s.deliver(ctx, msg, prev)
	if err != nil {
		dl.Error, dl.Attempts, dl.Message = s.red.string(err.Error()), dl.Attempts+attempts, msg
		if perr := s.putDoc(deadLetterKind, dl.ID, dl); perr != nil {
			s.log.Warn("dead letter not updated after a failed resend", "dead_letter", dl.ID, "error", perr)
		}
		return fmt.Errorf("dead letter %s not delivered: %w", dl.ID, err)
	}
	s.m.delivered.WithLabelValues("resent").Inc()
	s.saveState(ctx, dl.Group, posted, prev, now)
	s.log.Info("dead letter resent to Slack", "dead_letter", dl.ID, "group", dl.Group.ID)
	return s.unlistDeadLetter(ctx, dl.ID)
}

func (s *Service) loadDeadLetter(ctx context.Context, id string) (*DeadLetter, error) {
	s.dlMu.Lock()
	ids, err := deadLetterIDs(ctx, s.docs)
	s.dlMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("cannot list dead letters: %w", err)
	}
	if !slices.Contains(ids, id) {
		return nil, fmt.Errorf("%w: %q", ErrNoDeadLetter, cut(id, 80))
	}
	doc, err := s.docs.GetDoc(ctx, deadLetterKind, id)
	if errors.Is(err, schema.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrNoDeadLetter, cut(id, 80))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot load dead letter %q: %w", cut(id, 80), err)
	}
	var dl DeadLetter
	if err := json.Unmarshal(doc, &dl); err != nil || dl.Group == nil {
		return nil, fmt.Errorf("dead letter %q is unreadable", cut(id, 80))
	}
	return &dl, nil
}

func (s *Service) unlistDeadLetter(ctx context.Context, id string) error {
	s.dlMu.Lock()
	defer s.dlMu.Unlock()
	ids, err := deadLetterIDs(ctx, s.docs)
	if err != nil {
		return fmt.Errorf("dead letter %s delivered but still listed: %w", id, err)
	}
	if i := slices.Index(ids, id); i >= 0 {
		ids = slices.Delete(ids, i, i+1)
	}
	if ids == nil {
		ids = []string{}
	}
	if err := s.putDoc(deadLetterKind, deadLetterIdx, ids); err != nil {
		return fmt.Errorf("dead letter %s delivered but still listed: %w", id, err)
	}
	return nil
}

func (s *Service) putDoc(kind, id string, v any) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	return s.docs.PutDoc(ctx, kind, id, doc)
}
