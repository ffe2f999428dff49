package enrich

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/faultline/faultline/schema"
)

// The journal keeps every accepted alert group in the store from before
// the hook answers 202 until it is delivered, dropped as a resend or kept
// as a dead letter. A crash (kill -9, OOM, power loss with the store's
// durability) therefore loses no accepted alert: Resume, at the next
// start, queues what is left again, or dead-letters it when the queue
// cannot take it. The store has no delete: a finished entry leaves the
// index, its small document stays.
const (
	journalKind = "enrich-accepted"
	journalIdx  = "index"
)

// ErrNotKept is returned by Enqueue when the alert could not be written to
// the store, so accepting it could lose it: the hook answers 503 and the
// notifier retries.
var ErrNotKept = errors.New("the alert could not be kept in the store; retry later")

// journalEntry is one accepted, undelivered alert group.
type journalEntry struct {
	Key        string    `json:"key"`
	AcceptedAt time.Time `json:"accepted_at"`
	Group      *Group    `json:"group"`
	Attempts   int       `json:"attempts,omitempty"` // Slack calls made so far, all runs
}

// journalTries keeps the running count of Slack calls of j, so a restart
// continues its budget instead of starting it over.
func (s *Service) journalTries(j *job, tries int) {
	if !s.journaling() || j.key == "" {
		return
	}
	doc, err := json.Marshal(journalEntry{Key: j.key, AcceptedAt: j.accepted.UTC(), Group: j.g, Attempts: tries})
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	if err := s.docs.PutDoc(ctx, journalKind, j.key, doc); err != nil {
		s.log.Debug("attempt count not kept in the journal", "alert", j.key, "error", err)
	}
}

func (s *Service) journaling() bool { return s.docs != nil && !s.cfg.NoJournal }

// loadJournal reads the index at start; a missing one is empty.
func (s *Service) loadJournal(ctx context.Context) error {
	if !s.journaling() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	doc, err := s.docs.GetDoc(ctx, journalKind, journalIdx)
	if errors.Is(err, schema.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read the accepted-alert journal: %w", err)
	}
	var keys []string
	if err := json.Unmarshal(doc, &keys); err != nil {
		s.log.Warn("accepted-alert journal index unreadable; starting a new one", "error", err)
		return nil
	}
	s.jMu.Lock()
	s.journal = keys
	s.jMu.Unlock()
	return nil
}

// journalAdd keeps g before it is queued: the entry first, then the index.
func (s *Service) journalAdd(key string, g *Group) error {
	if !s.journaling() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	doc, err := json.Marshal(journalEntry{Key: key, AcceptedAt: s.cfg.Now().UTC(), Group: g})
	if err != nil {
		return err
	}
	if err := s.docs.PutDoc(ctx, journalKind, key, doc); err != nil {
		return err
	}
	s.jMu.Lock()
	defer s.jMu.Unlock()
	if slices.Contains(s.journal, key) {
		return nil
	}
	keys := append(slices.Clone(s.journal), key)
	if err := s.putJournalIndex(ctx, keys); err != nil {
		return err
	}
	s.journal = keys
	return nil
}

// journalDone takes key off the index once its alert is settled.
func (s *Service) journalDone(key string) {
	if !s.journaling() {
		return
	}
	s.jMu.Lock()
	defer s.jMu.Unlock()
	i := slices.Index(s.journal, key)
	if i < 0 {
		return
	}
	keys := slices.Delete(slices.Clone(s.journal), i, i+1)
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	if err := s.putJournalIndex(ctx, keys); err != nil {
		// Kept in the index: a restart resumes it, and the Slack state
		// makes that a dropped resend.
		s.log.Warn("settled alert not taken off the journal; a restart will look at it again", "alert", key, "error", err)
		return
	}
	s.journal = keys
}

func (s *Service) putJournalIndex(ctx context.Context, keys []string) error {
	if keys == nil {
		keys = []string{}
	}
	idx, _ := json.Marshal(keys)
	return s.docs.PutDoc(ctx, journalKind, journalIdx, idx)
}

// Resume queues the alerts a previous run accepted and did not settle
// (it crashed or was killed), and dead-letters those the queue cannot
// take. It reports how many were queued again. Call it once, after New,
// in the process that serves the hooks.
func (s *Service) Resume(ctx context.Context) (int, error) {
	if !s.journaling() {
		return 0, nil
	}
	s.jMu.Lock()
	keys := slices.Clone(s.journal)
	s.jMu.Unlock()
	resumed := 0
	for _, key := range keys {
		e, err := s.journalGroup(ctx, key)
		if err != nil {
			s.log.Error("accepted alert unreadable in the journal; dropped from it", "alert", key, "error", err)
			s.journalDone(key)
			continue
		}
		g := e.Group
		if e.AcceptedAt.IsZero() {
			e.AcceptedAt = s.cfg.Now()
		}
		if e.Attempts >= s.cfg.MaxAttempts || !s.cfg.Now().Before(e.AcceptedAt.Add(s.cfg.DeliveryBudget)) {
			s.deadLetter(g, nil, "slack", fmt.Sprintf("gave up after %d attempts since %s (delivery budget %v, attempts kept across restarts)",
				e.Attempts, e.AcceptedAt.UTC().Format(time.RFC3339), s.cfg.DeliveryBudget), e.Attempts)
			s.journalDone(key)
			continue
		}
		switch ok, err := s.requeue(&job{g: g, key: key, accepted: e.AcceptedAt, spent: e.Attempts}); {
		case err != nil:
			s.deadLetter(g, nil, "restart", "faultline restarted with the alert queue full: "+err.Error(), 0)
			s.journalDone(key)
		case ok:
			resumed++
		}
	}
	if resumed > 0 {
		s.log.Info("resumed alerts accepted before a restart", "alerts", resumed)
	}
	return resumed, nil
}

func (s *Service) journalGroup(ctx context.Context, key string) (*journalEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	doc, err := s.docs.GetDoc(ctx, journalKind, key)
	if err != nil {
		return nil, err
	}
	var e journalEntry
	if err := json.Unmarshal(doc, &e); err != nil {
		return nil, err
	}
	if e.Group == nil || e.Group.ID == "" {
		return nil, errors.New("no alert group in the entry")
	}
	return &e, nil
}

// requeue queues a journalled group without writing it again.
func (s *Service) requeue(j *job) (bool, error) {
	key, g := j.key, j.g
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, ErrClosed
	}
	if s.pending[key] {
		return false, nil
	}
	ch := s.shards[shardOf(g.ID, len(s.shards))]
	if len(ch) == cap(ch) {
		return false, ErrQueueFull
	}
	ch <- j
	s.pending[key] = true
	s.m.queued.Inc()
	return true, nil
}
