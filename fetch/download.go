package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"
)

// DownloadOptions adjust one Download.
type DownloadOptions struct {
	// Progress is called with the body bytes received so far and the
	// expected total (-1 when unknown), at most about ten times a second and
	// once at the end.
	Progress func(done, total int64)
	// MaxBytes stops the download with a *TooLargeError; 0 means no limit.
	// It bounds the bytes written to w (the body with any Content-Encoding
	// undone, so that a small gzip bomb cannot become a large file), and
	// the bytes received, with room for the coding's overhead.
	MaxBytes int64
	// IdleTimeout overrides Options.IdleTimeout.
	IdleTimeout time.Duration
	// StallBytes makes the idle timeout a stall timeout: the download fails
	// with an *IdleTimeoutError when fewer than StallBytes body bytes arrive
	// in a stretch of IdleTimeout, so that a body that drips a byte now and
	// then cannot hold it for ever. 0 or 1: any byte restarts the clock.
	StallBytes int64
	// Timeout bounds the whole download, from its first request (the wait
	// for a host's slot before it is not counted) to the body's last byte,
	// redirects and retries included: past it the download fails with a
	// *DownloadTimeoutError. 0 means none.
	Timeout time.Duration
	// Header holds request headers of this download only (Accept-Datetime
	// for a Memento TimeGate), sent on every hop after the client's own.
	Header http.Header
}

// Download copies a large body (a dump package, a resource) to w. It
// follows redirects and retries until the response starts, like Get, but
// has no whole-request timeout: only the connect timeouts and an idle
// timeout that fails the download when no byte arrives for IdleTimeout (or,
// with StallBytes, too few). It uses no cache, and no size limit unless
// MaxBytes gives one.
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
	req := request{method: http.MethodGet, acceptEncoding: "identity", header: o.Header}
	var timedOut func(error) error
	if o.Timeout > 0 {
		var stopTimer func()
		ctx, req.started, stopTimer, timedOut = downloadDeadline(ctx, rawURL, o.Timeout)
		defer stopTimer()
	}
	h, ex, err := c.do(ctx, rawURL, req)
	if err != nil {
		if timedOut != nil {
			err = timedOut(err)
		}
		return ex, err
	}
	resp := h.resp
	u := redactURL(h.url)
	done := func(err error) (*Exchange, error) {
		if err != nil && timedOut != nil {
			err = timedOut(err)
		}
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
		return done(&StatusError{Method: http.MethodGet, URL: u, Status: resp.StatusCode, StatusText: statusText(resp), Tries: ex.Tries, Hint: h.hint})
	}
	total := resp.ContentLength
	if total < 0 {
		total = -1
	}
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	if o.MaxBytes > 0 && total > o.MaxBytes && (enc == "" || enc == "identity") {
		return done(&TooLargeError{URL: u, Limit: o.MaxBytes})
	}

	// The watchdog cancels the try's context, which breaks a hung read.
	wd := newWatchdog(idle, o.StallBytes, h.cancel)
	defer wd.stop()
	idleErr := func() error { return &IdleTimeoutError{URL: u, Idle: idle, Min: max(o.StallBytes, 1)} }
	// What arrives is bounded too: a coded body a little longer than its
	// decoded bytes is allowed (gzip's overhead), an endless one is not.
	maxReceived := int64(0)
	if o.MaxBytes > 0 && o.MaxBytes < math.MaxInt64/2 {
		maxReceived = o.MaxBytes + o.MaxBytes/64 + 64<<10
	}
	var received int64
	raw := readerFunc(func(p []byte) (int, error) {
		n, err := resp.Body.Read(p)
		if n > 0 {
			wd.add(n)
			received += int64(n)
			c.log.update(ex, func(e *Exchange) { e.Bytes += int64(n) })
			if maxReceived > 0 && received > maxReceived {
				return n, &TooLargeError{URL: u, Limit: o.MaxBytes}
			}
		}
		if err != nil && err != io.EOF {
			if wd.hasFired() {
				return n, idleErr()
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
			// A slow writer is not an idle server: the clock stops meanwhile.
			wd.pause()
			if _, err := w.Write(buf[:n]); err != nil {
				return done(fmt.Errorf("download %s: write: %w", u, err))
			}
			wd.resume()
			written += int64(n)
			report(false)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			var idleE *IdleTimeoutError
			var large *TooLargeError
			switch {
			case errors.As(rerr, &large):
				return done(large)
			case !errors.As(rerr, &idleE) && wd.hasFired():
				// The decoder met the broken read first.
				rerr = idleErr()
			case !errors.As(rerr, &idleE) && !strings.Contains(rerr.Error(), u):
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

// downloadDeadline returns a context that Download's Timeout ends, a func
// that starts its clock (at the first request: idempotent), one that stops
// it, and one that turns an error the deadline caused into a
// *DownloadTimeoutError.
func downloadDeadline(ctx context.Context, rawURL string, d time.Duration) (context.Context, func(), func(), func(error) error) {
	ctx, cancel := context.WithCancelCause(ctx)
	te := &DownloadTimeoutError{URL: rawURL, Limit: d}
	if u, err := parseTarget(http.MethodGet, rawURL); err == nil {
		te.URL = redactURL(u)
	}
	var mu sync.Mutex
	var timer *time.Timer
	stopped := false
	start := func() {
		mu.Lock()
		defer mu.Unlock()
		if timer == nil && !stopped {
			timer = time.AfterFunc(d, func() { cancel(te) })
		}
	}
	stop := func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		if timer != nil {
			timer.Stop()
		}
		cancel(nil)
	}
	timedOut := func(err error) error {
		if errors.Is(context.Cause(ctx), te) {
			return te
		}
		return err
	}
	return ctx, start, stop, timedOut
}
