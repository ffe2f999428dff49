package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// Store is an open ClickHouse store. It is safe for concurrent use and
// satisfies store.Store; Close it when done.
type Store struct {
	conn     driver.Conn
	db       string
	location string
	opts     Options
	log      *slog.Logger
	layout   *layout
	w        *writer // nil when read-only
	closed   atomic.Bool
}

// SpoolDirOf returns the spool_dir parameter of a store URL, "" when it
// has none or is not a ClickHouse URL.
func SpoolDirOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Query().Get("spool_dir")
}

// urlParams are faultline's own URL parameters; clickhouse-go would take
// them for server settings, so they are removed before it parses the URL.
type urlParams struct {
	protocol, cluster, spoolDir string
	spoolMax                    int64
}

// Open connects to the ClickHouse server rawURL names, checks its version,
// applies the missing migrations (unless opts.ReadOnly) and starts the
// writer. URLs:
//
//	clickhouse://user:pass@host:9000/db?dial_timeout=5s    native protocol
//	clickhouse://host:8123/db?protocol=http                HTTP
//	http://host:8123/db, https://host:8443/db?secure=true  HTTP
//
// with faultline's parameters cluster=NAME, spool_dir=PATH and
// spool_max_bytes=N beside clickhouse-go's own (see its ParseDSN).
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	s, err := open(ctx, rawURL, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot open store %q: %w", redactURL(rawURL), err)
	}
	return s, nil
}

// CheckURL reports what is wrong with a ClickHouse store URL, without
// connecting: the error Open would return for the URL itself.
func CheckURL(rawURL string) error {
	_, _, _, err := parseURL(rawURL)
	return err
}

func open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	chOpts, db, up, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opts.Cluster == "" {
		opts.Cluster = up.cluster
	}
	if opts.Writer.SpoolDir == "" {
		opts.Writer.SpoolDir = up.spoolDir
	}
	if opts.Writer.SpoolMaxBytes == 0 {
		opts.Writer.SpoolMaxBytes = up.spoolMax
	}
	if opts.Writer.NoSpool {
		opts.Writer.SpoolDir = ""
	}
	opts = opts.withDefaults()
	conn, err := clickhouse.Open(chOpts)
	if err != nil {
		return nil, err
	}
	s := &Store{conn: conn, db: db, location: redactURL(rawURL), opts: opts, log: opts.Logger}
	if err := s.init(ctx); err != nil {
		if v := probeHTTPVersion(ctx, chOpts); v != "" && !errors.Is(err, ErrServerVersion) {
			if verr := checkVersion(v); verr != nil {
				err = verr
			}
		}
		return nil, errors.Join(err, conn.Close())
	}
	return s, nil
}

func (s *Store) init(ctx context.Context) error {
	if err := s.conn.Ping(ctx); err != nil {
		return fmt.Errorf("cannot reach the server: %w", err)
	}
	sv, err := s.conn.ServerVersion()
	if err != nil {
		return fmt.Errorf("cannot read the server version: %w", err)
	}
	v := sv.Version
	if err := checkVersion(fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)); err != nil {
		return err
	}
	if !s.opts.ReadOnly {
		if err := s.migrate(ctx); err != nil {
			return err
		}
	}
	if err := s.detect(ctx); err != nil {
		return err
	}
	if !s.layout.has(schema.TableLogs) && !s.layout.has(schema.TableTraces) {
		return fmt.Errorf("%w: database %q has neither %s nor %s", backend.ErrNoStore, s.db, schema.TableLogs, schema.TableTraces)
	}
	if !s.opts.ReadOnly {
		w, err := newWriter(s, s.opts.Writer, s.log)
		if err != nil {
			return err
		}
		s.w = w
	}
	return nil
}

// parseURL turns a store URL into clickhouse-go options, the database
// name and faultline's own parameters.
func parseURL(rawURL string) (*clickhouse.Options, string, urlParams, error) {
	var up urlParams
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, "", up, fmt.Errorf("not a URL: %w", err)
	}
	q := u.Query()
	up.protocol, up.cluster, up.spoolDir = strings.ToLower(q.Get("protocol")), q.Get("cluster"), q.Get("spool_dir")
	if v := q.Get("spool_max_bytes"); v != "" {
		if up.spoolMax, err = strconv.ParseInt(v, 10, 64); err != nil || up.spoolMax <= 0 {
			return nil, "", up, fmt.Errorf("spool_max_bytes=%q is not a positive number of bytes", v)
		}
	}
	for _, k := range []string{"protocol", "cluster", "spool_dir", "spool_max_bytes"} {
		q.Del(k)
	}
	u.RawQuery = q.Encode()
	switch u.Scheme {
	case "clickhouse":
		switch up.protocol {
		case "", "native", "tcp":
		case "http", "https":
			u.Scheme = "http"
			if q.Get("secure") == "true" || up.protocol == "https" {
				u.Scheme = "https"
				q.Set("secure", "true")
				u.RawQuery = q.Encode()
			}
		default:
			return nil, "", up, fmt.Errorf("protocol=%q: use native or http", up.protocol)
		}
	case "http", "https":
	default:
		return nil, "", up, fmt.Errorf("scheme %q: use clickhouse://, http:// or https://", u.Scheme)
	}
	if u.Host == "" {
		return nil, "", up, errors.New("the URL names no host")
	}
	o, err := clickhouse.ParseDSN(u.String())
	if err != nil {
		return nil, "", up, err
	}
	db := o.Auth.Database
	if db == "" {
		db = "default"
	}
	// Every statement names its database, so that the connection works
	// before the database exists (the migrations create it).
	o.Auth.Database = ""
	if o.DialTimeout == 0 {
		o.DialTimeout = 10 * time.Second
	}
	return o, db, up, nil
}

// redactURL hides a password and bounds the length, for messages.
func redactURL(raw string) string { return RedactURL(raw) }

// RedactURL masks the password of a store URL, in its user part or in a
// password query parameter, and cuts it to 120 bytes, for messages.
func RedactURL(raw string) string {
	s := raw
	if u, err := url.Parse(raw); err == nil {
		changed := false
		if u.User != nil {
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), "xxxxx")
				changed = true
			}
		}
		q := u.Query()
		for k := range q {
			if lk := strings.ToLower(k); lk == "password" || lk == "pass" || lk == "secret" {
				q.Set(k, "xxxxx")
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
			s = u.String()
		}
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// Close stops the writer (flushing what it holds) and closes the connection.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	var werr error
	if s.w != nil {
		werr = s.w.close()
	}
	return errors.Join(werr, s.conn.Close())
}

func (s *Store) check() error {
	if s.closed.Load() {
		return backend.ErrClosed
	}
	return nil
}
