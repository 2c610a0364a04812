package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDirWrite writes small files through the store (temporary, fsync,
// rename; folders fsynced every 100 files, as a state batch would), beside the
// least a correct writer does with plain os calls, for comparison.
func BenchmarkDirWrite(b *testing.B) {
	body := make([]byte, 2048)
	b.Run("store", func(b *testing.B) {
		d, err := OpenDir(b.TempDir(), Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		ctx := context.Background()
		for i := 0; i < b.N; i++ {
			w, err := d.Create(ctx, fmt.Sprintf("h/d%d/%d.html", i%20, i), Meta{})
			if err != nil {
				b.Fatal(err)
			}
			w.Write(body)
			if err := w.Commit(ctx); err != nil {
				b.Fatal(err)
			}
			if i%100 == 99 {
				d.Sync(ctx)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		dir := b.TempDir()
		for i := 0; i < b.N; i++ {
			final := filepath.Join(dir, "h", fmt.Sprintf("d%d", i%20), fmt.Sprintf("%d.html", i))
			os.MkdirAll(filepath.Dir(final), 0o755)
			f, err := os.CreateTemp(dir, "tmp")
			if err != nil {
				b.Fatal(err)
			}
			f.Write(body)
			f.Sync()
			f.Close()
			if err := os.Rename(f.Name(), final); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStatePageScan is the local cost of a bucket's state upload: every
// page of a 128 MiB database file read and hashed (XXH3-128) and compared
// with the hashes of the last upload, none of them changed (the file is in
// the page cache, as the state is just after its commit).
func BenchmarkStatePageScan(b *testing.B) {
	p := filepath.Join(b.TempDir(), "state.db")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	page := make([]byte, 4096)
	copy(page, "SQLite format 3\x00\x10\x00")
	for i := range 32768 {
		page[200] = byte(i)
		page[201] = byte(i >> 8)
		f.Write(page)
		if i == 0 {
			clear(page[:100])
		}
	}
	f.Close()
	old, err := scanPages(p, nil, nil, func(int64, []byte) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(32768 * 4096)
	b.ResetTimer()
	for range b.N {
		if _, err := scanPages(p, old, nil, func(int64, []byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
