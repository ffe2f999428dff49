package rootcause

import (
	"testing"

	"github.com/faultline/faultline/schema"
)

// TestTripKinds: a dependency whose callers' breakers refused most calls
// takes the kind of the failures that tripped them; with nothing but
// refusals, the refusals are all there is.
func TestTripKinds(t *testing.T) {
	k := topKeys(tripKinds(map[schema.Kind]int{schema.KindCircuitOpen: 250, schema.KindConnectionRefused: 20, schema.KindBulkheadFull: 3}), 1)[0]
	if k != schema.KindConnectionRefused {
		t.Errorf("refusals beside refused connections: kind %s, want %s", k, schema.KindConnectionRefused)
	}
	// Other failures (noise moved here, a caller's 4xx) say nothing of
	// what tripped the breakers.
	k = topKeys(tripKinds(map[schema.Kind]int{schema.KindCircuitOpen: 250, schema.KindDeterministic: 30, schema.KindDependencyTimeout: 10}), 1)[0]
	if k != schema.KindDependencyTimeout {
		t.Errorf("refusals beside deterministic errors and timeouts: kind %s, want %s", k, schema.KindDependencyTimeout)
	}
	k = topKeys(tripKinds(map[schema.Kind]int{schema.KindDeterministic: 300, schema.KindConnectionRefused: 20}), 1)[0]
	if k != schema.KindDeterministic {
		t.Errorf("no refusals: kind %s, want %s", k, schema.KindDeterministic)
	}
	k = topKeys(tripKinds(map[schema.Kind]int{schema.KindCircuitOpen: 250}), 1)[0]
	if k != schema.KindCircuitOpen {
		t.Errorf("refusals alone: kind %s, want %s", k, schema.KindCircuitOpen)
	}
}
