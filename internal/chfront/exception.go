package chfront

import (
	"regexp"
	"strconv"
	"strings"
)

// ClickHouse error codes the front itself raises.
const (
	codeNotImplemented   = 48
	codeUnknownException = 1002
	codeBadArguments     = 36
	codeCannotParseInput = 27
)

var codePrefix = regexp.MustCompile(`^Code: (\d+)\. DB::Exception: `)

// Exception is an error in the form a ClickHouse server reports it.
type Exception struct {
	Code int
	Text string // "Code: N. DB::Exception: ... (NAME)"
}

func (e *Exception) Error() string { return e.Text }

// newException builds an exception raised by the front itself.
func newException(code int, name, msg string) *Exception {
	return &Exception{Code: code, Text: "Code: " + strconv.Itoa(code) + ". DB::Exception: " + msg + ". (" + name + ")"}
}

// cleanException turns chDB's error text into a server-style exception:
// chDB repeats the "Code: N. DB::Exception: " prefix, which is cut to one.
func cleanException(msg string) *Exception {
	msg = strings.TrimSpace(msg)
	m := codePrefix.FindStringSubmatch(msg)
	if m == nil {
		return newException(codeUnknownException, "UNKNOWN_EXCEPTION", msg)
	}
	code, _ := strconv.Atoi(m[1])
	rest := msg[len(m[0]):]
	for {
		n := codePrefix.FindString(rest)
		if n == "" {
			break
		}
		rest = rest[len(n):]
	}
	return &Exception{Code: code, Text: m[0] + rest}
}
