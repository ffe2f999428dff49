//go:build !linux

package sqlite

// InUse reports whether another process has the store at path open. Only
// Linux can tell (see inuse.go); elsewhere it reports false.
func InUse(path string) (bool, error) { return false, nil }

// HeldElsewhere reports whether another process holds the store at path
// open; only Linux can tell (see inuse.go), elsewhere it reports true.
func HeldElsewhere(path string) bool { return true }
