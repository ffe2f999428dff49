package clickhouse_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store/clickhouse"
	"github.com/faultline/faultline/store/sqlite"
	"github.com/faultline/faultline/store/storetest"
)

// demoStore is a new database holding the demo's simulated incident.
func demoStore(t *testing.T) (*clickhouse.Store, *sim.Incident) {
	t.Helper()
	inc := storetest.DemoIncident(t)
	s := openStore(t, front.NewDatabase(t), clickhouse.Options{})
	if err := s.WriteBatch(t.Context(), inc.Records); err != nil {
		t.Fatal(err)
	}
	return s, inc
}

// demoStores is demoStore, and an embedded store holding the same records.
func demoStores(t *testing.T) (*clickhouse.Store, *sqlite.DB, *sim.Incident) {
	t.Helper()
	ch, inc := demoStore(t)
	lite, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "f.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	if err := lite.WriteBatch(t.Context(), inc.Records); err != nil {
		t.Fatal(err)
	}
	return ch, lite, inc
}

// snapshot copies the files of dir and returns a function that puts them back.
func snapshot(t *testing.T, dir string) func() {
	t.Helper()
	files := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return func() {
		for n, b := range files {
			if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
