package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/faultline/faultline/internal/cli"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// defaultWindow is the incident window when the request names none: the
// CLI's (analyze incident), so that / and the CLI rank the same window.
// An hour would swallow the baseline of an incident that began within it.
// On a store that holds less than twice this, the server's default is
// shorter (DefaultSince).
const defaultWindow = 30 * time.Minute

// maxServiceName caps the service filter's length.
const maxServiceName = 200

// windowInput is the incident window as the request gave it, kept for the
// picker: Since is set for a relative window ("30m").
type windowInput struct {
	Query IncidentQuery
	Since string
	// Note says why the default window is not defaultWindow (DefaultSince).
	Note string
}

// parseIncidentQuery reads from/to, since, service and top. With no window
// it is the last defaultWindow; since and from/to exclude each other.
func parseIncidentQuery(v url.Values, now time.Time, maxWindow time.Duration) (windowInput, error) {
	var in windowInput
	since, from, to := strings.TrimSpace(v.Get("since")), strings.TrimSpace(v.Get("from")), strings.TrimSpace(v.Get("to"))
	switch {
	case since != "" && (from != "" || to != ""):
		return in, fmt.Errorf("%w: give either since or from and to, not both", ErrBadInput)
	case since != "":
		d, err := parseSince(since)
		if err != nil {
			return in, err
		}
		in.Since, in.Query.From, in.Query.To = since, now.Add(-d), now
	case from != "" || to != "":
		f, t, err := parseRange(from, to, now)
		if err != nil {
			return in, err
		}
		in.Query.From, in.Query.To = f, t
	default:
		in.Since, in.Query.From, in.Query.To = fmtDuration(defaultWindow), now.Add(-defaultWindow), now
	}
	if in.Query.To.Sub(in.Query.From) > maxWindow {
		return in, fmt.Errorf("%w: the window is wider than the %s allowed; narrow it", ErrBadInput, fmtDuration(maxWindow))
	}
	svc, err := parseService(v.Get("service"))
	if err != nil {
		return in, err
	}
	in.Query.Service = svc
	in.Query.Top, err = parseTop(v.Get("top"))
	return in, err
}

// parseSince reads a relative window: a Go duration ("90s", "30m", "1h")
// or days ("2d"), checked for overflow: anything over cli.MaxDuration
// (3650d) is refused as too long rather than wrapped around.
func parseSince(s string) (time.Duration, error) {
	d, err := cli.ParseDuration(s, cli.MaxDuration)
	if err != nil {
		return 0, fmt.Errorf("%w: %s", ErrBadInput, cli.DurationError("since", s, err, cli.MaxDuration))
	}
	return d, nil
}

// parseRange reads from and to; a missing to means now.
func parseRange(from, to string, now time.Time) (time.Time, time.Time, error) {
	if from == "" {
		return time.Time{}, time.Time{}, fmt.Errorf("%w: to needs a from as well", ErrBadInput)
	}
	f, err := parseTime("from", from)
	if err != nil {
		return f, f, err
	}
	t := now
	if to != "" {
		if t, err = parseTime("to", to); err != nil {
			return f, t, err
		}
	}
	if !f.Before(t) {
		return f, t, fmt.Errorf("%w: from must be before to", ErrBadInput)
	}
	return f, t, nil
}

// parseTime reads RFC 3339, or the zone-less form an HTML datetime-local
// input sends (read as UTC).
func parseTime(name, s string) (time.Time, error) {
	for _, l := range [...]string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: %s %q is not an RFC 3339 time such as 2024-05-01T12:00:00Z", ErrBadInput, name, truncate(s, 40))
}

func parseService(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxServiceName || !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("%w: the service name is not valid (at most %d printable characters)", ErrBadInput, maxServiceName)
	}
	return s, nil
}

// parseTop reads how many candidates to return: 1..rootcause.MaxTop, the
// same as analyze incident --top; 0 when not given.
func parseTop(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > rootcause.MaxTop {
		return 0, fmt.Errorf("%w: top %q is not a number between 1 and %d", ErrBadInput, truncate(s, 20), rootcause.MaxTop)
	}
	return n, nil
}

// parseTraceID validates a trace id from a URL.
func parseTraceID(s string) (schema.TraceID, error) {
	id, err := schema.ParseTraceID(s)
	if err != nil {
		return "", fmt.Errorf("%w: %q is not a trace id (16 or 32 hex characters)", ErrBadInput, truncate(strings.ToValidUTF8(s, "?"), 48))
	}
	return id, nil
}

// parseRunbookID validates a runbook id: letters, digits, '.', '_', '-'.
func parseRunbookID(s string) (string, error) {
	ok := s != "" && len(s) <= 128
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if !ok {
		return "", fmt.Errorf("%w: %q is not a runbook id (letters, digits, '.', '_' and '-')", ErrBadInput, truncate(strings.ToValidUTF8(s, "?"), 48))
	}
	return s, nil
}

// fmtDuration prints a duration the way people say it: 15m, 1h, 2h30m, 7d.
func fmtDuration(d time.Duration) string {
	if d >= 24*time.Hour && d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
