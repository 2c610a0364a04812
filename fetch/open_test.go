package fetch

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const openDoc = "<urlset>open me</urlset>"

// readOpened reads a whole Opened body and closes it.
func readOpened(t *testing.T, o *Opened) (string, error) {
	t.Helper()
	defer o.Close()
	b, err := io.ReadAll(o.Body)
	return string(b), err
}

func TestOpenLocal(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("doc.xml", []byte(openDoc))
	gz := write("doc.xml.gz", gzipped(t, openDoc))
	badHeader := write("bad.xml.gz", []byte("\x1f\x8bnot a gzip header at all"))
	twice := write("twice.xml.gz", gzipped(t, string(gzipped(t, openDoc))))

	for _, tc := range []struct {
		name, target string
		want         string
		size         int64
		file         bool // Body is the *os.File itself
	}{
		{"path", plain, openDoc, int64(len(openDoc)), true},
		{"file URL", "file://" + plain, openDoc, int64(len(openDoc)), true},
		{"gzip by its magic bytes", gz, openDoc, -1, false},
		{"gzip once only", twice, string(gzipped(t, openDoc)), -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Open(context.Background(), nil, tc.target)
			if err != nil {
				t.Fatal(err)
			}
			if !o.Local || o.Response != nil || o.Exchange != nil || o.Size != tc.size {
				t.Errorf("Local %v, Response %v, Exchange %v, Size %d; want a local file of size %d", o.Local, o.Response, o.Exchange, o.Size, tc.size)
			}
			if !filepath.IsAbs(o.URL) {
				t.Errorf("URL %q is not an absolute path", o.URL)
			}
			if _, ok := o.Body.(*os.File); ok != tc.file {
				t.Errorf("Body is a *os.File: %v, want %v", ok, tc.file)
			}
			got, err := readOpened(t, o)
			if err != nil || got != tc.want {
				t.Errorf("read %q, %v; want %q", got, err, tc.want)
			}
		})
	}

	t.Run("corrupt gzip header fails the first Read", func(t *testing.T) {
		o, err := Open(context.Background(), nil, badHeader)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if _, err := readOpened(t, o); !errors.Is(err, gzip.ErrHeader) {
			t.Errorf("read: %v, want gzip.ErrHeader", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		_, err := Open(context.Background(), nil, filepath.Join(dir, "nope.xml"))
		var pe *fs.PathError
		if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v, want a *fs.PathError for a missing file", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		_, err := Open(context.Background(), nil, dir)
		var pe *fs.PathError
		if !errors.As(err, &pe) || !errors.Is(err, syscall.EISDIR) || pe.Path != dir {
			t.Errorf("err = %v, want a *fs.PathError naming %s as a directory", err, dir)
		}
	})
	t.Run("pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			w.Write(gzipped(t, openDoc))
			w.Close()
		}()
		defer r.Close()
		o, err := Open(context.Background(), nil, "/dev/fd/"+strconv.Itoa(int(r.Fd())))
		if err != nil {
			t.Skipf("no /dev/fd here: %v", err)
		}
		if got, err := readOpened(t, o); err != nil || got != openDoc || o.Size != -1 {
			t.Errorf("read %q, %v, size %d; want %q of unknown size", got, err, o.Size, openDoc)
		}
	})
}

func TestOpenTargetKinds(t *testing.T) {
	// Anything but an http(s) URL is a file: these are looked for as paths.
	for _, target := range []string{"ftp://e.com/x.xml", "mailto:a@e.com", "http:e.com"} {
		g := &countingGetter{}
		_, err := Open(context.Background(), g, target)
		if !errors.Is(err, fs.ErrNotExist) || g.n != 0 {
			t.Errorf("Open(%q): %v, %d requests; want a file that does not exist", target, err, g.n)
		}
	}
	if _, err := Open(context.Background(), nil, "http://e.com/x"); err == nil || !strings.Contains(err.Error(), "no HTTP client") {
		t.Errorf("a URL without a Getter: %v", err)
	}
}

// countingGetter counts requests and answers none.
type countingGetter struct{ n int }

func (g *countingGetter) Get(context.Context, string) (*Response, error) {
	g.n++
	return nil, errors.New("counting getter: no network")
}

func TestOpenURL(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/plain.xml":
			w.Write([]byte(openDoc))
		case "/doc.xml.gz": // gzip without Content-Encoding: recognised by its bytes
			w.Write(gzipped(t, openDoc))
		case "/encoded.xml":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipped(t, openDoc))
		case "/moved":
			http.Redirect(w, r, "/plain.xml", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
	c := newTestClient(t, testOptions())
	for _, tc := range []struct {
		path, final string
		size        int64
	}{
		{"/plain.xml", "/plain.xml", int64(len(openDoc))},
		{"/doc.xml.gz", "/doc.xml.gz", -1},
		{"/encoded.xml", "/encoded.xml", -1},
		{"/moved", "/plain.xml", int64(len(openDoc))},
	} {
		t.Run(tc.path, func(t *testing.T) {
			o, err := Open(testContext(t), c, srv.URL+tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if o.Local || o.Response == nil || o.Exchange == nil || o.URL != srv.URL+tc.final || o.Size != tc.size {
				t.Errorf("Local %v, URL %q, Size %d, Exchange %v; want %q of size %d with its exchange", o.Local, o.URL, o.Size, o.Exchange, srv.URL+tc.final, tc.size)
			}
			if got, err := readOpened(t, o); err != nil || got != openDoc {
				t.Errorf("read %q, %v", got, err)
			}
		})
	}
	t.Run("404", func(t *testing.T) {
		o, err := Open(testContext(t), c, srv.URL+"/nope")
		var se *StatusError
		if !errors.As(err, &se) || se.Status != http.StatusNotFound {
			t.Fatalf("err = %v, want a 404 StatusError", err)
		}
		if o == nil || o.Body != nil || o.Exchange == nil || o.Response == nil || o.Response.Status != 404 {
			t.Errorf("Opened %+v: want the exchange and response of the 404, and no body", o)
		}
	})
}

// fakeGetter serves one body as is, as test doubles of Getter do.
type fakeGetter struct{ body []byte }

func (g fakeGetter) Get(_ context.Context, url string) (*Response, error) {
	return &Response{URL: url, Status: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(string(g.body)))}, nil
}

func TestOpenOtherGetters(t *testing.T) {
	o, err := Open(context.Background(), fakeGetter{gzipped(t, openDoc)}, "http://e.com/x.xml.gz")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := readOpened(t, o); err != nil || got != openDoc {
		t.Errorf("a gzip body from another Getter: read %q, %v", got, err)
	}
	o, err = Open(context.Background(), fakeGetter{[]byte("\x1f\x8bbroken beyond any gzip header")}, "http://e.com/x.xml.gz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readOpened(t, o); !errors.Is(err, gzip.ErrHeader) {
		t.Errorf("a corrupt gzip body from another Getter: %v, want gzip.ErrHeader", err)
	}
}

// TestExchangeSnapshotWhileReadingAhead: Open decompresses a gzip body in a
// goroutine of its own, which updates the exchange (bytes, then done) while
// the caller holds it; Snapshot is safe to take meanwhile (go test -race),
// and each copy stays as it was taken.
func TestExchangeSnapshotWhileReadingAhead(t *testing.T) {
	doc := strings.Repeat("<url><loc>http://example.org/res</loc></url>\n", 2000) // 90 KB: fits the buffers read ahead
	wire := gzipped(t, doc)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write(wire) })
	c := newTestClient(t, testOptions())
	o, err := Open(testContext(t), c, srv.URL+"/doc.xml.gz")
	if err != nil {
		t.Fatal(err)
	}
	if !o.Decompressing {
		t.Fatal("the body is not decompressed ahead of its reader")
	}
	// The read-ahead starts with the first Read.
	var head [1]byte
	if _, err := io.ReadFull(o.Body, head[:]); err != nil {
		t.Fatal(err)
	}
	var first, last *Exchange
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := o.Exchange.Snapshot()
		if first == nil {
			first = s
		}
		if last != nil && s.Bytes < last.Bytes {
			t.Fatalf("the bytes went back from %d to %d", last.Bytes, s.Bytes)
		}
		last = s
		if s.Done || time.Now().After(deadline) {
			break
		}
		runtime.Gosched()
	}
	if !last.Done || last.Bytes != int64(len(wire)) {
		t.Errorf("the read-ahead ended the body, but the snapshot says done %v after %d of %d bytes", last.Done, last.Bytes, len(wire))
	}
	if got, err := readOpened(t, o); err != nil || string(head[:])+got != doc {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	// A copy is the caller's: changing it changes nothing else.
	first.Bytes = -1
	first.ResponseHeader.Set("X-Mine", "1")
	if s := o.Exchange.Snapshot(); s.Bytes == -1 || s.ResponseHeader.Get("X-Mine") != "" {
		t.Errorf("a snapshot shares the exchange's fields: %+v", s)
	}
	if s := o.Exchange.Snapshot(); !s.Done || s.Err != "" || s.Status != 200 || s.Snapshot().Bytes != s.Bytes {
		t.Errorf("after Close: %+v", s)
	}
	if (*Exchange)(nil).Snapshot() != nil {
		t.Error("a nil exchange's snapshot is not nil")
	}
}
