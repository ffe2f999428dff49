package store_test

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

func TestDefaultURL(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := store.DefaultURL(getenv); got != "./faultline.db" {
		t.Errorf("DefaultURL without $FAULTLINE_STORE = %q", got)
	}
	env["FAULTLINE_STORE"] = "clickhouse://ch:9000/logs"
	if got := store.DefaultURL(getenv); got != "clickhouse://ch:9000/logs" {
		t.Errorf("DefaultURL = %q, want $FAULTLINE_STORE", got)
	}
	if got := store.DefaultURL(nil); got != "./faultline.db" {
		t.Errorf("DefaultURL(nil) = %q", got)
	}
}

// TestOpenForms opens one file through every spelling of its location and
// checks that each handle sees what the first wrote.
func TestOpenForms(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "with space #1.db")
	first, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	id := schema.TraceID("4bf92f3577b34da6a3ce929d0e0e4736")
	if err := first.WriteBatch(t.Context(), []schema.Record{{Time: time.Now(), TraceID: id, Service: "s", Body: "b"}}); err != nil {
		t.Fatal(err)
	}
	fileURL := (&url.URL{Scheme: "file", Path: path}).String()
	for _, loc := range []string{path, fileURL, strings.Replace(fileURL, "file://", "file:", 1), "FILE://" + strings.TrimPrefix(fileURL, "file://")} {
		t.Run(loc, func(t *testing.T) {
			s, err := store.Open(t.Context(), loc, store.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			n := 0
			for _, err := range s.TraceRecords(t.Context(), id, 0) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != 1 {
				t.Errorf("%d records seen through %q, want 1", n, loc)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		url, want string
		is        error
	}{
		// Nothing listens on loopback port 1: the ClickHouse backend is tried and fails to connect.
		{"clickhouse://user:s3cret@127.0.0.1:1/logs?dial_timeout=2s", "cannot reach", nil},
		{"postgres://db/x", `unknown scheme "postgres"`, store.ErrUnsupported},
		{"file://otherhost/x.db", "host", nil},
		{"file:" + dir + "/x.db?mode=ro", "no options", nil},
		{filepath.Join(dir, "missing.db"), "no store there", store.ErrNoStore}, // read-only below
		{"", "empty", nil},
	} {
		t.Run(c.url, func(t *testing.T) {
			s, err := store.Open(t.Context(), c.url, store.Options{ReadOnly: true})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "cannot open store ") || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line starting with \"cannot open store\" that mentions %q", msg, c.want)
			}
			if strings.Contains(msg, "s3cret") {
				t.Errorf("error %q shows the password", msg)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %q does not wrap %v", msg, c.is)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("a read-only open created a file")
	}
}

func TestEmbeddedPath(t *testing.T) {
	for raw, want := range map[string]string{
		"./faultline.db":        "./faultline.db",
		"/var/lib/x.db":         "/var/lib/x.db",
		"file:rel/x.db":         "rel/x.db",
		"file:///abs/x%20y.db":  "/abs/x y.db",
		"FILE://localhost/a.db": "/a.db",
	} {
		if got, ok := store.EmbeddedPath(raw); !ok || got != want {
			t.Errorf("EmbeddedPath(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	for _, raw := range []string{"", "clickhouse://ch:9000/logs", "postgres://db/x", "file://otherhost/x.db", "file:x.db?mode=ro"} {
		if got, ok := store.EmbeddedPath(raw); ok {
			t.Errorf("EmbeddedPath(%q) = %q, true; want not embedded", raw, got)
		}
	}
}

// TestCheckURL: a store URL that cannot name a store is ErrBadURL without
// any I/O (cmd maps it to the usage exit code), and Open refuses it alike.
func TestCheckURL(t *testing.T) {
	for _, bad := range []string{"ftp://host/x.db", "", "file://otherhost/x.db", "file:x.db?mode=ro", "clickhouse://"} {
		err := store.CheckURL(bad)
		if !errors.Is(err, store.ErrBadURL) {
			t.Errorf("CheckURL(%q) = %v, want ErrBadURL", bad, err)
		}
		if _, err := store.Open(t.Context(), bad, store.Options{}); !errors.Is(err, store.ErrBadURL) {
			t.Errorf("Open(%q) = %v, want ErrBadURL", bad, err)
		}
	}
	if err := store.CheckURL("ftp://h/x"); !errors.Is(err, store.ErrUnsupported) || strings.Count(err.Error(), "unsupported") > 1 {
		t.Errorf("unknown scheme: %v", err)
	}
	for _, good := range []string{"x.db", "file:x.db", "clickhouse://ch:9000/logs?cluster=c"} {
		if err := store.CheckURL(good); err != nil {
			t.Errorf("CheckURL(%q) = %v", good, err)
		}
	}
}
