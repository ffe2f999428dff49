-- A simulated incident written by plain SQL into the Collector's
-- otel_traces (collector_v2.sql), as a large deployment's would be:
-- TRACES traces of four spans, a web front calling an order service that
-- calls a payment service, and a catalogue service (the healthy noise),
-- spread evenly over the ten-minute window from WINDOW_NS (Unix ns), after
-- BASE_TRACES healthy traces in the minute before it. From the window's
-- middle on, one trace in three fails at its deepest span: the payment
-- service's connection pool is exhausted (the injected fault), and the
-- order service and the front fail after it (the cascade).
INSERT INTO DB.otel_traces (Timestamp, TraceId, SpanId, ParentSpanId, SpanName, SpanKind, ServiceName,
    ResourceAttributes, SpanAttributes, Duration, StatusCode, StatusMessage)
SELECT
    fromUnixTimestamp64Nano(toInt64(start + [0, 1000000, 2000000, 1000000][j + 1])) AS Timestamp,
    lower(hex(MD5(toString(t)))) AS TraceId,
    substring(lower(hex(MD5(concat(toString(t), '-', toString(j))))), 1, 16) AS SpanId,
    if(j = 0, '', substring(lower(hex(MD5(concat(toString(t), '-', toString([0, 0, 1, 0][j + 1]))))), 1, 16)) AS ParentSpanId,
    ['GET /checkout', 'PlaceOrder', 'Charge', 'GetProduct'][j + 1] AS SpanName,
    'Server' AS SpanKind,
    ['web', 'orders', 'payments', 'catalog'][j + 1] AS ServiceName,
    map('service.name', ['web', 'orders', 'payments', 'catalog'][j + 1], 'service.version', '2.3.1',
        'host.name', concat(['web', 'orders', 'payments', 'catalog'][j + 1], '-', toString(t % 4))) AS ResourceAttributes,
    if(bad AND j < 3, map('http.response.status_code', ['502', '503', '500'][j + 1]), map('http.response.status_code', '200')) AS SpanAttributes,
    toUInt64(if(bad AND j < 3, [5004000000, 5002000000, 5000000000][j + 1], [48000000, 40000000, 30000000, 12000000][j + 1] + (t % 7) * 1000000)) AS Duration,
    if(bad AND j < 3, 'Error', 'Ok') AS StatusCode,
    if(bad AND j < 3, ['upstream orders returned 503', 'call to payments failed: deadline exceeded after 5000ms',
        'connection pool exhausted: no connection available after 5000ms'][j + 1], '') AS StatusMessage
FROM (
    SELECT number AS t, arrayJoin([0, 1, 2, 3]) AS j,
        if(t < BASE_TRACES, WINDOW_NS - 60000000000 + intDiv(t * 60000000000, BASE_TRACES),
            WINDOW_NS + intDiv((t - BASE_TRACES) * 600000000000, TRACES)) AS start,
        t >= BASE_TRACES + intDiv(TRACES, 2) AND t % 3 = 0 AS bad
    FROM numbers(BASE_TRACES + TRACES)
);
