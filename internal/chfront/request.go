package chfront

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// request is one HTTP request reduced to what the engine needs.
type request struct {
	sql      string
	data     []byte // INSERT data when the SQL came in the URL and the body is not empty
	database string
	format   string
	params   []Param
	settings []setting
}

type setting struct{ name, value string }

// isProtocolParam reports whether a URL parameter belongs to the HTTP
// interface rather than being a setting.
func isProtocolParam(k string) bool {
	switch k {
	case "query", "database", "default_format", "client_protocol_version",
		"query_id", "session_id", "session_timeout", "session_check",
		"compress", "decompress", "user", "password", "quota_key",
		"buffer_size", "wait_end_of_query", "enable_http_compression",
		"http_zlib_compression_level", "network_compression_method",
		// Asynchronous inserts are a server feature; the front inserts synchronously.
		"async_insert", "wait_for_async_insert":
		return true
	}
	return false
}

var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// maxBody caps a request body after decompression.
const maxBody = 1 << 30

// parseRequest reads r into a request, or returns an *Exception.
func parseRequest(r *http.Request) (*request, error) {
	q := r.URL.Query()
	if q.Get("compress") == "1" || q.Get("decompress") == "1" {
		return nil, newException(codeNotImplemented, "NOT_IMPLEMENTED", "native block compression (compress=1) is not supported by the chDB front")
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	req := &request{database: q.Get("database"), format: q.Get("default_format")}
	if req.database == "" {
		req.database = "default"
	}
	if req.format == "" {
		req.format = "TabSeparated"
	}
	req.sql = q.Get("query")
	switch {
	case req.sql == "":
		req.sql = string(body)
	case len(body) > 0:
		req.data = body
	}
	if strings.TrimSpace(req.sql) == "" {
		return nil, newException(codeCannotParseInput, "SYNTAX_ERROR", "Empty query")
	}
	if err := req.splitParams(q); err != nil {
		return nil, err
	}
	return req, nil
}

func (req *request) splitParams(q map[string][]string) error {
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := q[k][len(q[k])-1]
		switch {
		case strings.HasPrefix(k, "param_"):
			req.params = append(req.params, Param{Name: strings.TrimPrefix(k, "param_"), Value: v})
		case isProtocolParam(k):
		case !settingName.MatchString(k):
			return newException(codeBadArguments, "BAD_ARGUMENTS", fmt.Sprintf("Invalid setting name %q", k))
		default:
			req.settings = append(req.settings, setting{k, v})
		}
	}
	return nil
}

func readBody(r *http.Request) ([]byte, error) {
	var rd io.Reader = r.Body
	switch enc := strings.ToLower(r.Header.Get("Content-Encoding")); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			if err == io.EOF {
				return nil, nil
			}
			return nil, newException(codeCannotParseInput, "CANNOT_DECOMPRESS", "cannot read gzip body: "+err.Error())
		}
		rd = zr
	case "deflate":
		rd = flate.NewReader(r.Body)
	default:
		return nil, newException(codeNotImplemented, "NOT_IMPLEMENTED", "Content-Encoding "+strconv.Quote(enc)+" is not supported by the chDB front")
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(rd, maxBody+1))
	if err != nil {
		return nil, newException(codeCannotParseInput, "CANNOT_READ_ALL_DATA", "cannot read the request body: "+err.Error())
	}
	if n > maxBody {
		return nil, newException(codeBadArguments, "TOO_LARGE_STRING_SIZE", "request body over the front's 1 GiB limit")
	}
	return buf.Bytes(), nil
}

// setStatement renders a SET for one setting: numbers bare, anything else
// as a quoted string literal.
func (s setting) setStatement() string {
	if _, err := strconv.ParseFloat(s.value, 64); err == nil {
		return "SET " + s.name + " = " + s.value
	}
	return "SET " + s.name + " = " + quote(s.value)
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(s) + "'"
}
