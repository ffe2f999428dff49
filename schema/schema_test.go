package schema

import (
	"errors"
	"testing"
)

// TestKindsPinned pins the failure kinds of the contract: kinds may be
// added at the end, never renamed or removed, since scripts, runbook
// templates and saved documents name them.
func TestKindsPinned(t *testing.T) {
	contract := []Kind{"timeout", "dependency-timeout", "connection-refused", "rate-limit", "overload",
		"circuit-open", "bulkhead-full", "retry-exhausted", "db-pool-exhaustion", "resource-gc", "oom",
		"bad-deploy", "deterministic", "auth", "not-found", "poison-message", "transient", "unknown"}
	if len(Kinds) < len(contract) {
		t.Fatalf("Kinds has %d entries, the contract names %d", len(Kinds), len(contract))
	}
	for i, k := range contract {
		if Kinds[i] != k {
			t.Errorf("Kinds[%d] = %q, want %q (kinds are added at the end, never renamed)", i, Kinds[i], k)
		}
		if !k.Valid() {
			t.Errorf("%q is not Valid", k)
		}
	}
	seen := map[Kind]bool{}
	for _, k := range Kinds {
		if seen[k] {
			t.Errorf("kind %q listed twice", k)
		}
		seen[k] = true
	}
	if Kind("Timeout").Valid() || Kind("").Valid() {
		t.Error("Valid accepts a word that is not a kind")
	}
}

func TestParseTraceID(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"4BF92F3577B34DA6A3CE929D0E0E4736", "4bf92f3577b34da6a3ce929d0e0e4736", false},
		{"a3ce929d0e0e4736", "0000000000000000a3ce929d0e0e4736", false},
		{"4bf92f35-77b3-4da6-a3ce-929d0e0e4736", "4bf92f3577b34da6a3ce929d0e0e4736", false},
		// Datadog writes 64-bit ids in decimal.
		{"1234567890123456789", "0000000000000000112210f47de98115", false},
		{" 00f067aa0ba902b7 ", "000000000000000000f067aa0ba902b7", false},
		{"", "", true},
		{"00000000000000000000000000000000", "", true},
		{"xyz", "", true},
		{"4bf92f3577b34da6a3ce929d0e0e47361", "", true},
		{"18446744073709551616", "", true}, // over 64 bits in decimal
	}
	for _, tc := range tests {
		got, err := ParseTraceID(tc.in)
		if tc.err {
			if !errors.Is(err, ErrBadID) {
				t.Errorf("ParseTraceID(%q) = %q, %v; want ErrBadID", tc.in, got, err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("ParseTraceID(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if s, err := ParseSpanID("00F067AA0BA902B7"); err != nil || s != "00f067aa0ba902b7" {
		t.Errorf("ParseSpanID = %q, %v", s, err)
	}
	if _, err := ParseSpanID("4bf92f3577b34da6a3ce929d0e0e4736"); err == nil {
		t.Error("ParseSpanID accepted a 128-bit id")
	}
}

func TestRecordIsError(t *testing.T) {
	cases := []struct {
		r    Record
		want bool
	}{
		{Record{Type: TypeLog, Severity: SeverityError}, true},
		{Record{Type: TypeLog, Severity: SeverityFatal + 2}, true},
		{Record{Type: TypeLog, Severity: SeverityWarn}, false},
		{Record{Type: TypeSpan, Status: StatusError}, true},
		{Record{Type: TypeSpan, Status: StatusOK, Severity: SeverityError}, false},
	}
	for i, c := range cases {
		if got := c.r.IsError(); got != c.want {
			t.Errorf("case %d: IsError = %v, want %v", i, got, c.want)
		}
	}
}
