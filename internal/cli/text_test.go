package cli

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	ok := map[string]time.Duration{
		"90s": 90 * time.Second, "30m": 30 * time.Minute, "1h30m": 90 * time.Minute, "1.5h": 90 * time.Minute,
		"2d": 48 * time.Hour, "1d12h": 36 * time.Hour, "250ms": 250 * time.Millisecond, "3650d": MaxDuration,
	}
	for s, want := range ok {
		if got, err := ParseDuration(s, 0); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"9999999h", "213504d", "3651d", "106752d", "99999999999999999999h", "3650d1ns"} {
		if got, err := ParseDuration(s, 0); !errors.Is(err, ErrDurationTooLong) {
			t.Errorf("ParseDuration(%q) = %v, %v; want ErrDurationTooLong", s, got, err)
		}
	}
	for _, s := range []string{"", "0", "0s", "-5m", "banana", "5", "h", "1..2h", "5x", "+5m", "1e400h"} {
		if got, err := ParseDuration(s, 0); !errors.Is(err, ErrDurationSyntax) {
			t.Errorf("ParseDuration(%q) = %v, %v; want ErrDurationSyntax", s, got, err)
		}
	}
	if _, err := ParseDuration("8d", 7*24*time.Hour); !errors.Is(err, ErrDurationTooLong) {
		t.Errorf("8d over a 7d cap: %v", err)
	}
	if msg := DurationError("--since", "9999999h", ErrDurationTooLong, 0); !strings.Contains(msg, "too long: the longest is 3650d") {
		t.Errorf("message %q", msg)
	}
}

func TestTerminalSafe(t *testing.T) {
	in := "svc\x1b[2J\x1b]0;pwned\x07 \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ \u009b31m \u202egnp.exe\r\nok\tline\xff"
	got := TerminalSafe(in)
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u009b", "\u202e", "\xff"} {
		if strings.Contains(got, bad) {
			t.Errorf("TerminalSafe left %q in %q", bad, got)
		}
	}
	for _, want := range []string{`svc\x1b[2J`, `\x1b]0;pwned\x07`, `\u009b31m`, `\u202egnp`, `\x0d` + "\nok\tline", `\xff`} {
		if !strings.Contains(got, want) {
			t.Errorf("TerminalSafe(%q) = %q, lacks %q", in, got, want)
		}
	}
	if s := "plain ünïcode → text\n"; TerminalSafe(s) != s {
		t.Errorf("clean text changed: %q", TerminalSafe(s))
	}
}

func TestTerminalSafeAfterUnicode(t *testing.T) {
	if got := TerminalSafe("a → b \x1b[2J"); strings.Contains(got, "\x1b") {
		t.Errorf("escape after non-ASCII text kept: %q", got)
	}
}
