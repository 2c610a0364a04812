package fetch

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
// undone by g.
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
		return openFile(path)
	case g == nil:
		return nil, fmt.Errorf("open %s: no HTTP client to fetch it with", target)
	}
	resp, err := g.Get(ctx, target)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		o := &Opened{URL: target, Size: -1}
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
	o := &Opened{URL: resp.URL, Size: -1, Response: resp, Exchange: resp.Exchange}
	if o.URL == "" {
		o.URL = target
	}
	gzipped := false
	switch b := resp.Body.(type) {
	case nil:
		o.Body = io.NopCloser(strings.NewReader(""))
		o.Size = 0
		return o, nil
	case *body:
		// Get's own body sniffs gzip as it starts; start it now, to know
		// whether the size below holds. Its error waits for the first Read.
		if b.r == nil && b.err == nil {
			if err := b.build(); err != nil {
				b.fail(err)
			}
		}
		o.Body, gzipped = b, b.gunzipped
	default:
		r, gz := gunzipOrFail(bufio.NewReader(b))
		o.Body, gzipped = readCloser{r, b}, gz
	}
	if e := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); !gzipped && (e == "" || e == "identity") {
		if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
			o.Size = n
		}
	}
	return o, nil
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
	o := &Opened{URL: abs, Local: true, Size: -1}
	if st.Mode().IsRegular() {
		// A regular file is sniffed in place, so that Body stays the file.
		var head [2]byte
		n, _ := f.ReadAt(head[:], 0)
		if !isGzip(head[:n]) {
			o.Body, o.Size = f, st.Size()
			return o, nil
		}
	}
	// Compressed, or a pipe or a device (which cannot be read in place).
	r, _ := gunzipOrFail(bufio.NewReader(f))
	o.Body = readCloser{r, f}
	return o, nil
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

// isGzip tells whether head starts with the gzip magic bytes 1f 8b: the
// one place fetch recognises gzip by its bytes.
func isGzip(head []byte) bool {
	return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b
}

// gunzipIfMagic returns br with gzip undone when it starts with the gzip
// magic bytes, and whether it does; err is that of a gzip header that does
// not parse. Get's bodies and Open's files go through it alike.
func gunzipIfMagic(br *bufio.Reader) (r io.Reader, gzipped bool, err error) {
	if head, _ := br.Peek(2); !isGzip(head) {
		return br, false, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, true, err
	}
	return zr, true, nil
}

// gunzipOrFail is gunzipIfMagic whose header error waits for the first Read,
// where a reader's errors are looked for (a corrupt stream further on fails
// there too).
func gunzipOrFail(br *bufio.Reader) (io.Reader, bool) {
	r, gz, err := gunzipIfMagic(br)
	if err != nil {
		return errReader{err}, gz
	}
	return r, gz
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
