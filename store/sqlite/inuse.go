//go:build linux

package sqlite

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
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

// HeldElsewhere reports whether another process holds a lock on path's
// -shm file (a connection of another process has the store open),
// reading /proc/locks: unlike InUse it opens nothing, so it may be called
// while this process has the store open. It reports true when it cannot
// tell.
func HeldElsewhere(path string) bool {
	var st syscall.Stat_t
	if err := syscall.Stat(path+"-shm", &st); err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	major := (st.Dev>>8)&0xfff | (st.Dev>>32)&^0xfff
	minor := st.Dev&0xff | (st.Dev>>12)&^0xff
	id := fmt.Sprintf("%02x:%02x:%d", major, minor, st.Ino)
	f, err := os.Open("/proc/locks")
	if err != nil {
		return true
	}
	defer f.Close()
	self := strconv.Itoa(os.Getpid())
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: POSIX  ADVISORY  READ 31165 fe:00:9987000 128 128"
		fs := strings.Fields(sc.Text())
		if len(fs) >= 6 && fs[5] == id && fs[4] != self {
			return true
		}
	}
	return sc.Err() != nil
}
