package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/web"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"2GiB": 2 << 30, "800MiB": 800 << 20, "1.5GB": 1_500_000_000, "800MB": 800_000_000,
		"1073741824": 1 << 30, " 1 TiB ": 1 << 40, "off": math.MaxInt64, "OFF": math.MaxInt64, "100000KiB": 100000 << 10,
	} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1GiB", "0", "2 GiB MiB", "1MiB", "1e30GB", "NaN"} {
		if n, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) = %d, want an error", in, n)
		}
	}
}

// TestMemoryLimitApplied: --memory-limit sets the runtime's soft limit and
// the command's end puts back the one before; without the flag,
// $GOMEMLIMIT (already the runtime's) is kept; without either, half of the
// machine's memory.
func TestMemoryLimitApplied(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)

	var m memoryLimit
	if err := m.Set("3GiB"); err != nil {
		t.Fatal(err)
	}
	limit, restore := m.apply(func(string) string { return "1GiB" })
	if got := debug.SetMemoryLimit(-1); limit != 3<<30 || got != 3<<30 {
		t.Errorf("--memory-limit 3GiB (GOMEMLIMIT=1GiB): limit %d, runtime's %d; want the flag's", limit, got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after the command the runtime's limit is %d, want %d back", got, before)
	}

	debug.SetMemoryLimit(5 << 30) // as the runtime set it from GOMEMLIMIT=5GiB
	var none memoryLimit
	limit, restore = none.apply(func(k string) string {
		if k == "GOMEMLIMIT" {
			return "5GiB"
		}
		return ""
	})
	restore()
	if got := debug.SetMemoryLimit(-1); limit != 5<<30 || got != 5<<30 {
		t.Errorf("with $GOMEMLIMIT and no flag: limit %d, runtime's %d; want $GOMEMLIMIT's kept", limit, got)
	}
	debug.SetMemoryLimit(before)

	limit, restore = none.apply(func(string) string { return "" })
	defer restore()
	if mm := machineMemory(); mm > 0 && limit != mm/2 {
		t.Errorf("default limit %d, want half of the machine's %d", limit, mm)
	}
}

func TestMachineMemory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "meminfo")
	if err := os.WriteFile(path, []byte("MemTotal:       24684000 kB\nMemFree:  1 kB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := memTotal(path); got != 24684000*1024 {
		t.Errorf("memTotal = %d", got)
	}
	if got := memTotal(filepath.Join(dir, "none")); got != 0 {
		t.Errorf("memTotal of no file = %d, want 0 (unknown)", got)
	}
	if got := defaultMemoryLimit(0); got != math.MaxInt64 {
		t.Errorf("default limit of an unknown machine = %d, want none", got)
	}
	if got := defaultMemoryLimit(8 << 30); got != 4<<30 {
		t.Errorf("default limit of 8 GiB = %d, want 4 GiB", got)
	}
}

// TestMemoryLimitFlag: the commands that analyse take --memory-limit and
// name the default in their help; a bad size is a usage error (2).
func TestMemoryLimitFlag(t *testing.T) {
	for _, args := range [][]string{{"incident"}, {"trace"}, {"enrich"}, {"serve"}, {"mcp"}, {"demo"}, {"dlq", "resend"}} {
		code, _, errOut := runCmd(t, append(args, "-h")...)
		if code != exitOK || !strings.Contains(errOut, "-memory-limit") || !strings.Contains(errOut, "half of the machine's memory") {
			t.Errorf("analyze %s -h: exit %d, help without --memory-limit and its default:\n%s", strings.Join(args, " "), code, errOut)
		}
	}
	code, _, errOut := runCmd(t, "incident", "--memory-limit", "lots")
	if code != exitUsage || !strings.Contains(errOut, "memory-limit") {
		t.Errorf("--memory-limit lots: exit %d, %q; want 2 and a sentence naming the flag", code, errOut)
	}
}

// slowAnalyzer counts its analyses and holds each until released.
type slowAnalyzer struct {
	started chan struct{}
}

func (a slowAnalyzer) Incident(ctx context.Context, q rootcause.Query) (*rootcause.Report, error) {
	a.started <- struct{}{}
	return &rootcause.Report{Window: rootcause.Window{From: q.From, To: q.To}}, nil
}

// TestPooledAnalyzerWaitsForSlot: serve's alert hooks analyse through the
// web's pool: while another analysis holds the only slot an alert's does
// not start, and it starts once the slot is free.
func TestPooledAnalyzerWaitsForSlot(t *testing.T) {
	pool := web.NewPool(1, 0)
	hold, release := make(chan struct{}), make(chan struct{})
	go pool.Wait(context.Background(), 0, func(context.Context) error { close(hold); <-release; return nil })
	<-hold
	an := slowAnalyzer{started: make(chan struct{}, 1)}
	done := make(chan error, 1)
	q := rootcause.Query{From: time.Unix(0, 0), To: time.Unix(60, 0)}
	go func() {
		rep, err := pooledAnalyzer{pool: pool, an: an}.Incident(context.Background(), q)
		if err == nil && (rep == nil || !rep.Window.To.Equal(q.To)) {
			t.Errorf("the alert's report: %+v", rep)
		}
		done <- err
	}()
	select {
	case <-an.started:
		t.Fatal("an alert's analysis started while the pool's only slot was taken")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-an.started
	if err := <-done; err != nil {
		t.Errorf("the alert's analysis: %v", err)
	}
}

// TestReleaseWhenIdle: analyze mcp returns the memory once no analysis
// has ended for a while and none runs; not while one runs, once per idle
// spell.
func TestReleaseWhenIdle(t *testing.T) {
	var released atomic.Int32
	var running atomic.Bool
	ended := releaseWhenIdle(100*time.Millisecond, running.Load, func() { released.Add(1) })
	running.Store(true)
	ended() // one ended while another runs
	time.Sleep(250 * time.Millisecond)
	if n := released.Load(); n != 0 {
		t.Fatalf("memory released %d times while an analysis ran", n)
	}
	running.Store(false)
	ended()
	ended() // two in a row: one release
	time.Sleep(250 * time.Millisecond)
	if n := released.Load(); n != 1 {
		t.Errorf("memory released %d times after an idle spell, want 1", n)
	}
}
