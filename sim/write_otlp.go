package sim

import (
	"path/filepath"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/faultline/faultline/schema"
)

// batchSize is how many records one exported line holds at most, as the
// Collector's batch processor would send them.
const batchSize = 512

// batches calls fn with consecutive index ranges of the records that keep
// says to include, each at most batchSize long and one second of time.
func (inc *Incident) batches(keep func(int) bool, fn func(idx []int) error) error {
	var idx []int
	var first time.Time
	for i := range inc.Records {
		if !keep(i) {
			continue
		}
		if len(idx) > 0 && (len(idx) == batchSize || inc.Records[i].Time.Sub(first) > time.Second) {
			if err := fn(idx); err != nil {
				return err
			}
			idx = idx[:0]
		}
		if len(idx) == 0 {
			first = inc.Records[i].Time
		}
		idx = append(idx, i)
	}
	if len(idx) == 0 {
		return nil
	}
	return fn(idx)
}

// resourceKey groups records of one pod and version into one resource.
type resourceKey struct {
	p       *pod
	version string
}

func (inc *Incident) resourceOf(i int) resourceKey {
	return resourceKey{inc.meta[i].pod, inc.Records[i].Attrs[schema.AttrServiceVersion]}
}

func fillResource(res pcommon.Resource, ns string, n *node, rec *schema.Record) {
	a := res.Attributes()
	a.PutStr("service.name", n.name)
	a.PutStr("service.namespace", ns)
	for _, k := range []string{schema.AttrServiceVersion, schema.AttrHost, schema.AttrPod} {
		a.PutStr(k, rec.Attrs[k])
	}
	a.PutStr("telemetry.sdk.language", [...]string{"go", "java", "python", "nodejs"}[n.stack])
	a.PutStr("telemetry.sdk.name", "opentelemetry")
}

func putAttrs(m pcommon.Map, attrs map[string]string) {
	for _, k := range sortedKeys(attrs) {
		if !isResourceAttr(k) {
			m.PutStr(k, attrs[k])
		}
	}
}

func traceID(id schema.TraceID) pcommon.TraceID { return pcommon.TraceID(id.Bytes16()) }

func spanID(id schema.SpanID) pcommon.SpanID {
	var b [8]byte
	for i := 0; i < 8 && 2*i+1 < len(id); i++ {
		b[i] = unhex(id[2*i])<<4 | unhex(id[2*i+1])
	}
	return pcommon.SpanID(b)
}

func unhex(c byte) byte {
	if c >= 'a' {
		return c - 'a' + 10
	}
	return c - '0'
}

func scopeName(s stack) string {
	return [...]string{"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp",
		"io.opentelemetry.spring-webmvc-6.0", "opentelemetry.instrumentation.flask",
		"@opentelemetry/instrumentation-http"}[s]
}

// writeTraces writes every span to traces.otlp.jsonl.gz.
func (inc *Incident) writeTraces(dir string) error {
	m := &ptrace.JSONMarshaler{}
	return writeLines(filepath.Join(dir, "traces.otlp.jsonl.gz"), func(emit func([]byte) error) error {
		return inc.batches(func(i int) bool { return inc.Records[i].Type == schema.TypeSpan }, func(idx []int) error {
			b, err := m.MarshalTraces(inc.traceBatch(idx))
			if err != nil {
				return err
			}
			return emit(b)
		})
	})
}

func (inc *Incident) traceBatch(idx []int) ptrace.Traces {
	td := ptrace.NewTraces()
	groups := map[resourceKey]ptrace.SpanSlice{}
	for _, i := range idx {
		key := inc.resourceOf(i)
		spans, ok := groups[key]
		if !ok {
			rs := td.ResourceSpans().AppendEmpty()
			fillResource(rs.Resource(), inc.g.namespace, inc.meta[i].node, &inc.Records[i])
			ss := rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName(scopeName(inc.meta[i].node.stack))
			spans = ss.Spans()
			groups[key] = spans
		}
		fillSpan(spans.AppendEmpty(), &inc.Records[i], inc.meta[i].kind)
	}
	return td
}

func fillSpan(sp ptrace.Span, rec *schema.Record, kind spanKind) {
	sp.SetTraceID(traceID(rec.TraceID))
	sp.SetSpanID(spanID(rec.SpanID))
	if rec.ParentSpanID != "" {
		sp.SetParentSpanID(spanID(rec.ParentSpanID))
	}
	sp.SetName(rec.Name)
	sp.SetKind([...]ptrace.SpanKind{ptrace.SpanKindServer, ptrace.SpanKindClient, ptrace.SpanKindProducer,
		ptrace.SpanKindConsumer, ptrace.SpanKindInternal}[kind])
	sp.SetStartTimestamp(pcommon.NewTimestampFromTime(rec.Time))
	sp.SetEndTimestamp(pcommon.NewTimestampFromTime(rec.End()))
	putAttrs(sp.Attributes(), rec.Attrs)
	if rec.Status == schema.StatusError {
		sp.Status().SetCode(ptrace.StatusCodeError)
		sp.Status().SetMessage(rec.Body)
	}
}

// writeOTLPLogs writes the logs of OTel-SDK services to logs.otlp.jsonl(.gz).
func (inc *Incident) writeOTLPLogs(dir string) error {
	name := "logs.otlp.jsonl"
	if inc.Config.Seed%2 == 0 {
		name += ".gz"
	}
	m := &plog.JSONMarshaler{}
	keep := func(i int) bool { return inc.Records[i].Type == schema.TypeLog && inc.meta[i].node.format == fmtOTLP }
	return writeLines(filepath.Join(dir, name), func(emit func([]byte) error) error {
		return inc.batches(keep, func(idx []int) error {
			b, err := m.MarshalLogs(inc.logBatch(idx))
			if err != nil {
				return err
			}
			return emit(b)
		})
	})
}

func (inc *Incident) logBatch(idx []int) plog.Logs {
	ld := plog.NewLogs()
	groups := map[resourceKey]plog.LogRecordSlice{}
	for _, i := range idx {
		key := inc.resourceOf(i)
		recs, ok := groups[key]
		if !ok {
			rl := ld.ResourceLogs().AppendEmpty()
			fillResource(rl.Resource(), inc.g.namespace, inc.meta[i].node, &inc.Records[i])
			sl := rl.ScopeLogs().AppendEmpty()
			sl.Scope().SetName(scopeName(inc.meta[i].node.stack))
			recs = sl.LogRecords()
			groups[key] = recs
		}
		fillLog(recs.AppendEmpty(), &inc.Records[i], inc.meta[i].at)
	}
	return ld
}

func fillLog(lr plog.LogRecord, rec *schema.Record, at time.Time) {
	lr.SetTimestamp(pcommon.NewTimestampFromTime(rec.Time))
	lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(at.Add(150 * time.Millisecond)))
	lr.SetSeverityNumber(plog.SeverityNumber(rec.Severity))
	lr.SetSeverityText(rec.SeverityText)
	lr.Body().SetStr(rec.Body)
	if rec.TraceID != "" {
		lr.SetTraceID(traceID(rec.TraceID))
		lr.SetSpanID(spanID(rec.SpanID))
	}
	if rec.Name != "" {
		lr.Attributes().PutStr("code.namespace", rec.Name)
	}
	putAttrs(lr.Attributes(), rec.Attrs)
}
