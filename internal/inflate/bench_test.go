package inflate

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
)

// benchInput is the gzipped benchmark document: the file named by
// RSX_INFLATE_BENCH (default the 50,000-entry Resource List that
// `RSX_SPEED_OUT=/tmp/inflate-bench go test -run TestWriteSpeedDocuments .`
// writes at the module root), else a generated text-like corpus.
func benchInput(b *testing.B) []byte {
	b.Helper()
	path := os.Getenv("RSX_INFLATE_BENCH")
	if path == "" {
		path = filepath.Join(os.TempDir(), "inflate-bench", "resourcelist.xml.gz")
	}
	if gz, err := os.ReadFile(path); err == nil {
		return gz
	}
	var buf bytes.Buffer
	w, _ := stdgzip.NewWriterLevel(&buf, 6)
	w.Write(sitemapLike(50000))
	w.Close()
	return buf.Bytes()
}

func benchGunzip(b *testing.B, open func(io.Reader) (io.Reader, error)) {
	gz := benchInput(b)
	var size int64
	{
		r, err := open(bytes.NewReader(gz))
		if err != nil {
			b.Fatal(err)
		}
		size, err = io.Copy(io.Discard, r)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	buf := make([]byte, 128<<10)
	b.ResetTimer()
	for b.Loop() {
		r, err := open(bytes.NewReader(gz))
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for {
			k, err := r.Read(buf)
			n += int64(k)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if n != size {
			b.Fatalf("read %d bytes, want %d", n, size)
		}
	}
}

func BenchmarkGunzip(b *testing.B) {
	b.Run("inflate", func(b *testing.B) {
		benchGunzip(b, func(r io.Reader) (io.Reader, error) { return NewReader(r) })
	})
	b.Run("klauspost", func(b *testing.B) {
		benchGunzip(b, func(r io.Reader) (io.Reader, error) { return kgzip.NewReader(r) })
	})
	b.Run("stdlib", func(b *testing.B) {
		benchGunzip(b, func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) })
	})
}
