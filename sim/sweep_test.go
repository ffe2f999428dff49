package sim

import (
	"os"
	"testing"
	"time"
)

func TestSweepTMP(t *testing.T) {
	if os.Getenv("SWEEP") == "" {
		t.Skip()
	}
	for seed := int64(1); seed <= 48; seed++ {
		for _, k := range FaultKinds() {
			cfg := Config{Seed: seed * 7, Fault: k, Baseline: 3 * time.Minute, Window: 4 * time.Minute, TracesPerSecond: 2, Services: 3 + int(seed)%18}
			inc, err := Generate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(inc.Truth.FailedTraces) < 3 {
				t.Logf("%s seed %d services %d: %d failed traces", k, cfg.Seed, cfg.Services, len(inc.Truth.FailedTraces))
				continue
			}
			checkTruth(t, inc)
		}
	}
}
