package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/sqlite"
	"github.com/faultline/faultline/store/storetest"
)

func openTemp(t *testing.T, opts sqlite.Options) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "faultline.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t, sqlite.Options{}) })
}

// TestConformanceShared runs the suite with every sub-test on one file,
// as a shared server would be used.
func TestConformanceShared(t *testing.T) {
	db := openTemp(t, sqlite.Options{})
	storetest.Run(t, func(*testing.T) store.Store { return db })
}
