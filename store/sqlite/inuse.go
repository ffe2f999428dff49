//go:build linux

package sqlite

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// shmDMS is the byte of a WAL database's -shm file on which every open
// connection holds a shared lock: SQLite's "dead man switch"
// (UNIX_SHM_DMS in os_unix.c). SQLite opening a database tries to lock it
// exclusively to learn whether it is the only connection; InUse asks the
// same question.
const shmDMS = 128

// InUse reports whether another process has the store at path open. It
// asks the kernel whether a write lock could be placed on the DMS byte of
// path's -shm file, without placing it: any connection of another process
// holds a shared lock there, and a process that exited holds none, so a
// -shm file left by a crash does not count. No -shm file means no
// connection.
//
// Connections of this process do not count, and since closing any
// descriptor of a file drops every POSIX lock the process holds on it,
// SQLite's included, call InUse only while this process has path closed.
func InUse(path string) (bool, error) {
	f, err := os.Open(path + "-shm")
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot tell whether the store %q is open elsewhere: %w", truncate(path), err)
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart, Start: shmDMS, Len: 1}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		return false, fmt.Errorf("cannot tell whether the store %q is open elsewhere: %w", truncate(path), err)
	}
	return lk.Type != syscall.F_UNLCK, nil
}
