package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestReadAhead: what a readAhead gives is what its source gives, however the
// reads fall; its source's error comes after the bytes before it; Close stops
// its goroutine at any point, and closes what it was given to close once.
func TestReadAhead(t *testing.T) {
	data := make([]byte, 3<<20+12345)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rnd.IntN(256))
	}
	t.Run("whole", func(t *testing.T) {
		a := newReadAhead(iotest.HalfReader(bytes.NewReader(data)), nil, nil)
		got, err := io.ReadAll(iotest.OneByteReader(io.LimitReader(a, 1000)))
		if err != nil || !bytes.Equal(got, data[:1000]) {
			t.Fatalf("first bytes: %v", err)
		}
		rest, err := io.ReadAll(a)
		if err != nil || !bytes.Equal(rest, data[1000:]) {
			t.Fatalf("the rest: %d bytes, %v", len(rest), err)
		}
		if n, err := a.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Errorf("after the end: %d, %v", n, err)
		}
		a.Close()
	})
	t.Run("error after data", func(t *testing.T) {
		boom := errors.New("boom")
		a := newReadAhead(io.MultiReader(bytes.NewReader(data[:100000]), iotest.ErrReader(boom)), nil, nil)
		got, err := io.ReadAll(a)
		if !errors.Is(err, boom) || !bytes.Equal(got, data[:100000]) {
			t.Errorf("%d bytes, %v", len(got), err)
		}
		a.Close()
	})
	t.Run("close early", func(t *testing.T) {
		before := runtime.NumGoroutine()
		for k := range 20 {
			c := &countClose{}
			// A source that never ends, and one that blocks until interrupted.
			var a *readAhead
			if k%2 == 0 {
				a = newReadAhead(&endless{}, c, nil)
				io.CopyN(io.Discard, a, int64(k*50000))
			} else {
				b := &blocking{unblock: make(chan struct{})}
				a = newReadAhead(b, c, func() { close(b.unblock) })
				io.CopyN(io.Discard, a, int64(k*5000)) // it gives 100,000 bytes, then waits
			}
			a.Close()
			a.Close()
			if c.n != 1 {
				t.Fatalf("closed %d times", c.n)
			}
			if _, err := a.Read(make([]byte, 8)); err == nil {
				t.Fatal("Read after Close gave no error")
			}
		}
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("%d goroutines, %d before", n, before)
		}
	})
}

type countClose struct{ n int }

func (c *countClose) Close() error { c.n++; return nil }

type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

// blocking gives a few bytes, then blocks until unblock is closed.
type blocking struct {
	unblock chan struct{}
	n       int
}

func (b *blocking) Read(p []byte) (int, error) {
	if b.n < 100000 {
		k := min(len(p), 1000)
		b.n += k
		return k, nil
	}
	<-b.unblock
	return 0, errors.New("interrupted")
}

// TestOpenRawProgress: RawSize and RawRead measure the bytes as stored or
// sent, before gzip is undone, for files and for HTTP bodies.
func TestOpenRawProgress(t *testing.T) {
	doc := strings.Repeat("<url><loc>http://example.com/some/resource</loc></url>\n", 20000)
	plainPath, gzPath, gz := plainAndGzipFiles(t, doc)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := []byte(doc)
		if strings.HasSuffix(r.URL.Path, ".gz") {
			body = gz
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer srv.Close()
	c := newTestClient(t, testOptions())
	for _, tc := range []struct {
		target  string
		rawSize int64
		size    int64
	}{
		{plainPath, int64(len(doc)), int64(len(doc))},
		{gzPath, int64(len(gz)), -1},
		{srv.URL + "/a.xml", int64(len(doc)), int64(len(doc))},
		{srv.URL + "/a.xml.gz", int64(len(gz)), -1},
	} {
		o, err := Open(context.Background(), c, tc.target)
		if err != nil {
			t.Fatal(err)
		}
		if o.Decompressing != (tc.size < 0) {
			t.Errorf("%s: Decompressing %v", tc.target, o.Decompressing)
		}
		if o.RawSize != tc.rawSize || o.Size != tc.size {
			t.Errorf("%s: RawSize %d, Size %d; want %d, %d", tc.target, o.RawSize, o.Size, tc.rawSize, tc.size)
		}
		got, err := io.ReadAll(o.Body)
		if err != nil || string(got) != doc {
			t.Errorf("%s: read %d bytes, %v", tc.target, len(got), err)
		}
		if n := o.RawRead(); n != tc.rawSize {
			t.Errorf("%s: RawRead %d at the end, want %d", tc.target, n, tc.rawSize)
		}
		o.Close()
	}
	// Standard input and the like.
	for _, in := range [][]byte{[]byte(doc), gz} {
		o := OpenReader(bytes.NewReader(in), "standard input")
		got, err := io.ReadAll(o.Body)
		o.Close()
		if err != nil || string(got) != doc || o.RawRead() != int64(len(in)) {
			t.Errorf("OpenReader: %d bytes, %v, RawRead %d", len(got), err, o.RawRead())
		}
	}
}

// TestReadInline: a gzipped file or stream opened and not yet read can be
// inflated in the reader's own goroutine instead (no read-ahead goroutine,
// no buffers); once read from, or when nothing is decompressed, it cannot.
// Closing a read-ahead that never started returns at once.
func TestReadInline(t *testing.T) {
	doc := strings.Repeat("<url><loc>http://example.com/inline</loc></url>\n", 5000)
	plainPath, gzPath, gz := plainAndGzipFiles(t, doc)

	before := runtime.NumGoroutine()
	o, err := Open(context.Background(), nil, gzPath)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Decompressing {
		t.Fatal("a gzipped file is not decompressed ahead")
	}
	if !o.ReadInline() || o.Decompressing {
		t.Fatalf("ReadInline on a fresh gzipped file: Decompressing %v", o.Decompressing)
	}
	if _, ok := o.Body.(*readAhead); ok {
		t.Fatal("Body is still the read-ahead")
	}
	if o.ReadInline() {
		t.Error("ReadInline changed Body twice")
	}
	got, err := io.ReadAll(o.Body)
	if err != nil || string(got) != doc {
		t.Fatalf("inline: read %d bytes, %v", len(got), err)
	}
	if n := o.RawRead(); n != int64(len(gz)) {
		t.Errorf("inline: RawRead %d, want %d", n, len(gz))
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Body.Read(make([]byte, 1)); err == nil {
		t.Error("the file stays open after Close")
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after an inline read, %d before", n, before)
	}

	// Read from first: the read-ahead has started and stays.
	o, err = Open(context.Background(), nil, gzPath)
	if err != nil {
		t.Fatal(err)
	}
	var head [10]byte
	if _, err := io.ReadFull(o.Body, head[:]); err != nil {
		t.Fatal(err)
	}
	if o.ReadInline() || !o.Decompressing {
		t.Error("ReadInline after a Read changed Body")
	}
	rest, err := io.ReadAll(o.Body)
	if err != nil || string(head[:])+string(rest) != doc {
		t.Errorf("read ahead: %d bytes, %v", len(rest)+len(head), err)
	}
	o.Close()

	// Nothing to inflate.
	o, err = Open(context.Background(), nil, plainPath)
	if err != nil {
		t.Fatal(err)
	}
	if o.ReadInline() {
		t.Error("ReadInline changed the Body of a plain file")
	}
	o.Close()

	// Standard input, and a read-ahead closed before it started.
	o = OpenReader(bytes.NewReader(gz), "standard input")
	if !o.ReadInline() {
		t.Fatal("ReadInline on gzipped standard input")
	}
	if got, err := io.ReadAll(o.Body); err != nil || string(got) != doc {
		t.Errorf("standard input inline: %d bytes, %v", len(got), err)
	}
	o.Close()
	o = OpenReader(bytes.NewReader(gz), "standard input")
	done := make(chan error, 1)
	go func() { done <- o.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close of a read-ahead that never started hangs")
	}
	if o.ReadInline() {
		t.Error("ReadInline after Close")
	}
}

// plainAndGzipFiles writes doc to a.xml and, gzipped, to a.xml.gz in a
// temporary folder, and returns their paths and the gzipped bytes.
func plainAndGzipFiles(t *testing.T, doc string) (plainPath, gzPath string, gz []byte) {
	t.Helper()
	gz = gzipped(t, doc)
	dir := t.TempDir()
	plainPath, gzPath = filepath.Join(dir, "a.xml"), filepath.Join(dir, "a.xml.gz")
	if err := os.WriteFile(plainPath, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gzPath, gz, 0o600); err != nil {
		t.Fatal(err)
	}
	return plainPath, gzPath, gz
}
