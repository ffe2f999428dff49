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

// Resend delivers the dead letter id now (the message kept with it, or,
// when none was built, a new one from a fresh analysis), with at most
// Config.ResendAttempts Slack calls within Config.ResendDeadline.
// Delivered, it leaves the list; not delivered, it stays listed with its
// original reason and error, the resend's error beside them. Resending a
// letter already resent is ErrNoDeadLetter; one another request or
// process is resending right now is ErrResendInProgress (see claim.go):
// parallel resends deliver it once.
func (s *Service) Resend(ctx context.Context, id string) error {
	if s.docs == nil {
		return ErrNoDeadLetter
	}
	if !s.claimLocal(id) {
		return ErrResendInProgress
	}
	defer s.releaseLocal(id)
	if _, err := s.loadDeadLetter(ctx, id); err != nil {
		return err // not listed: no claim needed
	}
	token, err := s.claimStored(ctx, id)
	if err != nil {
		return err
	}
	defer s.releaseStored(id, token)
	// Loaded again under the claim: a rival may have delivered it meanwhile.
	dl, err := s.loadDeadLetter(ctx, id)
	if err != nil {
		return err
	}
	return s.resend(ctx, dl)
}

func (s *Service) resend(ctx context.Context, dl *DeadLetter) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ResendDeadline)
	defer cancel()
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
	if dl.Thread != nil {
		prev = Posted{Channel: dl.Thread.Channel, ThreadTS: dl.Thread.TS} // a reply stays a reply
	} else if st := s.loadState(ctx, dl.Group.ID); st != nil {
		prev = st.Posted
	}
	posted, attempts, err := s.deliver(ctx, msg, prev, budget{maxTries: s.cfg.ResendAttempts, deadline: now.Add(s.cfg.ResendDeadline)})
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("resend interrupted after %d attempts", attempts)
		} else if ctx.Err() != nil {
			err = fmt.Errorf("resend deadline of %v passed after %d attempts", s.cfg.ResendDeadline, attempts)
		}
		// The original Reason and Error stay: they say why it is here.
		dl.ResendError, dl.ResentAt = s.red.string(err.Error()), now.UTC()
		dl.Attempts, dl.Message = dl.Attempts+attempts, msg
		if perr := s.putDoc(deadLetterKind, dl.ID, dl); perr != nil {
			s.log.Warn("dead letter not updated after a failed resend", "dead_letter", dl.ID, "error", perr)
		}
		return fmt.Errorf("dead letter %s not delivered: %w", dl.ID, err)
	}
	s.m.delivered.WithLabelValues("resent").Inc()
	if dl.Thread == nil { // a reply's ts is not the group's message
		s.saveState(ctx, dl.Group, posted, prev, now, false)
	}
	s.log.Info("dead letter resent to Slack", "dead_letter", dl.ID, "group", dl.Group.ID)
	return s.unlistDeadLetter(context.WithoutCancel(ctx), dl.ID)
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
