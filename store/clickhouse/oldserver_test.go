package clickhouse_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/faultline/faultline/store/clickhouse"
)

// TestRefuseOldServerReal opens stores on a real ClickHouse server older
// than MinVersion (Debian's 18.16), over the native protocol and over
// HTTP, named by $FAULTLINE_CH_OLD_URLS (space-separated store URLs, e.g.
// "clickhouse://127.0.0.1:19000/default clickhouse://127.0.0.1:18123/default?protocol=http").
// Open refuses each by version, naming the minimum.
func TestRefuseOldServerReal(t *testing.T) {
	urls := strings.Fields(os.Getenv("FAULTLINE_CH_OLD_URLS"))
	if len(urls) == 0 {
		t.Skip("FAULTLINE_CH_OLD_URLS is not set: it names a ClickHouse server older than " + clickhouse.MinVersion +
			" (scripts/test.sh starts Debian's clickhouse-server 18.16, apt-get install clickhouse-server, and sets it)")
	}
	for _, u := range urls {
		_, err := clickhouse.Open(t.Context(), u, clickhouse.Options{})
		if !errors.Is(err, clickhouse.ErrServerVersion) || !strings.Contains(err.Error(), clickhouse.MinVersion) {
			t.Errorf("Open(%q): %v; want ErrServerVersion naming %s", u, err, clickhouse.MinVersion)
		}
	}
}
