//go:build !linux

package store

import (
	"errors"
	"os"
)

// syncFS has no one-call flush of a file system here: each write is
// fsynced on its own.
func syncFS(*os.File) error { return errors.ErrUnsupported }
