//go:build unix

package model

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestValidateBytesMappedFileCutShort: a mapped file cut short while it is
// validated faults (SIGBUS) on its lost pages; ValidateBytes reports a read
// error instead of crashing, whether the fault comes in the header, in a
// block a decoder reads or where the blocks are cut.
func TestValidateBytesMappedFileCutShort(t *testing.T) {
	data := benchResourceList(t, 5000)
	page := os.Getpagesize()
	for _, keep := range []int{0, page, 40 * page, len(data) / 2 / page * page} {
		path := filepath.Join(t.TempDir(), "rl.xml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := syscall.Mmap(int(f.Fd()), 0, len(data), syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(int64(keep)); err != nil {
			t.Fatal(err)
		}
		for _, p := range []int{1, 2} {
			rep := ValidateBytes(b, nil, CheckOptions{}, DecoderOptions{Parallel: p})
			if !errors.Is(rep.Err, errMemFault) {
				t.Errorf("cut to %d bytes, Parallel %d: %d entries, error %v", keep, p, rep.Entries, rep.Err)
			}
		}
		syscall.Munmap(b)
		f.Close()
	}
}
