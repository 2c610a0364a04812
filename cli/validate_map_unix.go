//go:build unix

package cli

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only; ok is false when it
// cannot (the caller then reads the file).
func mapFile(f *os.File, size int64) (b []byte, unmap func(), ok bool) {
	if size <= 0 || size != int64(int(size)) {
		return nil, nil, false
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return b, func() { syscall.Munmap(b) }, true
}
