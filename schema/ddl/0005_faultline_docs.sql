-- faultline's documents (generated runbooks, Slack message state), one per
-- (Kind, Id); the newest Version wins.
CREATE TABLE IF NOT EXISTS {{.DB}}.{{local "faultline_docs"}} {{.OnCluster}} (
    Kind LowCardinality(String),
    Id String,
    Body String CODEC(ZSTD(1)),
    Version DateTime64(9)
) ENGINE = {{engine "ReplacingMergeTree" "Version"}}
ORDER BY (Kind, Id)
SETTINGS index_granularity = 1024;
{{distributed "faultline_docs" "cityHash64(Kind, Id)"}}
