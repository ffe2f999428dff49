//go:build deps

// Package deps pins the modules faultline's packages are written against, so
// that go.mod holds them before every package imports them. Built only with
// the "deps" tag; remove an import once a real package uses it.
package deps

import (
	_ "github.com/ClickHouse/clickhouse-go/v2"
	_ "github.com/chromedp/chromedp"
	_ "github.com/ebitengine/purego"
	_ "github.com/gin-gonic/gin"
	_ "github.com/golang/snappy"
	_ "github.com/grafana/loki/pkg/push"
	_ "github.com/klauspost/compress/gzip"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/slack-go/slack"
	_ "go.opentelemetry.io/collector/pdata/plog/plogotlp"
	_ "go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	_ "go.opentelemetry.io/otel"
	_ "go.opentelemetry.io/otel/sdk/trace"
	_ "go.opentelemetry.io/otel/trace"
	_ "golang.org/x/tools/txtar"
	_ "modernc.org/sqlite"
)
