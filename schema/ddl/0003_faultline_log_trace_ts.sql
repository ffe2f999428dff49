-- faultline's trace id → time range lookup for log records (the
-- Collector keeps one for spans only), so that reading one trace scans the
-- partitions of its time range instead of the whole table.
CREATE TABLE IF NOT EXISTS {{.DB}}.{{local "faultline_log_trace_ts"}} {{.OnCluster}} (
    TraceId String CODEC(ZSTD(1)),
    Start SimpleAggregateFunction(min, DateTime) CODEC(ZSTD(1)),
    End SimpleAggregateFunction(max, DateTime) CODEC(ZSTD(1))
) ENGINE = {{engine "AggregatingMergeTree"}}
PARTITION BY toStartOfWeek(Start)
ORDER BY (TraceId)
SETTINGS index_granularity = 8192;
{{distributed "faultline_log_trace_ts" "cityHash64(TraceId)"}}
CREATE MATERIALIZED VIEW IF NOT EXISTS {{.DB}}.{{local "faultline_log_trace_ts_mv"}} {{.OnCluster}}
TO {{.DB}}.{{local "faultline_log_trace_ts"}}
AS SELECT
    TraceId,
    min(Timestamp) AS Start,
    max(Timestamp) AS End
FROM {{.DB}}.{{local "otel_logs"}}
WHERE TraceId != ''
GROUP BY TraceId;
INSERT INTO {{.DB}}.{{local "faultline_log_trace_ts"}}
SELECT TraceId, min(Timestamp), max(Timestamp)
FROM {{.DB}}.{{local "otel_logs"}}
WHERE TraceId != ''
GROUP BY TraceId;
