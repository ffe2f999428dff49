package enrich

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/faultline/faultline/schema"
)

// Document kinds this package keeps in the store.
const (
	stateKind      = "enrich-slack"      // per alert group: its Slack message
	deadLetterKind = "enrich-deadletter" // per undelivered message, plus the index
	deadLetterIdx  = "index"
	maxDeadIndex   = 500 // dead letters listed; older ones stay stored, unlisted
	storeTimeout   = 5 * time.Second
)

// groupState is what is remembered of an alert group's Slack message.
type groupState struct {
	Posted
	Status      Status    `json:"status"`
	Hash        string    `json:"hash"`
	DeliveredAt time.Time `json:"delivered_at"`
	StartsAt    time.Time `json:"starts_at"`
	// ReplyDue: the message was updated for a change of the group and the
	// thread reply saying so is not yet delivered (nor dead-lettered), so a
	// restart sends the reply and not the update again.
	ReplyDue bool `json:"reply_due,omitempty"`
}

// DeadLetter is a message that could not be delivered, kept so an operator
// can see (and resend) it. Error is redacted.
type DeadLetter struct {
	ID       string    `json:"id"`
	At       time.Time `json:"at"`
	Reason   string    `json:"reason"` // slack, shutdown, restart
	Error    string    `json:"error"`
	Attempts int       `json:"attempts"`
	// ResendError is the latest failed resend's error (redacted), at
	// ResentAt; Reason and Error keep why the letter was made.
	ResendError string    `json:"resend_error,omitempty"`
	ResentAt    time.Time `json:"resent_at,omitzero"`
	Group       *Group    `json:"group"`
	Message     *Message  `json:"message,omitempty"`
	// Thread, when set, makes the letter a reply in the thread of that
	// message (a change of the group whose message was already updated).
	Thread *Posted `json:"thread,omitempty"`
}

func (s *Service) loadState(ctx context.Context, id string) *groupState {
	if s.docs == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	doc, err := s.docs.GetDoc(ctx, stateKind, id)
	if errors.Is(err, schema.ErrNotFound) {
		return nil
	}
	var st groupState
	if err == nil {
		err = json.Unmarshal(doc, &st)
	}
	if err != nil {
		s.log.Warn("Slack state of the alert group unreadable; a new message will be posted", "group", id, "error", err)
		return nil
	}
	return &st
}

func (s *Service) saveState(ctx context.Context, g *Group, posted, prev Posted, now time.Time, replyDue bool) {
	if s.docs == nil {
		return
	}
	if posted.TS == "" {
		posted = prev // a webhook cannot edit; keep what we knew
	}
	posted.ThreadTS = ""
	doc, _ := json.Marshal(groupState{Posted: posted, Status: g.Status, Hash: g.Hash, DeliveredAt: now,
		StartsAt: g.StartsAt, ReplyDue: replyDue})
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := s.docs.PutDoc(ctx, stateKind, g.ID, doc); err != nil {
		s.log.Warn("Slack state of the alert group not kept; a resend may post again", "group", g.ID, "error", err)
	}
}

// deadLetter keeps an undelivered message. When even that fails the alert
// is logged in full (without secrets), so it is never silently dropped.
func (s *Service) deadLetter(g *Group, msg *Message, reason, errText string, attempts int) {
	s.deadLetterIn(g, msg, nil, reason, errText, attempts)
}

// deadLetterIn is deadLetter of a message bound for thread (nil: none).
func (s *Service) deadLetterIn(g *Group, msg *Message, thread *Posted, reason, errText string, attempts int) {
	now := s.cfg.Now().UTC()
	id := g.ID + "-" + string(g.Status) + "-" + strconv.FormatInt(now.UnixNano(), 10)
	if thread != nil {
		id += "-reply"
	}
	dl := DeadLetter{ID: id, At: now, Reason: reason, Error: s.red.string(errText), Attempts: attempts,
		Group: g, Message: msg, Thread: thread}
	s.m.deadLetters.WithLabelValues(reason).Inc()
	err := s.putDeadLetter(dl)
	if err != nil {
		s.log.Error("alert not delivered to Slack and not kept", "group", g.ID, "status", g.Status,
			"title", g.Title, "service", g.Service, "severity", g.Severity, "starts_at", g.StartsAt,
			"summary", g.Summary, "reason", reason, "error", dl.Error, "store_error", err)
		return
	}
	s.log.Error("alert not delivered to Slack; kept as a dead letter", "dead_letter", dl.ID,
		"title", g.Title, "service", g.Service, "reason", reason, "error", dl.Error)
}

func (s *Service) putDeadLetter(dl DeadLetter) error {
	if s.docs == nil {
		return errors.New("no document store")
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	doc, err := json.Marshal(dl)
	if err != nil {
		return err
	}
	if err := s.docs.PutDoc(ctx, deadLetterKind, dl.ID, doc); err != nil {
		return err
	}
	s.dlMu.Lock()
	defer s.dlMu.Unlock()
	ids, err := deadLetterIDs(ctx, s.docs)
	if err != nil {
		return fmt.Errorf("dead letter kept but not listed: %w", err)
	}
	ids = append(ids, dl.ID)
	if len(ids) > maxDeadIndex {
		ids = ids[len(ids)-maxDeadIndex:]
	}
	idx, _ := json.Marshal(ids)
	return s.docs.PutDoc(ctx, deadLetterKind, deadLetterIdx, idx)
}

func deadLetterIDs(ctx context.Context, docs DocStore) ([]string, error) {
	doc, err := docs.GetDoc(ctx, deadLetterKind, deadLetterIdx)
	if errors.Is(err, schema.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	if err := json.Unmarshal(doc, &ids); err != nil {
		return nil, nil // a corrupt index starts over; the letters stay stored
	}
	return ids, nil
}

// DeadLetters lists the kept dead letters, newest first (at most 500).
func (s *Service) DeadLetters(ctx context.Context) ([]DeadLetter, error) {
	if s.docs == nil {
		return nil, nil
	}
	s.dlMu.Lock()
	defer s.dlMu.Unlock()
	return ListDeadLetters(ctx, s.docs)
}

// ListDeadLetters lists the dead letters kept in docs, newest first (at
// most 500). It needs no Slack configuration (analyze dlq list).
func ListDeadLetters(ctx context.Context, docs DocStore) ([]DeadLetter, error) {
	ids, err := deadLetterIDs(ctx, docs)
	if err != nil {
		return nil, fmt.Errorf("cannot list dead letters: %w", err)
	}
	out := make([]DeadLetter, 0, len(ids))
	for i := len(ids) - 1; i >= 0; i-- {
		doc, err := docs.GetDoc(ctx, deadLetterKind, ids[i])
		if err != nil {
			continue
		}
		var dl DeadLetter
		if json.Unmarshal(doc, &dl) == nil {
			out = append(out, dl)
		}
	}
	return out, nil
}
