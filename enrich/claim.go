package enrich

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/faultline/faultline/schema"
)

// ErrResendInProgress is a resend of a dead letter that another request
// (in this process or another one on the same store) is resending now.
var ErrResendInProgress = errors.New("that dead letter is being resent right now")

// A resend claims its dead letter first, so parallel resends (several web
// requests, several "analyze dlq resend" processes, or both at once on the
// same store) deliver it once. Within a process a map of ids in flight
// decides. Across processes the store has no compare-and-set, so the
// claim is a document written with a random token and read back after
// claimSettle: a rival that read "no claim" writes its own within
// milliseconds, and whichever write lands last wins; the others see a
// token not theirs and back off. A claim expires (claimTTL) so a crashed
// resender does not block the letter for good.
const (
	claimKind   = "enrich-resend-claim"
	claimTTL    = 2 * time.Minute
	claimSettle = 250 * time.Millisecond
)

// resendClaim is the stored claim: "resending since T by pid P".
type resendClaim struct {
	Token   string    `json:"token"`
	PID     int       `json:"pid"`
	Since   time.Time `json:"since"`
	Expires time.Time `json:"expires"`
}

func (c *resendClaim) live(now time.Time) bool {
	return c != nil && c.Token != "" && now.Before(c.Expires)
}

// claimLocal marks id in flight in this process; false when it already is.
func (s *Service) claimLocal(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resending[id] {
		return false
	}
	s.resending[id] = true
	return true
}

func (s *Service) releaseLocal(id string) {
	s.mu.Lock()
	delete(s.resending, id)
	s.mu.Unlock()
}

func (s *Service) loadClaim(ctx context.Context, id string) (*resendClaim, error) {
	doc, err := s.docs.GetDoc(ctx, claimKind, id)
	if errors.Is(err, schema.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c resendClaim
	if json.Unmarshal(doc, &c) != nil {
		return nil, nil // unreadable: as if unclaimed
	}
	return &c, nil
}

// claimStored takes the store claim of dead letter id, or says who holds it.
func (s *Service) claimStored(ctx context.Context, id string) (string, error) {
	now := time.Now().UTC()
	cur, err := s.loadClaim(ctx, id)
	if err != nil {
		return "", fmt.Errorf("cannot claim dead letter %q for the resend: %w", cut(id, 80), err)
	}
	if cur.live(now) {
		return "", claimHeld(cur)
	}
	var b [16]byte
	rand.Read(b[:])
	mine := resendClaim{Token: hex.EncodeToString(b[:]), PID: os.Getpid(), Since: now, Expires: now.Add(claimTTL)}
	if err := s.putDoc(claimKind, id, mine); err != nil {
		return "", fmt.Errorf("cannot claim dead letter %q for the resend: %w", cut(id, 80), err)
	}
	if err := sleepCtx(ctx, s.cfg.ClaimSettle); err != nil {
		return "", err
	}
	cur, err = s.loadClaim(ctx, id)
	if err != nil {
		return "", fmt.Errorf("cannot claim dead letter %q for the resend: %w", cut(id, 80), err)
	}
	if cur == nil || cur.Token != mine.Token {
		return "", claimHeld(cur)
	}
	return mine.Token, nil
}

func claimHeld(c *resendClaim) error {
	if c == nil {
		return ErrResendInProgress
	}
	return fmt.Errorf("%w (by process %d since %s)", ErrResendInProgress, c.PID, c.Since.Format(time.RFC3339))
}

// releaseStored ends our claim (an expired one in its place), unless a
// rival has taken it since.
func (s *Service) releaseStored(id, token string) {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	if cur, err := s.loadClaim(ctx, id); err != nil || cur == nil || cur.Token != token {
		return
	}
	if err := s.putDoc(claimKind, id, resendClaim{}); err != nil {
		s.log.Warn("resend claim not released; it expires by itself", "dead_letter", id, "error", err)
	}
}
