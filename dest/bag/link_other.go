//go:build !linux

package bag

import "os"

// clone clones nothing here: the caller copies.
func clone(*os.File, string) bool { return false }

// hardLink links nothing where rsx cannot link the very file it opened: the
// caller copies.
func hardLink(*os.File, string) bool { return false }
