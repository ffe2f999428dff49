package clickhouse

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// Alert conditions: what WindowQuery.ErrorsOnly keeps (a log at WARN or
// above; a span with an error status or a faultline severity of WARN or
// above), as SQL over each source table.
const (
	logAlertCond  = "SeverityNumber >= 13"
	spanAlertCond = "(StatusCode IN ('Error', 'STATUS_CODE_ERROR') OR toInt32OrZero(SpanAttributes['faultline.severity']) >= 13)"
	// What schema.Record.IsError is, likewise.
	logErrorCond  = "SeverityNumber >= 17"
	spanErrorCond = "StatusCode IN ('Error', 'STATUS_CODE_ERROR')"
)

// source is one table read as rows of the common layout (see row).
type source struct {
	table  string
	sel    string // the SELECT list
	hasSec bool   // the table has TimestampTime (a DateTime key column)
}

const mapSS, arrS, arrMapSS = "'Map(String, String)'", "'Array(String)'", "'Array(Map(String, String))'"

// mergedAttrs is a source's attributes as one map, Attrs: the resource's
// merged with the record's own (own, its column) by the server, record
// ones win; and as they are sent (wireCols): the map less the template
// and signature as text (attrText), and those two apart.
func mergedAttrs(own string) string {
	return "mapUpdate(CAST(ResourceAttributes, " + mapSS + "), CAST(" + own + ", " + mapSS + ")) AS Attrs, " +
		attrText("mapFilter((k, v) -> k NOT IN ('"+keyTemplate+"', '"+keySignature+"'), Attrs)") + " AS AttrsText, " +
		"mapContains(Attrs, '" + keyTemplate + "') AS HasTemplate, " +
		"Attrs['" + keyTemplate + "'] AS Template, Attrs['" + keySignature + "'] AS Signature"
}

// attrText is the map m as text, each key and value its length in bytes,
// a colon and its bytes, one after the other ({"a": "bc"} is "1:a2:bc"),
// which decodeAttrSet reads back. The server writes it about three times
// as fast as toJSONString's object (2.2 s against 7.0 for the two maps of
// 5.4M log records), and it reads without a JSON decoder.
func attrText(m string) string {
	return "arrayStringConcat(arrayMap((k, v) -> concat(toString(length(k)), ':', k, toString(length(v)), ':', v), " +
		"mapKeys(" + m + "), mapValues(" + m + ")))"
}

func (s *Store) logSource() source {
	name := "''"
	if s.layout.hasCol(schema.TableLogs, "ScopeName") {
		name = "ScopeName"
	}
	sel := strings.Join([]string{
		"toUInt8(0) AS Kind", "Timestamp", "TraceId", "SpanId", "'' AS ParentSpanId",
		"toString(ServiceName) AS Service", "toInt32(SeverityNumber) AS Severity",
		"toString(SeverityText) AS SevText", "Body", "toString(" + name + ") AS Name",
		"toInt64(0) AS Dur", "'' AS Status",
		mergedAttrs("LogAttributes"),
		"CAST([], " + arrS + ") AS EvNames", "CAST([], " + arrMapSS + ") AS EvAttrs",
	}, ", ")
	return source{table: schema.TableLogs, sel: sel, hasSec: s.layout.hasCol(schema.TableLogs, "TimestampTime")}
}

func (s *Store) spanSource() source {
	evNames, evAttrs := "CAST([], "+arrS+")", "CAST([], "+arrMapSS+")"
	if s.layout.hasCol(schema.TableTraces, "Events.Name") {
		evNames = "CAST(`Events.Name`, " + arrS + ")"
	}
	if s.layout.hasCol(schema.TableTraces, "Events.Attributes") {
		evAttrs = "CAST(`Events.Attributes`, " + arrMapSS + ")"
	}
	sel := strings.Join([]string{
		"toUInt8(1) AS Kind", "Timestamp", "TraceId", "SpanId", "ParentSpanId",
		"toString(ServiceName) AS Service", "toInt32(0) AS Severity", "'' AS SevText",
		"StatusMessage AS Body", "toString(SpanName) AS Name", "toInt64(Duration) AS Dur",
		"toString(StatusCode) AS Status",
		mergedAttrs("SpanAttributes"),
		evNames + " AS EvNames", evAttrs + " AS EvAttrs",
	}, ", ")
	return source{table: schema.TableTraces, sel: sel}
}

func (s *Store) errorSource() source {
	sel := strings.Join([]string{
		"Kind", "Timestamp", "TraceId", "SpanId", "ParentSpanId", "toString(ServiceName) AS Service",
		"SeverityNumber AS Severity", "toString(SeverityText) AS SevText", "Body", "toString(Name) AS Name",
		"Duration AS Dur", "toString(StatusCode) AS Status",
		mergedAttrs("Attributes"),
		"CAST(EventNames, " + arrS + ") AS EvNames", "CAST(EventAttributes, " + arrMapSS + ") AS EvAttrs",
	}, ", ")
	return source{table: schema.TableErrors, sel: sel}
}

// smallRead is the most rows a read takes per part before their union
// (unionSQL): a read of more sorts once, the union.
const smallRead = 1 << 16

// part is one SELECT of a UNION ALL with its arguments.
type part struct {
	sql  string
	args []any
}

// timeCond restricts a source to [from, to] (to inclusive when closed).
func timeCond(src source, from, to time.Time, closed bool) part {
	op := "<"
	if closed {
		op = "<="
	}
	p := part{
		sql:  "Timestamp >= fromUnixTimestamp64Nano(toInt64(?)) AND Timestamp " + op + " fromUnixTimestamp64Nano(toInt64(?))",
		args: []any{from.UnixNano(), to.UnixNano()},
	}
	if src.hasSec { // lets the primary key and partitions of otel_logs prune
		p.sql += " AND TimestampTime >= toDateTime(?) AND TimestampTime <= toDateTime(?)"
		p.args = append(p.args, from.Unix(), to.Unix()+1)
	}
	return p
}

// query unions parts and yields their rows as records ordered by time.
func (s *Store) query(ctx context.Context, what string, parts []part, limit int) iter.Seq2[schema.Record, error] {
	return s.queryOrdered(ctx, what, parts, limit, false)
}

// unionSQL is the statement of query: the parts' rows in time order, the
// first limit of them, or with newest the last limit (still in time order),
// projected onto cols (wireCols, or wireColsN). A read of a few rows (at
// most smallRead) takes each part's first (or last) limit first: the
// server then sorts one table's time column and reads the other columns
// of those rows alone, where the union's sort reads every column of every
// row (a service's first 16 records of a 10M-row window: 1.15 s, against
// 0.12 s).
func unionSQL(sqls []string, limit int, newest bool, cols string) string {
	if limit <= smallRead && len(sqls) > 1 {
		each := make([]string, len(sqls))
		for i, q := range sqls {
			each[i] = q + " ORDER BY " + orderBy(newest, rowOrder...) + " LIMIT " + fmt.Sprint(limit)
		}
		sqls = each
	}
	union := "SELECT * FROM (" + strings.Join(sqls, " UNION ALL ") + ")"
	if newest {
		return wire("SELECT * FROM ("+union+" ORDER BY "+orderBy(true, rowOrder...)+" LIMIT "+fmt.Sprint(limit)+") ORDER BY "+orderBy(false, rowOrder...), cols)
	}
	return wire(union+" ORDER BY "+orderBy(false, rowOrder...)+" LIMIT "+fmt.Sprint(limit), cols)
}

// rowOrder is the order of a read's rows: by time, a log before a span of
// the same time, then by trace, span and message, so that rows of the same
// time (a parent and the child it starts, two lines of a span) come in the
// same order from every read, of a whole window or of a stretch of it.
var rowOrder = []string{"Timestamp", "Kind", "TraceId", "SpanId", "Body"}

// orderBy is an ORDER BY list of keys, each descending when desc.
func orderBy(desc bool, keys ...string) string {
	if !desc {
		return strings.Join(keys, ", ")
	}
	return strings.Join(keys, " DESC, ") + " DESC"
}

// wireCols is the row layout as it is sent: the columns of few distinct
// values (a service, an operation, a message) as LowCardinality, which the
// Native format sends as a dictionary per block and an index per row, cast
// after the sort (wire), which is slower on them. The attributes cross as
// one text per row (attrText), decoded once per distinct one (attrSets):
// decoded as a Map by the driver, each key and value of each row was a
// string made and a map built by reflection, 5.7 of the process's 23 CPU
// seconds on the 10M-row window. The text is made by each part before the
// sort, which then moves strings rather than maps, and the server writes
// it about three times as fast as JSON (the sample's query, by hand,
// 7.6-8.8 s -> 5.9-7.1). The template and signature faultline stored cross
// as columns of their own: long texts of a few distinct values, they were
// most of what the server wrote of the attributes (8.5 s for the sample's
// query rather than 10.7).
var wireCols = strings.Join([]string{
	"Kind", "Timestamp", "TraceId", "SpanId", "ParentSpanId",
	"CAST(Service, " + lowCard + ") AS Service", "Severity", "CAST(SevText, " + lowCard + ") AS SevText",
	"CAST(Body, " + lowCard + ") AS Body", "CAST(Name, " + lowCard + ") AS Name", "Dur",
	"CAST(Status, " + lowCard + ") AS Status",
	"CAST(AttrsText, " + lowCard + ") AS AttrsText", "HasTemplate",
	"CAST(Template, " + lowCard + ") AS Template", "CAST(Signature, " + lowCard + ") AS Signature",
	"EvNames", "EvAttrs",
}, ", ")

// wireColsN is wireCols and N, how many records each row stands for: the
// layout of a read whose parts group records (SampledRecords').
var wireColsN = wireCols + ", N"

const lowCard = "'LowCardinality(String)'"

// wire projects a sorted statement's rows onto cols (wireCols or
// wireColsN); a projection of a subquery keeps its rows' order.
func wire(sorted, cols string) string {
	return "SELECT " + cols + " FROM (" + sorted + ")"
}

// queryOrdered is query, keeping the newest limit rows when newest is set.
func (s *Store) queryOrdered(ctx context.Context, what string, parts []part, limit int, newest bool) iter.Seq2[schema.Record, error] {
	return s.queryCols(ctx, what, parts, limit, newest, wireCols)
}

// queryCols is queryOrdered with the rows projected onto cols.
func (s *Store) queryCols(ctx context.Context, what string, parts []part, limit int, newest bool, cols string) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		if err := s.check(); err != nil {
			yield(schema.Record{}, fmt.Errorf("cannot read %s: %w", what, err))
			return
		}
		if len(parts) == 0 {
			return
		}
		sqls, args := splitParts(parts)
		q := unionSQL(sqls, limit, newest, cols)
		t0 := time.Now()
		rows, err := s.conn.Query(ctx, q, args...)
		s.log.Debug("query", "took", time.Since(t0), "sql", q)
		if err != nil {
			yield(schema.Record{}, fmt.Errorf("cannot read %s: %w", what, err))
			return
		}
		decodeAhead(rows, what, yield)
	}
}

// splitParts gives the statements of parts and their arguments, in order.
func splitParts(parts []part) ([]string, []any) {
	sqls := make([]string, len(parts))
	var args []any
	for i, p := range parts {
		sqls[i], args = p.sql, append(args, p.args...)
	}
	return sqls, args
}

func (s *Store) selectFrom(src source, where string, args ...any) part {
	return part{sql: "SELECT " + src.sel + " FROM " + s.table(src.table) + " WHERE " + where, args: args}
}

func and(p part, cond string, args ...any) part {
	return part{sql: p.sql + " AND " + cond, args: append(p.args, args...)}
}
