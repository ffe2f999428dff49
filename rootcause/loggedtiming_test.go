package rootcause

import "testing"

func TestLoggedDuration(t *testing.T) {
	for _, c := range []struct {
		body string
		ms   float64 // -1: none stated
	}{
		{"GET /v1/results/54194/link 200 218.86ms", 218.86},
		{"GET /v1/results/71104/link -> 200 (401 ms)", 401},
		{"handled job 8812 in 1.5s", 1500},
		{"elapsed=350us rows=12", 0.35},
		{"took 12 seconds", 12000},
		{"first 3ms then 40ms", 40},
		{"cache hit for key audit-trail:87923", -1},
		{"retry in PT0.5S", -1},             // ISO 8601 is not a stated unit here
		{"version v1.2s of the schema", -1}, // a number inside a word
		{"sent 12 messages", -1},
		{"12mseconds", -1},
		{"finished call grpc.method=/fraud.v1.FraudService/Update grpc.code=OK grpc.time_ms=13.300", 13.3},
		{`{"msg":"done","durationMs": 250}`, 250},
		{"elapsed_seconds=1.5 rows=3", 1500},
		{"items_count=12", -1},
	} {
		ns, ok := loggedDuration(c.body)
		if c.ms < 0 {
			if ok {
				t.Errorf("%q: got %v ns, want none", c.body, ns)
			}
			continue
		}
		if !ok || ns/1e6 < c.ms*0.999 || ns/1e6 > c.ms*1.001 {
			t.Errorf("%q: got %v ms (ok %v), want %v", c.body, ns/1e6, ok, c.ms)
		}
	}
}

func BenchmarkLoggedDuration(b *testing.B) {
	line := `GET /api/v2/orders/9918273/items?expand=true 200 12.345ms user=8812 trace_id=4bf92f3577b34da6a3ce929d0e0e4736`
	for b.Loop() {
		loggedDuration(line)
	}
}

// A line that times the whole call qualifies; one that times a step of
// it, or states a number unrelated to the call, does not.
func TestTimesTheCall(t *testing.T) {
	whole, step, unrelated := &statedPairs{}, &statedPairs{}, &statedPairs{}
	for i := range 200 {
		c := float64(20+i%7) * 1e6
		whole.client = append(whole.client, c)
		whole.stated = append(whole.stated, c*0.9)
		step.client = append(step.client, c)
		step.stated = append(step.stated, c*0.2)
		unrelated.client = append(unrelated.client, c)
		unrelated.stated = append(unrelated.stated, float64(1+(i*13)%40)*1e6)
	}
	if !whole.timesTheCall() {
		t.Error("a line stating 90% of every call does not time the call")
	}
	if step.timesTheCall() {
		t.Error("a line stating a fifth of every call times the call")
	}
	if unrelated.timesTheCall() {
		t.Error("a line stating 1..40 ms whatever the call took times the call")
	}
	if !(&statedPairs{client: whole.client[:5], stated: whole.stated[:5]}).timesTheCall() {
		t.Error("five pairs do not tell: few pairs give weak evidence, not none")
	}
	if (&statedPairs{}).timesTheCall() {
		t.Error("no pairs tell")
	}
}
