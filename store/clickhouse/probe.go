package clickhouse

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// probeHTTPVersion asks a server over plain HTTP for its version, for when
// clickhouse-go's HTTP handshake fails: servers before 19.x reject the
// client's client_protocol_version parameter, and the user deserves the
// version refusal rather than that. It returns "" when it learns nothing.
func probeHTTPVersion(ctx context.Context, o *clickhouse.Options) string {
	if o.Protocol != clickhouse.HTTP || len(o.Addr) == 0 {
		return ""
	}
	u := url.URL{Scheme: "http", Host: o.Addr[0], Path: o.HttpUrlPath + "/", RawQuery: url.Values{"query": {"SELECT version()"}}.Encode()}
	if o.TLS != nil {
		u.Scheme = "https"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return ""
	}
	if o.Auth.Username != "" {
		req.SetBasicAuth(o.Auth.Username, o.Auth.Password)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: o.TLS}}
	resp, err := client.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 100))
	if err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	return strings.TrimSpace(string(b))
}
