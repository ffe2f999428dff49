package clickhouse_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store/clickhouse"
)

// demoStore is a new database holding the demo's simulated incident.
func demoStore(t *testing.T) (*clickhouse.Store, *sim.Incident) {
	t.Helper()
	inc, err := sim.Generate(sim.DemoConfig(time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, front.NewDatabase(t), clickhouse.Options{})
	if err := s.WriteBatch(t.Context(), inc.Records); err != nil {
		t.Fatal(err)
	}
	return s, inc
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
