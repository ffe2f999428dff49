package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/faultline/faultline/store/clickhouse"
	"github.com/faultline/faultline/store/sqlite"
)

// DefaultPath is the embedded store used when neither --store nor
// $FAULTLINE_STORE names one.
const DefaultPath = "./faultline.db"

// ErrUnsupported is returned for a store URL whose backend this binary
// does not have.
var ErrUnsupported = errors.New("unsupported store")

// ErrBadURL is wrapped by the errors of a store URL that cannot name a
// store as written (a malformed file: or clickhouse:// URL, an unknown
// scheme, which wraps ErrUnsupported too): a usage error, found without I/O.
var ErrBadURL = errors.New("bad store URL")

// Options configure Open for every backend.
type Options struct {
	// ReadOnly opens an existing store for reading only.
	ReadOnly bool
	// Check verifies the embedded store's file on a read-write open
	// (a bounded quick_check): writers ask for it, readers find damage
	// when a read reaches it.
	Check bool
	// Logger receives the backend's messages; nil discards them.
	Logger *slog.Logger
}

// DefaultURL is $FAULTLINE_STORE when set, else DefaultPath.
func DefaultURL(getenv func(string) string) string {
	if getenv != nil {
		if v := strings.TrimSpace(getenv("FAULTLINE_STORE")); v != "" {
			return v
		}
	}
	return DefaultPath
}

// Open opens the store rawURL names: a plain path or a file: URL is the
// embedded SQLite store (created when missing unless ReadOnly);
// clickhouse://host:port/db?... is a ClickHouse server.
// Errors read "cannot open store "URL": why" (a password in the URL is
// masked).
func Open(ctx context.Context, rawURL string, opts Options) (Store, error) {
	if err := CheckURL(rawURL); err != nil {
		return nil, err
	}
	switch scheme := splitScheme(rawURL); scheme {
	case "":
		return openSQLite(ctx, rawURL, opts)
	case "file":
		path, err := filePath(rawURL)
		if err != nil {
			return nil, openErr(rawURL, err)
		}
		return openSQLite(ctx, path, opts)
	case "clickhouse":
		return openClickHouse(ctx, rawURL, opts)
	default:
		return nil, openErr(rawURL, fmt.Errorf("%w: unknown scheme %q (give a file path or a clickhouse:// URL)", ErrUnsupported, scheme))
	}
}

// CheckURL reports, without I/O, what Open would refuse in rawURL itself:
// an error wrapping ErrBadURL (and ErrUnsupported for an unknown scheme),
// reading "cannot open store "URL": why"; nil when the URL is well formed.
// Whether the store is there and reachable only Open can tell.
func CheckURL(rawURL string) error {
	var err error
	switch scheme := splitScheme(rawURL); scheme {
	case "":
		if rawURL == "" {
			err = errors.New("empty path")
		}
	case "file":
		_, err = filePath(rawURL)
	case "clickhouse":
		err = clickhouse.CheckURL(rawURL)
	default:
		err = fmt.Errorf("%w: unknown scheme %q (give a file path or a clickhouse:// URL)", ErrUnsupported, scheme)
	}
	if err != nil {
		return openErr(rawURL, badURL{err})
	}
	return nil
}

// badURL is a URL's error that also wraps ErrBadURL, in its own words.
type badURL struct{ err error }

func (e badURL) Error() string   { return e.err.Error() }
func (e badURL) Unwrap() []error { return []error{ErrBadURL, e.err} }

// EmbeddedPath is the file of the embedded store rawURL names (a plain
// path or a file: URL); ok is false for a ClickHouse URL, any other
// scheme and a file: URL Open would refuse.
func EmbeddedPath(rawURL string) (path string, ok bool) {
	switch splitScheme(rawURL) {
	case "":
		return rawURL, rawURL != ""
	case "file":
		path, err := filePath(rawURL)
		return path, err == nil && path != ""
	default:
		return "", false
	}
}

func openErr(rawURL string, err error) error {
	return fmt.Errorf("cannot open store %q: %w", redact(rawURL), err)
}

// openSQLite opens the embedded store; sqlite.Open's errors already read
// "cannot open store PATH: ...".
func openSQLite(ctx context.Context, path string, opts Options) (Store, error) {
	db, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: opts.ReadOnly, Check: opts.Check, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	return db, nil
}

// openClickHouse opens a ClickHouse server; clickhouse.Open's errors
// already read "cannot open store URL: ...".
func openClickHouse(ctx context.Context, rawURL string, opts Options) (Store, error) {
	s, err := clickhouse.Open(ctx, rawURL, clickhouse.Options{ReadOnly: opts.ReadOnly, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// splitScheme returns the URL scheme of s, lowercased, when s starts with
// one of two or more characters (so C:\x and relative paths have none).
func splitScheme(s string) string {
	i := strings.Index(s, ":")
	if i < 2 {
		return ""
	}
	for _, c := range s[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return ""
		}
	}
	return strings.ToLower(s[:i])
}

// filePath extracts the path of a file: URL (file:rel/x.db, file:/abs/x.db,
// file:///abs/x.db); a query string is not allowed.
func filePath(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("a file: URL cannot name host %q", u.Host)
	}
	if u.RawQuery != "" {
		return "", errors.New("a file: URL takes no options")
	}
	if u.Opaque != "" {
		return url.PathUnescape(u.Opaque)
	}
	return u.Path, nil
}

// redact removes a password from a URL before it is shown.
func redact(raw string) string { return clickhouse.RedactURL(raw) }

var _ Store = (*sqlite.DB)(nil)
