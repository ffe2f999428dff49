package schema

import "errors"

// ErrNotFound is returned by stores for a document or trace that does not exist.
var ErrNotFound = errors.New("not found")
