package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// DownloadOptions adjust one Download.
type DownloadOptions struct {
	// Progress is called with the body bytes received so far and the
	// expected total (-1 when unknown), at most about ten times a second and
	// once at the end.
	Progress func(done, total int64)
	// MaxBytes stops the download with a *TooLargeError; 0 means no limit.
	MaxBytes int64
	// IdleTimeout overrides Options.IdleTimeout.
	IdleTimeout time.Duration
	// Header holds request headers of this download only (Accept-Datetime
	// for a Memento TimeGate), sent on every hop after the client's own.
	Header http.Header
}

// Download copies a large body (a dump package, a resource) to w. It
// follows redirects and retries until the response starts, like Get, but
// has no whole-request timeout: only the connect timeouts and an idle
// timeout that fails the download when no byte arrives for IdleTimeout. It
// uses no cache and no size limit.
//
// The bytes written are the resource's bitstream: Download asks for
// "Accept-Encoding: identity" and does not look for gzip magic bytes, so a
// .gz file stays compressed. If a server applies Content-Encoding gzip
// anyway, that transfer coding is undone, because ResourceSync hashes
// describe the resource, not its transfer.
func (c *Client) Download(ctx context.Context, rawURL string, w io.Writer, progress func(done, total int64)) (*Exchange, error) {
	return c.DownloadWith(ctx, rawURL, w, DownloadOptions{Progress: progress})
}

// DownloadWith is Download with options.
func (c *Client) DownloadWith(ctx context.Context, rawURL string, w io.Writer, o DownloadOptions) (*Exchange, error) {
	idle := o.IdleTimeout
	if idle <= 0 {
		idle = c.opts.IdleTimeout
	}
	h, ex, err := c.do(ctx, rawURL, request{method: http.MethodGet, acceptEncoding: "identity", header: o.Header})
	if err != nil {
		return ex, err
	}
	resp := h.resp
	u := redactURL(h.url)
	done := func(err error) (*Exchange, error) {
		_ = resp.Body.Close()
		h.cancel()
		h.release()
		c.log.finish(ex, func(e *Exchange) {
			if err != nil {
				e.Err = err.Error()
			}
		})
		return ex, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		return done(&StatusError{Method: http.MethodGet, URL: u, Status: resp.StatusCode, StatusText: statusText(resp), Tries: ex.Tries})
	}
	total := resp.ContentLength
	if total < 0 {
		total = -1
	}
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	if o.MaxBytes > 0 && total > o.MaxBytes && (enc == "" || enc == "identity") {
		return done(&TooLargeError{URL: u, Limit: o.MaxBytes})
	}

	// The idle timer cancels the try's context, which breaks a hung read.
	var idled atomic.Bool
	timer := time.AfterFunc(idle, func() {
		idled.Store(true)
		h.cancel()
	})
	defer timer.Stop()
	var received int64
	raw := readerFunc(func(p []byte) (int, error) {
		n, err := resp.Body.Read(p)
		if n > 0 {
			timer.Reset(idle)
			received += int64(n)
			c.log.update(ex, func(e *Exchange) { e.Bytes += int64(n) })
		}
		if err != nil && err != io.EOF {
			if idled.Load() {
				return n, &IdleTimeoutError{URL: u, Idle: idle}
			}
			if ctx.Err() != nil {
				return n, fmt.Errorf("download %s: %w", u, ctx.Err())
			}
			return n, fmt.Errorf("download %s: %w", u, err)
		}
		return n, err
	})
	var src io.Reader = raw
	switch enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := newGzipReader(raw)
		if err != nil {
			return done(fmt.Errorf("download %s: decode Content-Encoding %s: %w", u, enc, err))
		}
		src = zr
	default:
		return done(fmt.Errorf("download %s: unsupported Content-Encoding %q", u, enc))
	}
	if enc != "" && enc != "identity" {
		// Progress counts bytes received, but a transfer-coded total is unknown.
		total = -1
	}

	var written int64
	last := time.Time{}
	report := func(final bool) {
		if o.Progress == nil {
			return
		}
		if now := time.Now(); final || now.Sub(last) >= 100*time.Millisecond {
			last = now
			o.Progress(received, total)
		}
	}
	// A small body of known length gets a buffer of its size: a spot audit
	// downloads thousands of resources of a few KB, and 64 KiB for each
	// was most of its allocation and garbage collection.
	bufSize := 64 << 10
	if total >= 0 && total < int64(bufSize) {
		bufSize = int(total) + 1 // the extra byte meets EOF in the same read
	}
	buf := make([]byte, bufSize)
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			if o.MaxBytes > 0 && written+int64(n) > o.MaxBytes {
				n = int(o.MaxBytes - written)
				if n > 0 {
					if _, err := w.Write(buf[:n]); err != nil {
						return done(fmt.Errorf("download %s: write: %w", u, err))
					}
				}
				return done(&TooLargeError{URL: u, Limit: o.MaxBytes})
			}
			// A slow writer is not an idle server: the timer stops meanwhile.
			timer.Stop()
			if _, err := w.Write(buf[:n]); err != nil {
				return done(fmt.Errorf("download %s: write: %w", u, err))
			}
			timer.Reset(idle)
			written += int64(n)
			report(false)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			var idleErr *IdleTimeoutError
			if !errors.As(rerr, &idleErr) && !strings.Contains(rerr.Error(), u) {
				rerr = fmt.Errorf("download %s: %w", u, rerr)
			}
			return done(rerr)
		}
	}
	report(true)
	return done(nil)
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
