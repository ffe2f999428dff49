-- One failing trace as a Collector writes it: a checkout span that timed
-- out calling payments, the payments span whose error is only in an
-- exception event, and their logs. STATUS stands for the status code of
-- the generation ('Error' or 'STATUS_CODE_ERROR'). Plain SQL, no faultline.
INSERT INTO DB.otel_traces (Timestamp, TraceId, SpanId, ParentSpanId, SpanName, SpanKind, ServiceName, ResourceAttributes, SpanAttributes, Duration, StatusCode, StatusMessage, `Events.Timestamp`, `Events.Name`, `Events.Attributes`) VALUES
('2026-11-30 10:00:00.100000000', '5b8efff798038103d269b633813fc60c', 'eee19b7ec3c1b174', '', 'POST /checkout', 'Server', 'checkout', {'service.name':'checkout','service.version':'1.4.2'}, {'http.response.status_code':'504'}, 3000000000, 'STATUS', 'call to payments exceeded 3000ms', [], [], []),
('2026-11-30 10:00:00.200000000', '5b8efff798038103d269b633813fc60c', 'eee19b7ec3c1b175', 'eee19b7ec3c1b174', 'charge', 'Server', 'payments', {'service.name':'payments'}, {}, 2900000000, 'STATUS', '', ['2026-11-30 10:00:03.000000000'], ['exception'], [{'exception.type':'java.sql.SQLTransientConnectionException','exception.message':'HikariPool-1 - Connection is not available, request timed out after 2000ms'}]),
('2026-11-30 10:00:01.000000000', '5b8efff798038103d269b633813fc60c', 'eee19b7ec3c1b176', 'eee19b7ec3c1b175', 'SELECT orders', 'Client', 'payments', {'service.name':'payments'}, {}, 5000, 'Unset', '', [], [], []);
INSERT INTO DB.otel_logs (Timestamp, TraceId, SpanId, SeverityText, SeverityNumber, ServiceName, Body, ResourceAttributes, LogAttributes) VALUES
('2026-11-30 10:00:03.050000000', '5b8efff798038103d269b633813fc60c', 'eee19b7ec3c1b175', 'ERROR', 17, 'payments', 'HikariPool-1 - Connection is not available, request timed out after 2000ms', {'service.name':'payments','host.name':'pay-7f9c'}, {'thread':'http-nio-8080-exec-7'}),
('2026-11-30 10:00:03.120000000', '5b8efff798038103d269b633813fc60c', 'eee19b7ec3c1b174', 'WARN', 13, 'checkout', 'retrying payment call, attempt 2 of 3', {'service.name':'checkout'}, {}),
('2026-11-30 10:00:03.300000000', '5b8efff798038103d269b633813fc60c', 'eee19b7ec3c1b174', 'INFO', 9, 'checkout', 'falling back to cached price list', {'service.name':'checkout'}, {});
