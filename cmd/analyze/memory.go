package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memoryLimit is --memory-limit: the soft limit of the Go runtime's memory
// (debug.SetMemoryLimit) while the command analyses. Not given, it is
// $GOMEMLIMIT when set (the runtime read it at start), else half of the
// machine's memory or of its container's limit, whichever is less.
type memoryLimit struct {
	bytes int64 // math.MaxInt64: off
	set   bool  // given on the command line
}

func (m *memoryLimit) String() string {
	if m == nil || !m.set {
		return ""
	}
	return formatBytes(m.bytes)
}

func (m *memoryLimit) Set(s string) error {
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	m.bytes, m.set = n, true
	return nil
}

// memoryLimitHelp is the flag's help.
const memoryLimitHelp = "soft memory limit of the process, such as 2GiB or 800MB (off: none); the collector works harder near it " +
	"(default $GOMEMLIMIT when set, else half of the machine's memory or of its container's limit)"

// apply sets the runtime's soft limit and returns a function that puts
// back the one before (for tests, which run commands in one process).
func (m *memoryLimit) apply(getenv func(string) string) (limit int64, restore func()) {
	switch {
	case m.set:
		limit = m.bytes
	case getenv("GOMEMLIMIT") != "":
		return debug.SetMemoryLimit(-1), func() {} // the runtime's, from the environment
	default:
		limit = defaultMemoryLimit(machineMemory())
	}
	prev := debug.SetMemoryLimit(limit)
	return limit, func() { debug.SetMemoryLimit(prev) }
}

// defaultMemoryLimit is half of the machine's memory (0: unknown, no limit).
// Half leaves room for the store's page cache and for an ingest server on
// the same machine; the analyses of a process all count in it (one pool).
func defaultMemoryLimit(machine int64) int64 {
	if machine <= 0 {
		return math.MaxInt64
	}
	return machine / 2
}

// machineMemory is the memory this process may use: the machine's
// (/proc/meminfo), or its cgroup's limit when lower (v2 memory.max, v1
// memory.limit_in_bytes). 0 when unknown.
func machineMemory() int64 {
	total := memTotal("/proc/meminfo")
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && (total == 0 || n < total) {
			total = n // "max", or v1's huge "no limit", stays the machine's
		}
	}
	return total
}

// memTotal reads MemTotal from a meminfo file (0 when it cannot).
func memTotal(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// byteUnits are the suffixes parseBytes takes: GOMEMLIMIT's (KiB, MiB,
// GiB, TiB) and their decimal cousins (KB, MB, GB, TB).
var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// parseBytes reads a size such as 2GiB, 1.5GB, 800MiB or 1073741824;
// "off" is no limit (math.MaxInt64).
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "off") {
		return math.MaxInt64, nil
	}
	num, mult := s, int64(1)
	for _, u := range byteUnits {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || v*float64(mult) >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a size such as 2GiB, 800MB or off", truncate(s, 40))
	}
	n := int64(v * float64(mult))
	if n < 64<<20 {
		return 0, fmt.Errorf("%q is under 64 MiB, too little for an analysis", truncate(s, 40))
	}
	return n, nil
}

// formatBytes writes n in MiB or GiB, as the help and logs show it.
func formatBytes(n int64) string {
	switch {
	case n == math.MaxInt64:
		return "off"
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + "GiB"
	default:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	}
}

// releaseWhenIdle returns what to call when an analysis ends in a process
// without web.Pool (analyze mcp over stdio, long-lived too): once none has
// ended for after and busy says none runs, release returns the memory.
func releaseWhenIdle(after time.Duration, busy func() bool, release func()) func() {
	var mu sync.Mutex
	var gen uint64
	return func() {
		mu.Lock()
		gen++
		g := gen
		mu.Unlock()
		time.AfterFunc(after, func() {
			mu.Lock()
			last := gen == g
			mu.Unlock()
			if last && !busy() {
				release()
			}
		})
	}
}

// releaseMemory collects twice (the store's pooled buffers go on the
// second) and returns the free memory to the system, as web.Pool does.
func releaseMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}
