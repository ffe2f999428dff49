-- faultline's alert records: every log at WARN or above and every span
-- with an error status (or a faultline severity of WARN or above), in one
-- time-ordered table, so that an incident scan reads only these. Two
-- materialized views keep it filled; the INSERTs backfill what the tables
-- held before (a Collector's existing data).
CREATE TABLE IF NOT EXISTS {{.DB}}.{{local "faultline_errors"}} {{.OnCluster}} (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    Kind UInt8,
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    SeverityNumber Int32,
    SeverityText LowCardinality(String) CODEC(ZSTD(1)),
    Body String CODEC(ZSTD(1)),
    Name LowCardinality(String) CODEC(ZSTD(1)),
    Duration Int64 CODEC(T64, ZSTD(1)),
    StatusCode LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    Attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    EventNames Array(LowCardinality(String)) CODEC(ZSTD(1)),
    EventAttributes Array(Map(LowCardinality(String), String)) CODEC(ZSTD(1)),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1
) ENGINE = {{engine "MergeTree"}}
PARTITION BY toDate(Timestamp)
ORDER BY (Timestamp)
SETTINGS index_granularity = 8192{{dedup}};
{{distributed "faultline_errors" "cityHash64(TraceId)"}}
CREATE MATERIALIZED VIEW IF NOT EXISTS {{.DB}}.{{local "faultline_errors_logs_mv"}} {{.OnCluster}}
TO {{.DB}}.{{local "faultline_errors"}}
AS {{template "logErrors" .}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{.DB}}.{{local "faultline_errors_spans_mv"}} {{.OnCluster}}
TO {{.DB}}.{{local "faultline_errors"}}
AS {{template "spanErrors" .}};
INSERT INTO {{.DB}}.{{local "faultline_errors"}} {{template "logErrors" .}};
INSERT INTO {{.DB}}.{{local "faultline_errors"}} {{template "spanErrors" .}};
{{define "logErrors"}}SELECT
    Timestamp, 0 AS Kind, TraceId, SpanId,
    LogAttributes['faultline.parent_span_id'] AS ParentSpanId,
    ServiceName, toInt32(SeverityNumber) AS SeverityNumber, SeverityText, Body,
    {{col "otel_logs" "ScopeName" "''"}} AS Name, 0 AS Duration, '' AS StatusCode,
    ResourceAttributes, LogAttributes AS Attributes,
    CAST([], 'Array(LowCardinality(String))') AS EventNames,
    CAST([], 'Array(Map(LowCardinality(String), String))') AS EventAttributes
FROM {{.DB}}.{{local "otel_logs"}}
WHERE SeverityNumber >= 13{{end}}
{{define "spanErrors"}}SELECT
    Timestamp, 1 AS Kind, TraceId, SpanId, ParentSpanId,
    ServiceName, toInt32OrZero(SpanAttributes['faultline.severity']) AS SeverityNumber,
    SpanAttributes['faultline.severity_text'] AS SeverityText, StatusMessage AS Body,
    SpanName AS Name, toInt64(Duration) AS Duration, StatusCode,
    ResourceAttributes, SpanAttributes AS Attributes,
    `Events.Name` AS EventNames, `Events.Attributes` AS EventAttributes
FROM {{.DB}}.{{local "otel_traces"}}
WHERE StatusCode IN ('Error', 'STATUS_CODE_ERROR') OR toInt32OrZero(SpanAttributes['faultline.severity']) >= 13{{end}}
