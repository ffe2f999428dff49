package chfront

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Engine runs one SQL statement (or script) and returns its output in
// format. Implementations need not be safe for concurrent use: the server
// serialises calls.
type Engine interface {
	Query(sql, format string, params []Param) ([]byte, error)
	Close() error
}

// Param is a server-side query parameter: the value of a {name:Type}
// placeholder, in ClickHouse's escaped text form.
type Param struct{ Name, Value string }

// EngineError is a statement the engine refused; Text is its message.
type EngineError struct{ Text string }

func (e *EngineError) Error() string { return e.Text }

// ErrNoLibrary is returned by OpenLibCHDB when libchdb cannot be loaded.
var ErrNoLibrary = errors.New("cannot load libchdb")

// libCHDB binds the C API of libchdb through purego, without cgo.
type libCHDB struct {
	handle uintptr
	connp  unsafe.Pointer // chdb_connection *
	conn   unsafe.Pointer // chdb_connection

	connect     func(argc int32, argv unsafe.Pointer) unsafe.Pointer
	closeConn   func(connp unsafe.Pointer)
	queryN      func(conn unsafe.Pointer, q unsafe.Pointer, qlen uintptr, f unsafe.Pointer, flen uintptr) unsafe.Pointer
	queryParams func(conn unsafe.Pointer, q, f unsafe.Pointer, names, values unsafe.Pointer, n uintptr) unsafe.Pointer
	resBuf      func(res unsafe.Pointer) unsafe.Pointer
	resLen      func(res unsafe.Pointer) uintptr
	resErr      func(res unsafe.Pointer) unsafe.Pointer
	resFree     func(res unsafe.Pointer)
}

// OpenLibCHDB loads libchdb.so from libPath and opens one session on the
// data directory dataDir.
func OpenLibCHDB(libPath, dataDir string) (Engine, error) {
	h, err := purego.Dlopen(libPath, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrNoLibrary, libPath, err)
	}
	l := &libCHDB{handle: h}
	if err := l.bind(); err != nil {
		return nil, err
	}
	argv := cStrings([]string{"clickhouse", "--path=" + dataDir})
	l.connp = l.connect(int32(len(argv.bufs)), unsafe.Pointer(&argv.ptrs[0]))
	runtime.KeepAlive(argv)
	if l.connp == nil {
		return nil, fmt.Errorf("cannot open a chDB session on %q", dataDir)
	}
	l.conn = *(*unsafe.Pointer)(l.connp)
	return l, nil
}

func (l *libCHDB) bind() (err error) {
	defer func() { // RegisterLibFunc panics on a missing symbol
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrNoLibrary, r)
		}
	}()
	purego.RegisterLibFunc(&l.connect, l.handle, "chdb_connect")
	purego.RegisterLibFunc(&l.closeConn, l.handle, "chdb_close_conn")
	purego.RegisterLibFunc(&l.queryN, l.handle, "chdb_query_n")
	purego.RegisterLibFunc(&l.queryParams, l.handle, "chdb_query_with_params")
	purego.RegisterLibFunc(&l.resBuf, l.handle, "chdb_result_buffer")
	purego.RegisterLibFunc(&l.resLen, l.handle, "chdb_result_length")
	purego.RegisterLibFunc(&l.resErr, l.handle, "chdb_result_error")
	purego.RegisterLibFunc(&l.resFree, l.handle, "chdb_destroy_query_result")
	return nil
}

// Query runs sql; with params it binds them for this call only.
func (l *libCHDB) Query(sql, format string, params []Param) ([]byte, error) {
	if l.conn == nil {
		return nil, errors.New("chDB session is closed")
	}
	var res unsafe.Pointer
	if len(params) == 0 {
		q, f := []byte(sql+"\x00"), []byte(format+"\x00")
		res = l.queryN(l.conn, unsafe.Pointer(&q[0]), uintptr(len(sql)), unsafe.Pointer(&f[0]), uintptr(len(format)))
		runtime.KeepAlive(q)
		runtime.KeepAlive(f)
	} else {
		res = l.queryWithParams(sql, format, params)
	}
	if res == nil {
		return nil, &EngineError{Text: "chDB returned no result"}
	}
	defer l.resFree(res)
	if msg := goString(l.resErr(res)); msg != "" {
		return nil, &EngineError{Text: msg}
	}
	n := int(l.resLen(res))
	if n == 0 {
		return nil, nil
	}
	out := make([]byte, n)
	copy(out, unsafe.Slice((*byte)(l.resBuf(res)), n))
	return out, nil
}

func (l *libCHDB) queryWithParams(sql, format string, params []Param) unsafe.Pointer {
	names := make([]string, len(params))
	values := make([]string, len(params))
	for i, p := range params {
		names[i], values[i] = p.Name, p.Value
	}
	cn, cv := cStrings(names), cStrings(values)
	q, f := []byte(sql+"\x00"), []byte(format+"\x00")
	res := l.queryParams(l.conn, unsafe.Pointer(&q[0]), unsafe.Pointer(&f[0]),
		unsafe.Pointer(&cn.ptrs[0]), unsafe.Pointer(&cv.ptrs[0]), uintptr(len(params)))
	runtime.KeepAlive(cn)
	runtime.KeepAlive(cv)
	runtime.KeepAlive(q)
	runtime.KeepAlive(f)
	return res
}

// Close ends the session, which shuts the engine down.
func (l *libCHDB) Close() error {
	if l.connp != nil {
		l.closeConn(l.connp)
		l.connp, l.conn = nil, nil
	}
	return nil
}

// cArray keeps NUL-terminated copies of strings and an array of pointers
// to them alive for the duration of a C call.
type cArray struct {
	bufs [][]byte
	ptrs []*byte
}

func cStrings(ss []string) *cArray {
	a := &cArray{bufs: make([][]byte, len(ss)), ptrs: make([]*byte, len(ss)+1)}
	for i, s := range ss {
		a.bufs[i] = append([]byte(s), 0)
		a.ptrs[i] = &a.bufs[i][0]
	}
	return a
}

func goString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}
