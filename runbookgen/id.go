package runbookgen

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/faultline/faultline/schema"
)

// MaxIDLen caps a runbook id (and any id Load accepts).
const MaxIDLen = 128

// maxSlugLen caps the service part of an id.
const maxSlugLen = 40

// RunbookID is the stable part of a candidate's runbook id: the service
// as a slug, the kind, and a hash of service, kind and signature, e.g.
// "payment-db-pool-exhaustion-3f2a9c1b04d7". The same inputs give the same
// id in every run and every version; the id is URL-safe. A saved runbook's
// id adds a hash of its text to it (versionID).
func RunbookID(service string, kind schema.Kind, sig schema.Signature) string {
	h := sha256.New()
	for _, part := range []string{service, string(kind), string(sig)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	sum := hex.EncodeToString(h.Sum(nil))[:12]
	parts := []string{slug(service), slug(string(kind)), sum}
	if parts[0] == "" {
		parts = parts[1:]
	}
	return strings.Join(parts, "-")
}

// versionLen is the length of the content hash that ends a candidate
// runbook's id.
const versionLen = 8

// versionID is the id of one version of a candidate's runbook: its stable
// id (RunbookID) and a hash of what the runbook says, so that a link keeps
// the text it was given with. The same text gives the same id; any other
// analysis that changes a word gives another id, and the older version
// stays under its own.
func versionID(stable string, rb *Runbook) string {
	h := sha256.New()
	for _, part := range append([]string{rb.Title, string(rb.Kind), rb.Service, rb.Severity, rb.SeverityReason,
		rb.MTTRTarget, rb.Markdown, rb.Source}, rb.Notes...) {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return stable + "-" + hex.EncodeToString(h.Sum(nil))[:versionLen]
}

// ServiceKey is the id under which the runbook of the best-ranked
// candidate of a service in the latest analysis is also kept (SaveAll),
// for a trace whose suspect is that service to link its incident's
// runbook (ForSuspect).
func ServiceKey(service string) string {
	sum := sha256.Sum256([]byte(service))
	parts := []string{"latest", slug(service), hex.EncodeToString(sum[:])[:12]}
	if parts[1] == "" {
		parts = []string{parts[0], parts[2]}
	}
	return strings.Join(parts, "-")
}

// slug lowercases s and keeps letters and digits, joining the rest with
// single dashes, cut to maxSlugLen.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= maxSlugLen {
				break
			}
			continue
		}
		dash = true
	}
	return strings.TrimRight(b.String(), "-")
}

// ValidID reports whether id can name a runbook: 1 to MaxIDLen characters
// from [A-Za-z0-9._-], not starting with a dot. Every id this package makes
// is valid.
func ValidID(id string) bool {
	if id == "" || len(id) > MaxIDLen || id[0] == '.' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}
