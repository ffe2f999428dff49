package clickhouse_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/chfront/chtest"
	"github.com/faultline/faultline/store/backend"
	"github.com/faultline/faultline/store/clickhouse"
)

// TestRefuseOldServer opens a store on a front that reports an old
// version in its handshake: Open refuses with the minimum version named,
// before it creates anything.
func TestRefuseOldServer(t *testing.T) {
	front.Need(t)
	old := chtest.Start(t, "22.8.5.29")
	_, err := clickhouse.Open(t.Context(), "http://"+old.Addr()+"/faultline", clickhouse.Options{})
	if !errors.Is(err, clickhouse.ErrServerVersion) {
		t.Fatalf("Open on a 22.8 server: err = %v, want ErrServerVersion", err)
	}
	if !strings.Contains(err.Error(), clickhouse.MinVersion) {
		t.Errorf("the refusal %q does not name the minimum version %s", err, clickhouse.MinVersion)
	}
	if out, _ := old.Query(t.Context(), "SELECT count() FROM system.databases WHERE name = 'faultline'"); strings.TrimSpace(out) != "0" {
		t.Errorf("the refused Open created the database (count %q)", out)
	}
}

// TestOpenReadOnlyEmpty: a read-only store on a database without the
// tables is backend.ErrNoStore.
func TestOpenReadOnlyEmpty(t *testing.T) {
	u := front.NewDatabase(t)
	_, err := clickhouse.Open(t.Context(), u, clickhouse.Options{ReadOnly: true})
	if !errors.Is(err, backend.ErrNoStore) {
		t.Errorf("read-only Open of an empty database: err = %v, want backend.ErrNoStore", err)
	}
}

// TestOpenBadURL: malformed URLs are refused before any connection.
func TestOpenBadURL(t *testing.T) {
	for _, u := range []string{
		"clickhouse://", "ftp://host/db", "clickhouse://host:9000/db?protocol=carrier-pigeon",
		"clickhouse://host:9000/db?spool_max_bytes=-1", "::not a url",
	} {
		if _, err := clickhouse.Open(t.Context(), u, clickhouse.Options{}); err == nil {
			t.Errorf("Open(%q) succeeded", u)
		}
	}
	_, err := clickhouse.Open(t.Context(), "clickhouse://u:s3cret@127.0.0.1:1/db?protocol=http&dial_timeout=200ms", clickhouse.Options{})
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("an unreachable server: err = %v (must fail and hide the password)", err)
	}
}
