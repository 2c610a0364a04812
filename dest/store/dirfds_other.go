//go:build !unix

package store

import "os"

// dirFDs: elsewhere every write goes through os.Root.
type dirFDs struct{}

func (d *Dir) openFDs()  {}
func (d *Dir) closeFDs() {}

func (d *Dir) createTemp(tmp, _ string) (*os.File, error) {
	return d.root.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
}

func (d *Dir) renameFast(_, _, _ string) (bool, error) { return false, nil }

func (d *Dir) dropFoldersLocked(string) {}
