package sqlite

import (
	"fmt"
	"net/url"
)

// dsn builds the modernc.org/sqlite data source name for path. Pragmas are
// set per connection through _pragma so that every pooled connection gets
// them. Writers begin their transactions IMMEDIATE; readers are query_only.
// The writer checkpoints the WAL every 8192 pages (32 MiB) rather than
// SQLite's 1000: index pages that several batches touch are then copied
// into the database once, which cut the CPU of a write by a fifth; the WAL
// file is truncated back to 64 MiB after a checkpoint. Memory-mapped I/O
// stays off: a 1M-record window scan took the same CPU with a 256 MiB map
// and peaked at 347 MB of RSS instead of 90 MB.
//
// A read-only store (Options.ReadOnly) is opened mode=ro, so that a file
// without write permission opens; access names how (see openReadPool).
func dsn(path string, o Options, read bool, access readAccess) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.BusyTimeout.Milliseconds()))
	q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", defaultCacheKiB))
	q.Add("_pragma", "temp_store(MEMORY)")
	switch access {
	case accessRO:
		q.Set("mode", "ro")
	case accessImmutable:
		q.Set("mode", "ro")
		q.Set("immutable", "1")
	}
	if read {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", "synchronous("+synchronous(o.Durability)+")")
		q.Add("_pragma", "journal_size_limit(67108864)")
		q.Add("_pragma", "wal_autocheckpoint(8192)")
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}
	return u.String()
}

// readAccess is how a read pool opens the file.
type readAccess int

const (
	accessShared    readAccess = iota // read-write file, readers beside a writer
	accessRO                          // mode=ro: the file may lack write permission
	accessImmutable                   // mode=ro&immutable=1: nothing can change the file (read-only directory)
)

func synchronous(d Durability) string {
	if d == DurabilityProcess {
		return "NORMAL"
	}
	return "FULL"
}
