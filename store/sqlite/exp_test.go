package sqlite_test

import (
	"os"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/sqlite"
	"github.com/faultline/faultline/store/storetest"
)

func TestExpPageSize(t *testing.T) {
	if os.Getenv("EXP") == "" {
		t.Skip()
	}
	path := "/tmp/exp-" + os.Getenv("EXP") + ".db"
	os.Remove(path)
	os.Remove(path + "-wal")
	db, err := sqlite.Open(t.Context(), path, sqlite.Options{Durability: sqlite.DurabilityProcess})
	if err != nil {
		t.Fatal(err)
	}
	synth := storetest.NewSynth(benchSeed, benchBase(), benchStep)
	c0 := cpuTime()
	t0 := time.Now()
	for synth.Emitted() < 1_000_000 {
		if err := db.WriteBatch(t.Context(), synth.Batch(1000)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("write 1M: wall %v cpu %v", time.Since(t0), cpuTime()-c0)
	db.Close()
	db, _ = sqlite.Open(t.Context(), path, sqlite.Options{ReadOnly: true})
	for range 3 {
		c0, t0 = cpuTime(), time.Now()
		n := 0
		for _, err := range db.WindowRecords(t.Context(), schema.WindowQuery{From: benchBase(), To: benchBase().Add(time.Hour * 10)}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		t.Logf("scan %d: wall %v cpu %v", n, time.Since(t0), cpuTime()-c0)
	}
	fi, _ := os.Stat(path)
	t.Logf("size %d MB", fi.Size()>>20)
	db.Close()
	os.Remove(path)
}
