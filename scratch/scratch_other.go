//go:build !unix

package scratch

import (
	"fmt"
	"os"
)

// ownedPrivateDir checks that dir is a directory.
func ownedPrivateDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("temporary folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("temporary folder %s: not a directory", dir)
	}
	return nil
}

// lockFile does nothing here: without a lock, lockFree answers false and
// no folder is swept.
func lockFile(*os.File) error { return nil }

// lockFree cannot tell here, so it says no.
func lockFree(string) bool { return false }

// processExists cannot tell here, so it says yes.
func processExists(int) bool { return true }

// startTime is unknown here.
func startTime(int) string { return "0" }
