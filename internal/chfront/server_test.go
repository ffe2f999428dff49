package chfront

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
)

// fakeEngine records the statements it gets and answers from a table.
type fakeEngine struct {
	calls   []string
	params  [][]Param
	answers map[string]string // SQL prefix → TabSeparated answer
	fail    map[string]string // SQL prefix → error text
	infile  []byte            // the data of the last INFILE insert
}

var infilePath = regexp.MustCompile(`FROM INFILE '([^']+)'`)

func (f *fakeEngine) Query(sql, format string, params []Param) ([]byte, error) {
	f.calls = append(f.calls, sql)
	f.params = append(f.params, params)
	if m := infilePath.FindStringSubmatch(sql); m != nil {
		f.infile, _ = os.ReadFile(m[1])
	}
	for p, msg := range f.fail {
		if strings.HasPrefix(sql, p) {
			return nil, &EngineError{Text: msg}
		}
	}
	for p, a := range f.answers {
		if strings.HasPrefix(sql, p) {
			return []byte(a), nil
		}
	}
	return nil, nil
}

func (f *fakeEngine) Close() error { return nil }

func newTestServer(t *testing.T, eng *fakeEngine) *Server {
	t.Helper()
	if eng.answers == nil {
		eng.answers = map[string]string{}
	}
	eng.answers["SELECT displayName()"] = "chdb\t26.5.1.1\tUTC\n"
	s, err := NewServer(eng, Config{TempDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng.calls, eng.params = nil, nil
	return s
}

func do(t *testing.T, s *Server, query url.Values, body []byte, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/?"+query.Encode(), bytes.NewReader(body))
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

func TestHandshake(t *testing.T) {
	eng := &fakeEngine{}
	s := newTestServer(t, eng)
	w := do(t, s, url.Values{"default_format": {"Native"}}, []byte("SELECT displayName(), version(), revision(), timezone()"), nil)
	if w.Code != 200 || len(eng.calls) != 0 {
		t.Fatalf("status %d, engine calls %q: want 200 answered by the front", w.Code, eng.calls)
	}
	b := w.Body.Bytes()
	// Block info (1, false, 2, -1, 0), 4 columns, 1 row.
	if !bytes.HasPrefix(b, []byte{1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0, 4, 1}) {
		t.Fatalf("block header % x", b[:10])
	}
	rd := bytes.NewReader(b[10:])
	str := func() string {
		n, _ := binary.ReadUvarint(rd)
		s := make([]byte, n)
		io.ReadFull(rd, s)
		return string(s)
	}
	var got []string
	for range 4 {
		name, typ := str(), str()
		kind, _ := rd.ReadByte()
		if kind != 0 {
			t.Errorf("column %s: serialization kind %d, want 0", name, kind)
		}
		if typ == "UInt32" {
			var v uint32
			binary.Read(rd, binary.LittleEndian, &v)
			got = append(got, name+"="+string(rune('0'+v)))
			continue
		}
		got = append(got, name+"="+str())
	}
	want := "displayName()=chdb version()=26.5.1.1 revision()=0 timezone()=UTC"
	if strings.Join(got, " ") != want || rd.Len() != 0 {
		t.Errorf("handshake = %q (%d bytes left), want %q", strings.Join(got, " "), rd.Len(), want)
	}
}

func TestInsertBody(t *testing.T) {
	eng := &fakeEngine{}
	s := newTestServer(t, eng)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("native\n\nbytes"))
	zw.Close()
	q := url.Values{
		"query":    {"INSERT INTO `db`.`t` (`a`, `b`) SETTINGS async_insert=0 FORMAT Native"},
		"database": {"db"}, "insert_deduplication_token": {"tok-1"}, "max_execution_time": {"65"},
		"client_protocol_version": {"54460"}, "default_format": {"Native"},
	}
	w := do(t, s, q, gz.Bytes(), map[string]string{"Content-Encoding": "gzip"})
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	want := []string{
		"USE `db`",
		"SET insert_deduplication_token = 'tok-1'; SET max_execution_time = 65",
		"INSERT INTO `db`.`t` (`a`, `b`) FROM INFILE '*' SETTINGS async_insert=0 FORMAT Native",
		"SET insert_deduplication_token = DEFAULT; SET max_execution_time = DEFAULT",
	}
	calls := append([]string(nil), eng.calls...)
	if len(calls) == 4 {
		calls[2] = infilePath.ReplaceAllString(calls[2], "FROM INFILE '*'")
	}
	if strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("engine calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
	if string(eng.infile) != "native\n\nbytes" {
		t.Errorf("the INFILE held %q, want the decompressed body", eng.infile)
	}
	// A second request on the same database does not USE again.
	eng.calls = nil
	do(t, s, url.Values{"database": {"db"}}, []byte("SELECT 1"), nil)
	if len(eng.calls) != 1 || eng.calls[0] != "SELECT 1" {
		t.Errorf("calls %q, want only the statement", eng.calls)
	}
}

func TestParamsAndErrors(t *testing.T) {
	eng := &fakeEngine{fail: map[string]string{"SELECT nope": "Code: 46. DB::Exception: Code: 46. DB::Exception: Unknown function nope. (UNKNOWN_FUNCTION) (version 26.5.1.1)"}}
	s := newTestServer(t, eng)
	w := do(t, s, url.Values{"param_id": {"a\\tb"}}, []byte("SELECT {id:String}"), nil)
	if w.Code != 200 || len(eng.params) == 0 || len(eng.params[len(eng.params)-1]) != 1 || eng.params[len(eng.params)-1][0] != (Param{"id", "a\\tb"}) {
		t.Errorf("params %v, want id bound for the call only", eng.params)
	}
	w = do(t, s, nil, []byte("SELECT nope()"), nil)
	if w.Code != 500 || w.Header().Get("X-ClickHouse-Exception-Code") != "46" ||
		strings.TrimSpace(w.Body.String()) != "Code: 46. DB::Exception: Unknown function nope. (UNKNOWN_FUNCTION) (version 26.5.1.1)" {
		t.Errorf("error reply %d %q %q", w.Code, w.Header().Get("X-ClickHouse-Exception-Code"), w.Body)
	}
	for name, tc := range map[string]struct {
		q    url.Values
		body string
		hdr  map[string]string
		code string
	}{
		"native compression": {url.Values{"compress": {"1"}}, "SELECT 1", nil, "48"},
		"brotli body":        {url.Values{"query": {"INSERT INTO t FORMAT Native"}}, "x", map[string]string{"Content-Encoding": "br"}, "48"},
		"empty query":        {nil, "  ", nil, "27"},
		"bad setting":        {url.Values{"max threads": {"1"}}, "SELECT 1", nil, "36"},
		"data for a select":  {url.Values{"query": {"SELECT 1"}}, "data", nil, "48"},
		"bad gzip":           {nil, "not gzip", map[string]string{"Content-Encoding": "gzip"}, "27"},
	} {
		w := do(t, s, tc.q, []byte(tc.body), tc.hdr)
		if w.Code != 500 || w.Header().Get("X-ClickHouse-Exception-Code") != tc.code || !strings.HasPrefix(w.Body.String(), "Code: "+tc.code+". DB::Exception: ") {
			t.Errorf("%s: %d code %q body %q, want exception %s", name, w.Code, w.Header().Get("X-ClickHouse-Exception-Code"), w.Body, tc.code)
		}
	}
}

func TestInfileInsert(t *testing.T) {
	for in, want := range map[string]string{
		"INSERT INTO t FORMAT Native":                              "INSERT INTO t FROM INFILE '/f' FORMAT Native",
		"insert into db.t (a,b) settings x=1, y='2' format Native": "insert into db.t (a,b) FROM INFILE '/f' SETTINGS x=1, y='2' FORMAT Native",
		"INSERT INTO t VALUES":                                     "INSERT INTO t FROM INFILE '/f' FORMAT Values",
		"INSERT INTO t FORMAT JSONEachRow;":                        "INSERT INTO t FROM INFILE '/f' FORMAT JSONEachRow",
	} {
		got, err := infileInsert(in, "/f")
		if err != nil || got != want {
			t.Errorf("infileInsert(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := infileInsert("SELECT 1", "/f"); err == nil {
		t.Error("a SELECT with data was accepted")
	}
}

func TestCleanException(t *testing.T) {
	ex := cleanException("Code: 60. DB::Exception: Code: 60. DB::Exception: Table x does not exist. (UNKNOWN_TABLE)")
	if ex.Code != 60 || ex.Text != "Code: 60. DB::Exception: Table x does not exist. (UNKNOWN_TABLE)" {
		t.Errorf("cleanException = %+v", ex)
	}
	if ex := cleanException("segfault"); ex.Code != codeUnknownException || !strings.Contains(ex.Text, "segfault") {
		t.Errorf("an error without a code = %+v", ex)
	}
}
