//go:build unix

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only; ok is false when it
// cannot (the caller then reads the file).
func mapFile(f *os.File, size int64) (b []byte, unmap func(), ok bool) {
	if size <= 0 || size != int64(int(size)) {
		return nil, nil, false
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return b, func() { _ = unix.Munmap(b) }, true
}

// dropPages gives back the pages of b, a page-aligned part of a mapping:
// the file stays in the page cache, the process no longer holds them.
func dropPages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }
