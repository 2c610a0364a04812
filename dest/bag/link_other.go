//go:build !linux

package bag

import (
	"errors"
	"os"
)

// clone clones nothing here: the caller copies.
func clone(_, _ *os.File) error { return errors.ErrUnsupported }

// hardLink links nothing where rsx cannot link the very file it opened: the
// caller copies.
func hardLink(*os.File, string) bool { return false }
