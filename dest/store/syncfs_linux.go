package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFS flushes the file system of f: every file's dirty data and metadata
// (syncfs(2), which reports writeback errors since Linux 5.8).
func syncFS(f *os.File) error {
	return unix.Syncfs(int(f.Fd()))
}
