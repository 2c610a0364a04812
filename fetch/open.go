package fetch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// Getter gets a document by URL: the one interface for "get me these
// bytes". *Client is one; tests give fakes. Get may return a *StatusError
// together with a Response whose body holds the error page; the caller closes
// the body whenever a Response is given.
type Getter interface {
	Get(ctx context.Context, url string) (*Response, error)
}

// Downloader streams a large body, such as a dump package, to w without the
// document limits of Get. *Client is one.
type Downloader interface {
	DownloadWith(ctx context.Context, url string, w io.Writer, o DownloadOptions) (*Exchange, error)
}

// Fetcher gets documents and downloads large bodies. *Client is one.
type Fetcher interface {
	Getter
	Downloader
}

// Opened is a target opened by Open.
type Opened struct {
	// Body reads the bytes, gzip undone. For a local file that is not
	// gzip-compressed it is the *os.File itself, so that a caller who needs
	// random access (a ZIP package) may use it as an io.ReaderAt.
	Body io.ReadCloser
	// Size is the length of Body in bytes when known in advance, else -1.
	Size int64
	// RawSize is the length of the bytes as stored or sent, before gzip is
	// undone (the file's size, the Content-Length), -1 when unknown: what
	// RawRead counts towards, for progress.
	RawSize int64
	// URL is where the bytes come from: the URL after redirects, or the
	// absolute path of a local file.
	URL string
	// Local tells whether the target is a local file.
	Local bool
	// Response is the HTTP response, nil for a local file. Its Body is Body
	// before any decoding Open added (nil, and closed, after an error).
	Response *Response
	// Exchange is the record of the HTTP exchange, nil for a local file. It
	// is complete once Body is read to its end or closed.
	Exchange *Exchange

	// Decompressing tells that Body undoes gzip on a goroutine of its own,
	// which keeps a core busy while Body is read.
	Decompressing bool

	raw  *atomic.Int64 // bytes of the stored or sent stream read so far
	file *os.File      // Body itself (RawRead asks it its offset)
}

// ReadInline makes Body undo gzip in the goroutine that reads it, rather
// than on a goroutine of its own, if nothing has been read from it yet. It is
// for a reader that keeps every core busy itself (model's parallel decoder),
// for which a goroutine more only competes for the cores. It reports whether
// Body changed.
func (o *Opened) ReadInline() bool {
	a, ok := o.Body.(*readAhead)
	if !ok {
		return false
	}
	r := a.inline()
	if r == nil {
		return false
	}
	o.Body, o.Decompressing = r, false
	return true
}

// RawRead returns how many bytes of the stored or sent stream (before gzip
// is undone) have been read so far; it may be called from any goroutine.
func (o *Opened) RawRead() int64 {
	switch {
	case o == nil:
		return 0
	case o.raw != nil:
		return o.raw.Load()
	case o.file != nil:
		if n, err := o.file.Seek(0, io.SeekCurrent); err == nil {
			return n
		}
	}
	return 0
}

// Close closes Body.
func (o *Opened) Close() error {
	if o == nil || o.Body == nil {
		return nil
	}
	return o.Body.Close()
}

// Open opens target for reading: an http(s) URL, which g gets, or a local
// file, named by its path or a file:// URL (anything else is taken for a
// path). A body that starts with the gzip magic bytes 1f 8b (a .xml.gz, or
// gzip sent without Content-Encoding) is decompressed; Content-Encoding is
// undone by g. A compressed stream is decompressed by a goroutine of its own
// a few hundred KiB ahead of Body's reader, which Close stops.
//
// When an HTTP request gives no 2xx response, the error comes with an Opened
// whose Response and Exchange record what happened (its Body is nil and the
// response body is closed). The errors of g and os.Open are returned as they
// are: both name the target. A gzip stream whose header does not parse fails
// the first Read, with the gzip package's error.
func Open(ctx context.Context, g Getter, target string) (*Opened, error) {
	path, local := splitTarget(target)
	switch {
	case local:
		o, err := openFile(path)
		if meant := SchemeFor(target); errors.Is(err, fs.ErrNotExist) && meant != "" {
			// example.org/cap.xml, typed as in a browser, is no file here.
			return nil, fmt.Errorf("%w (for the web, give the scheme: %s)", err, meant)
		}
		return o, err
	case g == nil:
		return nil, fmt.Errorf("open %s: no HTTP client to fetch it with", target)
	}
	resp, err := g.Get(ctx, target)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		o := &Opened{URL: target, Size: -1, RawSize: -1}
		if resp != nil {
			o.Response, o.Exchange = resp, resp.Exchange
			if resp.URL != "" {
				o.URL = resp.URL
			}
			resp.Body = nil
		}
		return o, err
	}
	if resp == nil {
		return nil, fmt.Errorf("GET %s: no response", target)
	}
	o := &Opened{URL: resp.URL, Size: -1, RawSize: -1, Response: resp, Exchange: resp.Exchange}
	if o.URL == "" {
		o.URL = target
	}
	gzipped := false
	switch b := resp.Body.(type) {
	case nil:
		o.Body = io.NopCloser(strings.NewReader(""))
		o.Size, o.RawSize = 0, 0
		return o, nil
	case *body:
		// Get's own body sniffs gzip as it starts; start it now, to know
		// whether the size below holds. Its error waits for the first Read.
		if b.r == nil && b.err == nil {
			if err := b.build(); err != nil {
				b.fail(err)
			}
		}
		o.raw = &b.wireRead
		o.Body, gzipped = b, b.gunzipped || b.inflating
		if gzipped {
			o.Body, o.Decompressing = newReadAhead(b, b, b.cancel), true
		}
	default:
		cr := &countingReader{r: b}
		o.raw = &cr.n
		r, gz := gunzipOrFail(bufio.NewReader(cr), o.URL)
		o.Body, gzipped = readCloser{r, b}, gz
		if gz {
			o.Body, o.Decompressing = newReadAhead(r, b, nil), true
		}
	}
	if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
		o.RawSize = n
		if e := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); !gzipped && (e == "" || e == "identity") {
			o.Size = n
		}
	}
	return o, nil
}

// OpenReader is Open for a stream that is already open, such as standard
// input, named name in errors: gzip, recognised by its magic bytes, is undone
// as by Open. Closing the Opened does not close r.
func OpenReader(r io.Reader, name string) *Opened {
	cr := &countingReader{r: r}
	o := &Opened{URL: name, Local: true, Size: -1, RawSize: -1, raw: &cr.n}
	zr, gz := gunzipOrFail(bufio.NewReader(cr), name)
	o.Body = io.NopCloser(zr)
	if gz {
		o.Body, o.Decompressing = newReadAhead(zr, nil, nil), true
	}
	return o
}

// openFile opens a local file, undoing gzip.
func openFile(path string) (*Opened, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	o := &Opened{URL: abs, Local: true, Size: -1, RawSize: -1}
	if st.Mode().IsRegular() {
		o.RawSize = st.Size()
		// A regular file is sniffed in place, so that Body stays the file.
		var head [2]byte
		n, _ := f.ReadAt(head[:], 0)
		if !isGzip(head[:n]) {
			o.Body, o.Size, o.file = f, st.Size(), f
			return o, nil
		}
	}
	// Compressed, or a pipe or a device (which cannot be read in place).
	cr := &countingReader{r: f}
	o.raw = &cr.n
	r, gz := gunzipOrFail(bufio.NewReader(cr), abs)
	o.Body = readCloser{r, f}
	if gz {
		o.Body, o.Decompressing = newReadAhead(r, f, nil), true
	}
	return o, nil
}

// countingReader counts the bytes read through it (for RawRead, from any
// goroutine).
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// splitTarget tells what target names: an http(s) URL, or else a local
// file, whose path is target without "file://". This is the division of
// rsx/model's IsHTTPURL and LocalPath, which fetch cannot import (the cli
// package tests that the two agree); a target model calls neither, such as
// ftp://…, is looked for as a file and not found.
func splitTarget(target string) (path string, local bool) {
	if hasPrefixFold(target, "http://") || hasPrefixFold(target, "https://") {
		return "", false
	}
	if hasPrefixFold(target, "file://") {
		return target[len("file://"):], true
	}
	return target, true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// gunzipOrFail is gunzipIfMagic whose header error waits for the first Read,
// where a reader's errors are looked for (a corrupt stream further on fails
// there too). The errors of the gzip stream name what was undone.
func gunzipOrFail(br *bufio.Reader, name string) (io.Reader, bool) {
	r, gz, err := gunzipIfMagic(br)
	switch {
	case err != nil:
		return errReader{fmt.Errorf("read gzip data of %s: %w", name, err)}, gz
	case gz:
		return gzipErrors{r, name}, gz
	}
	return r, gz
}

// gzipErrors names the stream in the errors of a gzip reader.
type gzipErrors struct {
	r    io.Reader
	name string
}

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("read gzip data of %s: %w", g.name, err)
	}
	return n, err
}

// errReader fails every Read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }
