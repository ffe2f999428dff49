package clickhouse

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MinVersion is the oldest ClickHouse server the schema works on: the
// Collector's tables need Map, DateTime64(9), codecs and skip indexes, and
// idempotent replays need insert_deduplication_token (22.2) with
// non-replicated deduplication; 23.3 is the first LTS release with all of
// them settled.
const MinVersion = "23.3"

// ErrServerVersion is returned by Open for a server older than MinVersion.
var ErrServerVersion = errors.New("ClickHouse server too old")

// version is a ClickHouse version, major.minor.patch.
type version struct{ major, minor, patch int }

// parseVersion reads "26.5.1.1", "23.3", "v24.8.4.13-lts" and the like.
func parseVersion(s string) (version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(t, "-+ "); i >= 0 {
		t = t[:i]
	}
	parts := strings.Split(t, ".")
	var n [3]int
	if len(parts) < 2 {
		return version{}, fmt.Errorf("cannot parse ClickHouse version %q", s)
	}
	for i := 0; i < len(parts) && i < 3; i++ {
		v, err := strconv.Atoi(parts[i])
		if err != nil || v < 0 {
			return version{}, fmt.Errorf("cannot parse ClickHouse version %q", s)
		}
		n[i] = v
	}
	return version{n[0], n[1], n[2]}, nil
}

func (v version) less(o version) bool {
	if v.major != o.major {
		return v.major < o.major
	}
	if v.minor != o.minor {
		return v.minor < o.minor
	}
	return v.patch < o.patch
}

func (v version) String() string { return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch) }

// checkVersion refuses a server older than MinVersion with an error that
// names both versions.
func checkVersion(server string) error {
	got, err := parseVersion(server)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrServerVersion, err)
	}
	min, _ := parseVersion(MinVersion)
	if got.less(min) {
		return fmt.Errorf("%w: the server runs ClickHouse %s, faultline needs %s or newer (upgrade the server)",
			ErrServerVersion, server, MinVersion)
	}
	return nil
}
