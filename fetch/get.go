package fetch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Get fetches a document: it follows redirects (recorded in the Exchange),
// retries, revalidates a cached copy (a 304 serves the cached body and
// sets FromCache), undoes gzip — by Content-Encoding, and by the magic bytes
// 1f 8b when a body such as a .xml.gz comes without one — and stops at
// MaxBytes of decoded body with a *TooLargeError.
//
// Body streams as it arrives; the caller must Close it. For a final status
// that is not 2xx Get returns the Response (its body is the error page) and
// a *StatusError. The Timeout applies to each try, body included.
func (c *Client) Get(ctx context.Context, rawURL string) (*Response, error) {
	h, ex, err := c.do(ctx, rawURL, request{
		method: http.MethodGet, timeout: c.opts.Timeout, acceptEncoding: "gzip", useCache: true,
	})
	if err != nil {
		return nil, err
	}
	resp := h.resp
	b := &body{
		c: c, ex: ex, url: redactURL(h.url), raw: resp.Body,
		cancel: h.cancel, release: h.release, expired: h.expired,
		timeout: c.opts.Timeout, limit: c.opts.MaxBytes,
	}
	status, header := resp.StatusCode, resp.Header
	if h.cached != nil {
		// 304: the network part is over; the body comes from disk.
		discard(resp.Body)
		h.cancel()
		h.release()
		b.raw, b.cancel, b.release = h.cached.body, func() {}, func() {}
		status = h.cached.meta.Status
		header = h.cached.meta.Header.Clone()
		for _, k := range []string{"ETag", "Last-Modified", "Cache-Control", "Expires"} {
			if v := resp.Header.Values(k); len(v) > 0 {
				header[k] = v
			}
		}
		c.log.update(ex, func(e *Exchange) { e.FromCache, e.Revalidated = true, true })
	} else if c.cache != nil {
		switch {
		case shouldCache(resp):
			b.cacheW = c.cache.create(b.url, resp.StatusCode, resp.Header)
		case resp.StatusCode == http.StatusOK:
			c.cache.remove(b.url) // whatever was there is stale
		}
	}
	b.encoding = header.Get("Content-Encoding")
	r := &Response{URL: withoutUser(h.url), Status: status, Header: header, Body: b, Exchange: ex}
	if e := strings.ToLower(strings.TrimSpace(b.encoding)); (e == "" || e == "identity") &&
		h.cached == nil && b.limit > 0 && resp.ContentLength > b.limit {
		err := &TooLargeError{URL: b.url, Limit: b.limit}
		b.fail(err)
		_ = b.Close()
		return nil, err
	}
	if status < 200 || status > 299 {
		return r, &StatusError{Method: http.MethodGet, URL: b.url, Status: status, StatusText: statusText(resp), Tries: ex.Tries, Hint: h.hint}
	}
	return r, nil
}

// Head asks for a resource's headers, following redirects and retrying like
// Get. The Response has an empty Body.
func (c *Client) Head(ctx context.Context, rawURL string) (*Response, error) {
	h, ex, err := c.do(ctx, rawURL, request{method: http.MethodHead, timeout: c.opts.Timeout, acceptEncoding: "gzip"})
	if err != nil {
		return nil, err
	}
	resp := h.resp
	discard(resp.Body)
	h.cancel()
	h.release()
	c.log.finish(ex, nil)
	r := &Response{URL: withoutUser(h.url), Status: resp.StatusCode, Header: resp.Header, Body: http.NoBody, Exchange: ex}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return r, &StatusError{Method: http.MethodHead, URL: redactURL(h.url), Status: resp.StatusCode, StatusText: statusText(resp), Tries: ex.Tries, Hint: h.hint}
	}
	return r, nil
}

// body is the Body of a Response from Get: the raw stream (network or
// cache file), counted and copied to the cache, then decoded and limited.
type body struct {
	c       *Client
	ex      *Exchange
	url     string
	raw     io.ReadCloser
	cancel  context.CancelFunc
	release func()
	expired func() bool
	timeout time.Duration
	cacheW  *cacheWriter

	encoding  string
	tap       io.Writer // receives the content before magic-byte gzip is undone (TapContent)
	limit     int64
	r         io.Reader    // decoded stream, built on the first Read
	gunzipped bool         // r undoes gzip recognised by its magic bytes
	inflating bool         // r undoes Content-Encoding gzip
	wireRead  atomic.Int64 // raw bytes read (Opened.RawRead)
	delivered int64
	eof       bool  // raw stream read to its end
	err       error // sticky failure
	closed    bool
	ended     bool
}

// wire reads the raw stream, counting bytes and feeding the cache.
type wire struct{ b *body }

func (w wire) Read(p []byte) (int, error) {
	b := w.b
	if b.eof {
		return 0, io.EOF
	}
	n, err := b.raw.Read(p)
	b.wireRead.Add(int64(n))
	if n > 0 {
		if b.cacheW != nil {
			b.cacheW.write(p[:n])
		}
		b.c.log.update(b.ex, func(e *Exchange) { e.Bytes += int64(n) })
	}
	switch {
	case err == io.EOF:
		b.eof = true
		if b.cacheW != nil {
			b.cacheW.commit()
		}
		b.release() // the host slot is free once the bytes are in
	case err != nil:
		if b.expired() {
			err = fmt.Errorf("read body of %s: no complete response within %v: %w", b.url, b.timeout, err)
		} else {
			err = fmt.Errorf("read body of %s: %w", b.url, err)
		}
	}
	return n, err
}

func (b *body) build() error {
	var r io.Reader = wire{b}
	switch enc := strings.ToLower(strings.TrimSpace(b.encoding)); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := newGzipReader(r)
		if err != nil {
			return fmt.Errorf("decompress body of %s (Content-Encoding %s): %w", b.url, enc, err)
		}
		r, b.inflating = zr, true
	default:
		return fmt.Errorf("read body of %s: unsupported Content-Encoding %q", b.url, b.encoding)
	}
	if b.tap != nil {
		r = io.TeeReader(r, b.tap)
	}
	zr, gzipped, err := gunzipIfMagic(bufio.NewReader(r))
	if err != nil {
		return fmt.Errorf("decompress gzip body of %s: %w", b.url, err)
	}
	b.r, b.gunzipped = zr, gzipped
	return nil
}

// TapContent makes w receive the content of resp's body as the body is read:
// the bytes as sent with Content-Encoding undone, but before gzip recognised
// by its magic bytes is undone (a .xml.gz file is seen as the file, as a
// digest of it is computed). w must not fail. It must be called before the
// body's first Read; it returns false when it cannot tap the body (not one
// of Get's, or already read), and then w receives nothing.
func TapContent(resp *Response, w io.Writer) bool {
	if resp == nil {
		return false
	}
	b, ok := resp.Body.(*body)
	if !ok || b.r != nil || b.err != nil || b.closed {
		return false
	}
	b.tap = w
	return true
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.closed {
		return 0, fmt.Errorf("read body of %s: %w", b.url, errors.New("body is closed"))
	}
	if b.r == nil {
		if err := b.build(); err != nil {
			b.fail(err)
			return 0, err
		}
	}
	n, err := b.r.Read(p)
	b.delivered += int64(n)
	if b.limit > 0 && b.delivered > b.limit {
		n -= int(b.delivered - b.limit)
		b.delivered = b.limit
		err = &TooLargeError{URL: b.url, Limit: b.limit}
		b.fail(err)
		return n, err
	}
	switch {
	case err == io.EOF:
		b.end(nil)
	case err != nil:
		if !strings.Contains(err.Error(), b.url) {
			err = fmt.Errorf("read body of %s: %w", b.url, err)
		}
		b.fail(err)
	}
	return n, err
}

func (b *body) fail(err error) {
	b.err = err
	b.end(err)
}

// end settles the cache entry, frees the connection and the host slot, and
// finishes the exchange; only the first call counts.
func (b *body) end(err error) {
	if b.ended {
		return
	}
	b.ended = true
	if b.cacheW != nil {
		if b.eof {
			b.cacheW.commit()
		} else {
			b.cacheW.abort()
		}
	}
	_ = b.raw.Close()
	b.cancel()
	b.release()
	b.c.log.finish(b.ex, func(e *Exchange) {
		if err != nil {
			e.Err = err.Error()
		}
	})
}

// Close ends the body. A body closed early is drained a little (at most
// 256 KiB, for at most 100ms) so that it can still be cached and its
// connection reused.
func (b *body) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	if !b.ended && !b.eof {
		t := time.AfterFunc(100*time.Millisecond, b.cancel)
		_, _ = io.CopyN(io.Discard, wire{b}, 256<<10)
		t.Stop()
	}
	b.end(nil)
	return nil
}
