package sqlite

import (
	"errors"
	"strings"

	msqlite "modernc.org/sqlite"

	"github.com/faultline/faultline/store/backend"
)

// SQLite's primary result codes that faultline explains.
const (
	sqlitePerm     = 3
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteNoMem    = 7
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// recovery is what to do about a damaged store, for every message that
// reports one.
const recovery = "restore the file from a backup, or move it aside (with its -wal and -shm files) and ingest again; " +
	"`sqlite3 FILE .recover` can save what is still readable"

// storeError is an SQLite error in the user's words: Error is one plain
// sentence without SQLite's result codes. It unwraps to its class
// (backend.ErrCorrupt, backend.ErrDiskFull; none for the others) and to
// the driver's error, for logs and errors.As.
type storeError struct {
	class error
	msg   string
	cause error
}

func (e *storeError) Error() string { return e.msg }

func (e *storeError) Unwrap() []error {
	var out []error
	for _, err := range []error{e.class, e.cause} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// explain turns an error whose chain holds an SQLite error into a
// sentence that says what is wrong and what to do; other errors are
// returned as they are. It replaces err's own wording, so call it where an
// error leaves the package (and prefix the context after).
func explain(err error) error {
	var se *msqlite.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	var se2 *storeError
	if errors.As(err, &se2) {
		return err // explained already
	}
	class, msg := explainCode(se)
	return &storeError{class: class, msg: msg, cause: err}
}

// explainCode is the class and sentence of one SQLite error.
func explainCode(se *msqlite.Error) (class error, msg string) {
	switch se.Code() & 0xff {
	case sqliteCorrupt:
		return backend.ErrCorrupt, "the store file is damaged (SQLite found a malformed page); " + recovery
	case sqliteNotADB:
		return backend.ErrCorrupt, "it is not a faultline store, or its header is damaged (not an SQLite database); " +
			"check --store, or " + recovery
	case sqliteFull:
		return backend.ErrDiskFull, "the disk holding the store is full; free space or move the store to a larger disk, then retry"
	case sqliteIOErr:
		return nil, "the disk failed to read or write the store file (I/O error); check the disk and the file system"
	case sqliteReadOnly:
		return nil, "the store file or its directory is not writable; make both writable for the process that writes the store"
	case sqlitePerm, sqliteCantOpen:
		return nil, "the store file cannot be opened; check that it and its directory exist and that you may read and write them"
	case sqliteBusy, sqliteLocked:
		return nil, "another process holds the store's write lock for too long; retry, or stop the other writer"
	case sqliteNoMem:
		return nil, "SQLite ran out of memory; free memory and retry"
	}
	return nil, "the store failed: " + stripCode(se.Error())
}

// stripCode drops the " (N)" result code SQLite's messages end with.
func stripCode(s string) string {
	if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") && isDigits(s[i+2:len(s)-1]) {
		return s[:i]
	}
	return s
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
