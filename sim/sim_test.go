package sim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/schema"
)

func TestSameSeedSameFiles(t *testing.T) {
	cfg := small(11, schema.KindDependencyTimeout)
	a, b := t.TempDir(), t.TempDir()
	if err := mustGenerate(t, cfg).WriteCase(a); err != nil {
		t.Fatal(err)
	}
	if err := mustGenerate(t, cfg).WriteCase(b); err != nil {
		t.Fatal(err)
	}
	files, _ := os.ReadDir(a)
	if len(files) < 4 {
		t.Fatalf("case has %d files, want at least 4", len(files))
	}
	for _, f := range files {
		x, _ := os.ReadFile(filepath.Join(a, f.Name()))
		y, err := os.ReadFile(filepath.Join(b, f.Name()))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed (err %v)", f.Name(), err)
		}
	}
}

func TestOtherSeedOtherIncident(t *testing.T) {
	a := mustGenerate(t, small(1, schema.KindOOM))
	b := mustGenerate(t, small(2, schema.KindOOM))
	if a.Records[0].TraceID == b.Records[0].TraceID && len(a.Records) == len(b.Records) {
		t.Error("seeds 1 and 2 gave the same incident")
	}
}

func TestConfigChecked(t *testing.T) {
	bad := []Config{
		{Fault: "volcano"},
		{TracesPerSecond: -1},
		{Window: 10},
		{Services: 99},
	}
	for _, cfg := range bad {
		if _, err := Generate(cfg); err == nil {
			t.Errorf("Generate(%+v) accepted a bad config", cfg)
		}
	}
}

func TestPickedFaultIsRecorded(t *testing.T) {
	inc := mustGenerate(t, small(5, ""))
	if !isFaultKind(inc.Config.Fault) || inc.Truth.RootCause.Kind != inc.Config.Fault {
		t.Errorf("fault %q, truth kind %q", inc.Config.Fault, inc.Truth.RootCause.Kind)
	}
}

func TestRecordsOrderedByTime(t *testing.T) {
	inc := mustGenerate(t, small(3, schema.KindRateLimit))
	for i := 1; i < len(inc.Records); i++ {
		if inc.Records[i].Time.Before(inc.Records[i-1].Time) {
			t.Fatalf("record %d is earlier than record %d", i, i-1)
		}
	}
}
