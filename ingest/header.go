package ingest

import (
	"strings"
	"time"
)

// A log line's header is what loggers write before the message: a
// timestamp, a level word, a process id, a thread, the logger or code
// location, and ids. scanHeader recognises the common shapes (Spring Boot,
// logback/log4j patterns, Python logging, Go log and klog, syslog, and
// "TraceID: … SpanID: …"-style id segments) so that the record's Body is the
// message alone and templates group by what the message says.
//
// It is conservative: it reads tokens from the start of the line and stops
// at the first one it does not recognise; a thread or process id counts
// only when a recognised part follows it; ids count only when their value
// is the one detection already took; nothing is cut unless the header holds
// a timestamp, a logger or ids, and never the whole line. Every part cut is
// kept: time, level and ids as fields, the logger as Name, thread, pid and
// host as attributes.
type header struct {
	end                            int // where the message starts
	time, level, logger, thread    string
	pid, host, program, stream     string
	strong                         bool // a timestamp, logger or ids were found
	usedNext                       bool // the last part read the token after it too
	levelSeen, timeSeen, klogFirst bool
}

// stripHeader returns the message of a plain text line without its header
// and records the header's parts in d; it returns line when there is no
// header to cut.
func stripHeader(line string, d *detected) string {
	h, ok := scanHeader(line, d)
	if !ok {
		return line
	}
	if h.time != "" {
		d.setIfAbsent(fieldTime, "time", h.time)
	}
	if h.level != "" {
		d.setIfAbsent(fieldLevel, "level", h.level)
	}
	if h.logger != "" {
		d.setIfAbsent(fieldName, "logger", h.logger)
	}
	if h.program != "" {
		d.setIfAbsent(fieldService, "service", h.program)
	}
	for _, kv := range [...][2]string{{"thread.name", h.thread}, {"process.pid", h.pid}, {"host.name", h.host}, {"log.iostream", h.stream}} {
		if kv[1] != "" && d.attrs[kv[0]] == "" {
			d.attr(kv[0], kv[1])
		}
	}
	return line[h.end:]
}

// token is one header token: a run of non-blank bytes, or a bracketed
// group ("[ main]") that may hold blanks.
type token struct {
	s          string
	start, end int
}

func nextToken(line string, pos int) token {
	i := pos
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == len(line) {
		return token{start: i, end: i}
	}
	if line[i] == '[' {
		if j := strings.IndexByte(line[i:min(len(line), i+256)], ']'); j > 0 {
			if e := i + j + 1; e == len(line) || line[e] == ' ' || line[e] == '\t' || line[e] == ':' {
				if e < len(line) && line[e] == ':' {
					e++
				}
				return token{line[i:e], i, e}
			}
		}
	}
	j := i
	for j < len(line) && line[j] != ' ' && line[j] != '\t' {
		j++
	}
	return token{line[i:j], i, j}
}

// scanHeader finds the end of line's header (see header).
func scanHeader(line string, d *detected) (header, bool) {
	var h header
	if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
		return h, false // a continuation line (stack frame, wrapped text)
	}
	commit, pos := h.leadingTime(line)
	if commit > 0 && isMonth(line) {
		commit, pos = h.syslog(line, pos)
	}
	if commit == 0 {
		commit = h.pythonBasic(line, d)
		pos = commit
	} else if end := h.cri(line, pos); end > 0 {
		commit, pos = end, end
	}
	var pendThread, pendPid string
	prevSep := false
	for n := 0; n < 16; n++ {
		t := nextToken(line, pos)
		if t.s == "" {
			break
		}
		next := nextToken(line, t.end)
		ok, strong := h.classify(t.s, next.s, prevSep, d, &pendThread, &pendPid)
		if !ok {
			break
		}
		pos, prevSep = t.end, isSep(t.s)
		if h.usedNext {
			pos, h.usedNext = next.end, false
			next = nextToken(line, pos)
		}
		if strong {
			commit = pos
			if pendThread != "" {
				h.thread, pendThread = pendThread, ""
			}
			if pendPid != "" {
				h.pid, pendPid = pendPid, ""
			}
		}
		if pendThread != "" && isSep(next.s) {
			commit, h.thread, pendThread = pos, pendThread, ""
		}
	}
	if !h.strong || commit == 0 {
		return h, false
	}
	end := commit
	for {
		t := nextToken(line, end)
		if !isSep(t.s) {
			end = t.start
			break
		}
		end = t.end
	}
	if strings.TrimSpace(line[end:]) == "" {
		return h, false
	}
	h.end = end
	return h, true
}

// leadingTime reads a timestamp at the start of the line: a date and time
// (one or two fields), one in brackets, a syslog "Jan _2 15:04:05", or a
// time of day. It returns where it ends (0 = none).
func (h *header) leadingTime(line string) (commit, pos int) {
	if ts := leadingTime(line); ts != "" {
		h.time, h.timeSeen, h.strong = ts, true, true
		return len(ts), len(ts)
	}
	t := nextToken(line, 0)
	if t.s == "" {
		return 0, 0
	}
	if b := strings.TrimSuffix(t.s, ":"); len(b) > 2 && b[0] == '[' && b[len(b)-1] == ']' {
		in := strings.TrimSpace(b[1 : len(b)-1])
		if _, ok := parseTime(in); ok || isTimeOfDay(in) || isANSIC(in) {
			h.time, h.timeSeen, h.strong = in, true, true
			return t.end, t.end
		}
		return 0, 0
	}
	if isTimeOfDay(t.s) {
		h.time, h.timeSeen, h.strong = t.s, true, true
		return t.end, t.end
	}
	if isMonth(t.s) { // syslog: Jan _2 15:04:05
		day := nextToken(line, t.end)
		tod := nextToken(line, day.end)
		if len(day.s) <= 2 && isDigits(day.s) && isTimeOfDay(tod.s) {
			h.time, h.timeSeen, h.strong = line[:tod.end], true, true
			return tod.end, tod.end
		}
	}
	return 0, 0
}

// pythonBasic reads the header of Python's default logging format,
// "LEVEL:logger:message"; it returns where the message starts (0 = none).
func (h *header) pythonBasic(line string, d *detected) int {
	i := strings.IndexByte(line, ':')
	if i < 3 || i > 8 {
		return 0
	}
	j := strings.IndexByte(line[i+1:], ':')
	if j <= 0 || !isIdent(line[i+1:i+1+j], ".") || !isUpperLevel(line[:i]) || !h.isLevel(line[:i], d) {
		return 0
	}
	h.logger, h.strong = line[i+1:i+1+j], true
	return i + 1 + j + 1
}

// cri reads the "stdout F " after the timestamp of the CRI log file format
// (containerd, CRI-O); it returns where it ends (0 = not there).
func (h *header) cri(line string, pos int) int {
	st := nextToken(line, pos)
	tag := nextToken(line, st.end)
	if (st.s == "stdout" || st.s == "stderr") && (tag.s == "F" || tag.s == "P") {
		h.stream = st.s
		return tag.end
	}
	return 0
}

// syslog reads the host and "program[pid]:" after a syslog timestamp; it
// leaves commit and pos where they were when they are not there.
func (h *header) syslog(line string, pos int) (int, int) {
	host := nextToken(line, pos)
	tag := nextToken(line, host.end)
	if host.s == "" || strings.ContainsAny(host.s, ":[]") || len(tag.s) < 2 || tag.s[len(tag.s)-1] != ':' {
		return pos, pos
	}
	prog := tag.s[:len(tag.s)-1]
	if i := strings.IndexByte(prog, '['); i > 0 && prog[len(prog)-1] == ']' {
		if !isDigits(prog[i+1 : len(prog)-1]) {
			return pos, pos
		}
		h.pid, prog = prog[i+1:len(prog)-1], prog[:i]
	}
	name := prog
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	if !isIdent(name, "._/-") {
		return pos, pos
	}
	h.host, h.program = host.s, name
	return tag.end, tag.end
}

// classify tells whether tok (followed by next) is a header part and
// whether it commits the header so far.
func (h *header) classify(tok, next string, prevSep bool, d *detected, pendThread, pendPid *string) (ok, strong bool) {
	switch {
	case isSep(tok):
		return true, tok == "---"
	case h.isLevel(tok, d):
		return true, true
	case !h.timeSeen && h.logger == "" && isTimeOfDay(tok):
		h.time, h.timeSeen, h.strong = tok, true, true
		return true, true
	case isBracket(tok) && kvGroup(tok, d):
		h.strong = true
		return true, true
	case isIDToken(tok, next, d):
		h.strong = true
		h.usedNext = strings.HasSuffix(tok, ":") || strings.HasSuffix(tok, "=")
		return true, true
	case !h.timeSeen && !h.levelSeen:
		return false, false // nothing below starts a header
	case isDigits(tok) && h.pid == "" && *pendPid == "" && (next == "---" || isUpperLevel(next) || isCodeLocation(next)):
		*pendPid = tok
		return true, false
	case h.logger == "" && h.isLogger(tok, next, prevSep):
		return true, true
	case h.logger == "" && isBracket(tok) && isCodeLocation(strings.Trim(tok, "[]:")):
		h.logger, h.strong = strings.Trim(tok, "[]:"), true
		return true, true
	case h.logger == "" && h.thread == "" && *pendThread == "" && isBracket(tok):
		*pendThread = strings.TrimSpace(tok[1 : len(tok)-1])
		return *pendThread != "", false
	}
	return false, false
}

// isLevel reads a level word: upper case (ERROR, WARN:), any case in
// brackets ([error]), or a klog prefix (E1130) as the first token. A level
// detection already found must agree.
func (h *header) isLevel(tok string, d *detected) bool {
	if h.levelSeen {
		return false
	}
	var lv string
	switch {
	case !h.timeSeen && h.logger == "" && len(tok) == 5 && strings.ContainsRune("IWEF", rune(tok[0])) && isDigits(tok[1:]):
		lv = tok[:1] // klog: the time of day follows
	case len(tok) > 2 && tok[0] == '[' && strings.HasSuffix(strings.TrimSuffix(tok, ":"), "]"):
		lv = strings.TrimSpace(strings.Trim(tok, "[]:"))
	case isUpperLevel(tok):
		lv = trimLevelPunct(tok)
	default:
		return false
	}
	sev, ok := levelWord(lowerASCII(lv))
	if !ok || len(lv) < 3 && len(tok) != 5 {
		return false
	}
	if d.has[fieldLevel] {
		if have, ok := parseLevel(d.vals[fieldLevel]); !ok || have != sev {
			return false
		}
	}
	h.level, h.levelSeen = lv, true
	return true
}

func isUpperLevel(tok string) bool {
	t := trimLevelPunct(tok)
	if len(t) < 3 || strings.ToUpper(t) != t {
		return false
	}
	_, ok := levelWord(lowerASCII(t))
	return ok
}

// isLogger reads a logger name or code location: a code location
// (FoodServiceImpl#302, main.go:42:, server.go:123]), a Java class name
// (com.acme.Foo, o.s.b.Application), or a name between separators as
// Python's "%(asctime)s - %(name)s - …" writes it.
func (h *header) isLogger(tok, next string, prevSep bool) bool {
	name := tok
	if isCodeLocation(tok) {
		name = strings.TrimRight(tok, ":]")
	} else {
		name = strings.TrimSuffix(tok, ":")
		if !isIdent(name, ".$") {
			return false
		}
		javaClass := isJavaClass(name) && !isExceptionName(name)
		dotted := strings.Contains(name, ".")
		if !javaClass && !((dotted || prevSep) && isSep(next)) {
			return false
		}
	}
	h.logger, h.strong = name, true
	return true
}

// isExceptionName: a class named like an exception (…Exception, …Error),
// which starts a message ("java.lang.IllegalStateException: …") rather
// than naming its logger.
func isExceptionName(name string) bool {
	last := name[strings.LastIndexByte(name, '.')+1:]
	return strings.HasSuffix(last, "Exception") || strings.HasSuffix(last, "Error") || last == "Throwable"
}

// isCodeLocation: an identifier path followed by #line or :line (a
// trailing ':' or ']' allowed), such as f.s.FoodServiceImpl#302.
func isCodeLocation(tok string) bool {
	t := strings.TrimSuffix(strings.TrimSuffix(tok, "]"), ":")
	i := strings.LastIndexAny(t, "#:")
	if i <= 0 || !isDigits(t[i+1:]) {
		return false
	}
	if t[i] == '#' { // logback's %logger{n}#%line; Tomcat loggers carry brackets
		return isIdent(t[:i], "./$-[]")
	}
	return isIdent(t[:i], "./$-") && strings.Contains(t[:i], ".")
}

// isJavaClass: two or more dotted identifiers, lower-case packages, a
// class name that starts upper-case (com.acme.Foo, o.s.b.Application).
func isJavaClass(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return false
	}
	for i, p := range parts {
		if p == "" {
			return false
		}
		upper := p[0] >= 'A' && p[0] <= 'Z'
		if upper != (i == len(parts)-1) {
			return false
		}
	}
	return true
}

// isIdent: letters, digits, '_' and the extra bytes, starting with a letter or '_'.
func isIdent(s, extra string) bool {
	if s == "" || !(s[0] == '_' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}

func isBracket(tok string) bool {
	tok = strings.TrimSuffix(tok, ":")
	return len(tok) > 2 && tok[0] == '[' && tok[len(tok)-1] == ']'
}

// kvGroup reads a bracketed group of key=value pairs that holds ids, as
// OpenTelemetry's Python logging instrumentation writes it: [trace_id=…
// span_id=… resource.service.name=… trace_sampled=True]. Every id in it
// must be the one detected (or all zeros, "no trace"); its other pairs
// that detection did not take become attributes.
func kvGroup(tok string, d *detected) bool {
	inner := strings.Trim(tok, "[]:")
	if !strings.Contains(inner, "=") {
		return false
	}
	var keys, vals []string
	if !parseLogfmt(inner, func(k, v string) { keys, vals = append(keys, k), append(vals, v) }) {
		return false
	}
	ids := 0
	for i, k := range keys {
		switch f, _ := aliasOf(k); f {
		case fieldTrace, fieldSpan, fieldParent:
			if strings.Trim(vals[i], "0") != "" && !(d.has[f] && strings.EqualFold(vals[i], strings.TrimSpace(d.vals[f]))) {
				return false
			}
			ids++
		}
	}
	if ids == 0 {
		return false
	}
	for i, k := range keys {
		if f, _ := aliasOf(k); f == fieldNone {
			if _, ok := d.attrs[attrKeyOf(k)]; !ok {
				d.attr(k, vals[i])
			}
		} else if f != fieldTrace && f != fieldSpan && f != fieldParent {
			d.setIfAbsent(f, k, vals[i])
		}
	}
	return true
}

// isIDToken reads an id segment whose value detection already took:
// key=value or key: value (two tokens; the key token is the one given),
// Sleuth's [app,trace,span] and a W3C traceparent.
func isIDToken(tok, next string, d *detected) bool {
	tr := d.vals[fieldTrace]
	if tok[0] == '[' && strings.Contains(tok, ",") && !strings.Contains(tok, "=") {
		return tr != "" && strings.Contains(tok, tr)
	}
	if i := strings.IndexAny(tok, "=:"); i > 0 {
		key, val := strings.Trim(tok[:i], `"'`), strings.Trim(tok[i+1:], `"',;`)
		f, _ := aliasOf(key)
		if f != fieldTrace && f != fieldSpan && f != fieldParent {
			if lowerASCII(key) == "traceparent" {
				return tr != "" && strings.Contains(val, tr)
			}
			return false
		}
		if val == "" && i == len(tok)-1 {
			val = strings.Trim(next, `"',;`)
		}
		return d.has[f] && val != "" && strings.EqualFold(val, strings.TrimSpace(d.vals[f]))
	}
	return strings.HasPrefix(tok, "00-") && tr != "" && strings.Contains(tok, tr)
}

func isSep(tok string) bool {
	switch tok {
	case "-", "--", "---", ":", "|", ">", "-->", "::":
		return true
	}
	return false
}

// isTimeOfDay: 15:04:05 with optional fractional seconds.
func isTimeOfDay(s string) bool {
	if len(s) < 8 || s[2] != ':' || s[5] != ':' || !isDigits(s[:2]) || !isDigits(s[3:5]) || !isDigits(s[6:8]) {
		return false
	}
	return len(s) == 8 || (s[8] == '.' || s[8] == ',') && isDigits(s[9:])
}

func isMonth(s string) bool {
	if len(s) < 3 {
		return false
	}
	switch s[:3] {
	case "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec":
		return len(s) == 3 || s[3] == ' '
	}
	return false
}

func isANSIC(s string) bool {
	_, err := time.Parse(time.ANSIC, s)
	return err == nil
}
