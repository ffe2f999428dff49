package chfront

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Config configures a Server.
type Config struct {
	// TempDir holds the temporary files of INSERT bodies; empty means os.TempDir().
	TempDir string
	// Info overrides what the handshake reports; zero fields are asked from
	// the engine. Tests set Version to impersonate an older server.
	Info ServerInfo
}

// Server answers ClickHouse HTTP requests with one Engine session.
type Server struct {
	cfg  Config
	log  *slog.Logger
	mu   sync.Mutex // serialises the engine session
	eng  Engine
	info ServerInfo
	db   string // the session's current database
}

// NewServer wraps eng. It asks the engine for its version and timezone once.
func NewServer(eng Engine, cfg Config, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	s := &Server{cfg: cfg, log: log, eng: eng}
	info, err := s.askInfo()
	if err != nil {
		return nil, fmt.Errorf("cannot ask the engine for its version: %w", err)
	}
	s.info = info
	return s, nil
}

// Info is what the handshake reports.
func (s *Server) Info() ServerInfo { return s.info }

func (s *Server) askInfo() (ServerInfo, error) {
	out, err := s.eng.Query("SELECT displayName(), version(), timezone()", "TabSeparated", nil)
	if err != nil {
		return ServerInfo{}, err
	}
	f := strings.Split(strings.TrimRight(string(out), "\n"), "\t")
	if len(f) != 3 {
		return ServerInfo{}, fmt.Errorf("unexpected answer %q", truncate(string(out), 80))
	}
	info := ServerInfo{DisplayName: f[0], Version: f[1], Timezone: f[2]}
	if s.cfg.Info.DisplayName != "" {
		info.DisplayName = s.cfg.Info.DisplayName
	}
	if s.cfg.Info.Version != "" {
		info.Version = s.cfg.Info.Version
	}
	if s.cfg.Info.Timezone != "" {
		info.Timezone = s.cfg.Info.Timezone
	}
	return info, nil
}

// ServeHTTP implements the HTTP interface: GET /ping, and queries on any
// other path by GET or POST.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/ping" {
		w.Write([]byte("Ok.\n"))
		return
	}
	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		s.fail(w, newException(codeBadArguments, "BAD_ARGUMENTS", "method "+r.Method+" is not allowed"))
		return
	}
	req, err := parseRequest(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	out, err := s.run(req)
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", contentType(req.format))
	w.Header().Set("X-ClickHouse-Format", req.format)
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	w.Write(out)
}

func contentType(format string) string {
	if format == "Native" || format == "RowBinary" {
		return "application/octet-stream"
	}
	return "text/plain; charset=UTF-8"
}

// run executes req under the session lock: USE, SET, the statement, reset.
func (s *Server) run(req *request) ([]byte, error) {
	if isHandshake(req.sql) && req.data == nil {
		return handshakeBlock(s.info), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.use(req.database); err != nil {
		return nil, err
	}
	if err := s.apply(req.settings); err != nil {
		s.reset(req.settings)
		return nil, err
	}
	out, err := s.statement(req)
	s.reset(req.settings)
	return out, err
}

func (s *Server) use(db string) error {
	if db == s.db {
		return nil
	}
	if _, err := s.engine("USE "+backquote(db), "TabSeparated", nil); err != nil {
		s.db = ""
		return err
	}
	s.db = db
	return nil
}

func (s *Server) apply(set []setting) error {
	if len(set) == 0 {
		return nil
	}
	stmts := make([]string, len(set))
	for i, st := range set {
		stmts[i] = st.setStatement()
	}
	_, err := s.engine(strings.Join(stmts, "; "), "TabSeparated", nil)
	return err
}

func (s *Server) reset(set []setting) {
	if len(set) == 0 {
		return
	}
	stmts := make([]string, len(set))
	for i, st := range set {
		stmts[i] = "SET " + st.name + " = DEFAULT"
	}
	if _, err := s.engine(strings.Join(stmts, "; "), "TabSeparated", nil); err != nil {
		s.log.Warn("cannot reset settings", "err", err)
	}
}

func (s *Server) statement(req *request) ([]byte, error) {
	if req.data == nil {
		return s.engine(req.sql, req.format, req.params)
	}
	f, err := os.CreateTemp(s.cfg.TempDir, "chfront-insert-*.bin")
	if err != nil {
		return nil, newException(codeUnknownException, "CANNOT_OPEN_FILE", err.Error())
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(req.data)
	if err := errors.Join(werr, f.Close()); err != nil {
		return nil, newException(codeUnknownException, "CANNOT_WRITE_TO_FILE_DESCRIPTOR", err.Error())
	}
	sql, err := infileInsert(req.sql, f.Name())
	if err != nil {
		return nil, err
	}
	return s.engine(sql, req.format, req.params)
}

// engine runs one call and turns an engine error into an exception.
func (s *Server) engine(sql, format string, params []Param) ([]byte, error) {
	out, err := s.eng.Query(sql, format, params)
	if err != nil {
		var ee *EngineError
		if errors.As(err, &ee) {
			return nil, cleanException(ee.Text)
		}
		return nil, err
	}
	return out, nil
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	var ex *Exception
	if !errors.As(err, &ex) {
		ex = newException(codeUnknownException, "UNKNOWN_EXCEPTION", err.Error())
	}
	text := ex.Text
	if !strings.Contains(text, "(version ") {
		text += " (version " + s.info.Version + ")"
	}
	s.log.Debug("query failed", "code", ex.Code, "err", truncate(text, 300))
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.Header().Set("X-ClickHouse-Exception-Code", strconv.Itoa(ex.Code))
	w.WriteHeader(http.StatusInternalServerError)
	w.Write([]byte(text + "\n"))
}

func backquote(name string) string {
	return "`" + strings.NewReplacer("\\", "\\\\", "`", "\\`").Replace(name) + "`"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
