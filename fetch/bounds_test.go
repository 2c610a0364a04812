package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A redirect refused by the request's RedirectCheck is never followed: the
// host it points to gets no request, and the error is the check's.
func TestRedirectCheckRefusesBeforeTheRequest(t *testing.T) {
	t.Parallel()
	var foreignHits atomic.Int64
	foreign := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		foreignHits.Add(1)
		io.WriteString(w, "secret")
	})
	home := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, foreign.URL+"/latest/meta-data", http.StatusFound)
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusMovedPermanently)
		case "/here":
			io.WriteString(w, "home")
		}
	})
	homeURL, _ := url.Parse(home.URL)
	refused := errors.New("outside")
	check := func(from, to *url.URL) error {
		if to.Host != homeURL.Host {
			return fmt.Errorf("%s → %s: %w", from, to, refused)
		}
		return nil
	}
	c := newTestClient(t, testOptions())
	ctx := WithRedirectCheck(testContext(t), check)
	for _, tc := range []struct {
		name     string
		download bool
	}{{"get", false}, {"download", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			var body string
			if tc.download {
				var buf bytes.Buffer
				_, err = c.DownloadWith(ctx, home.URL+"/away", &buf, DownloadOptions{})
				body = buf.String()
			} else {
				var resp *Response
				resp, err = c.Get(ctx, home.URL+"/away")
				if resp != nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					body = string(b)
				}
			}
			if !errors.Is(err, refused) || !strings.Contains(err.Error(), foreign.URL+"/latest/meta-data") {
				t.Fatalf("err = %v", err)
			}
			if body != "" {
				t.Errorf("body %q", body)
			}
			// Within the check's rule, redirects are followed.
			var buf bytes.Buffer
			if _, err := c.DownloadWith(ctx, home.URL+"/moved", &buf, DownloadOptions{}); err != nil || buf.String() != "home" {
				t.Errorf("redirect at home: %q, %v", buf.String(), err)
			}
		})
	}
	if n := foreignHits.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}
	// Without a check, the client follows as before.
	var buf bytes.Buffer
	if _, err := c.DownloadWith(testContext(t), home.URL+"/away", &buf, DownloadOptions{}); err != nil || buf.String() != "secret" {
		t.Errorf("without a check: %q, %v", buf.String(), err)
	}
}

// A body that drips a byte now and then defeats an idle timeout; with
// StallBytes it fails as stalled, in about one stretch.
func TestDownloadStall(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("x"))
		w.(http.Flusher).Flush()
		for {
			select {
			case <-time.After(20 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	c := newTestClient(t, testOptions())
	start := time.Now()
	_, err := c.DownloadWith(testContext(t), s.URL+"/drip", io.Discard, DownloadOptions{IdleTimeout: 200 * time.Millisecond, StallBytes: 1024})
	var idle *IdleTimeoutError
	if !errors.As(err, &idle) || idle.Min != 1024 || !strings.Contains(err.Error(), "stalled: less than 1.0 KiB of the body arrived in 200ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	// A body that flows is not stalled, however long it takes.
	fast := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("y"), 4096)
		for range 10 {
			w.Write(chunk)
			w.(http.Flusher).Flush()
			time.Sleep(50 * time.Millisecond)
		}
	})
	var buf bytes.Buffer
	if _, err := c.DownloadWith(testContext(t), fast.URL, &buf, DownloadOptions{IdleTimeout: 200 * time.Millisecond, StallBytes: 1024}); err != nil || buf.Len() != 40960 {
		t.Errorf("a flowing body: %d bytes, %v", buf.Len(), err)
	}
}

// countWriter counts what it is given.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// gzipBomb is a gzip stream of n zero bytes.
func gzipBomb(t *testing.T, n int64) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zero := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, int64(len(zero)))
		zw.Write(zero[:k])
		n -= k
	}
	zw.Close()
	return b.Bytes()
}

// MaxBytes bounds what a Content-Encoding decodes to, and what arrives.
func TestDownloadMaxBytesBoundsCodings(t *testing.T) {
	t.Parallel()
	bomb := gzipBomb(t, 64<<20) // 64 MiB of zeros in about 64 KB
	empties := bytes.Repeat(gzipBomb(t, 0), 1<<16)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip") // although identity was asked for
		switch r.URL.Path {
		case "/bomb":
			w.Write(bomb)
		case "/empties": // endless gzip members that decode to nothing
			for {
				if _, err := w.Write(empties); err != nil {
					return
				}
			}
		}
	})
	c := newTestClient(t, testOptions())
	for _, p := range []string{"/bomb", "/empties"} {
		var w countWriter
		ctx, cancel := context.WithTimeout(testContext(t), 10*time.Second)
		ex, err := c.DownloadWith(ctx, s.URL+p, &w, DownloadOptions{MaxBytes: 1 << 20})
		cancel()
		var large *TooLargeError
		if !errors.As(err, &large) || large.Limit != 1<<20 {
			t.Errorf("%s: err = %v", p, err)
		}
		if w.n > 1<<20 {
			t.Errorf("%s: %d bytes written past the limit", p, w.n)
		}
		if ex.Bytes > 2<<20 {
			t.Errorf("%s: %d bytes received", p, ex.Bytes)
		}
	}
}

// Timeout bounds a download that flows but never ends; the wait for the
// host's slot before its first request is not counted.
func TestDownloadTimeout(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/quick" {
			io.WriteString(w, "done")
			return
		}
		chunk := bytes.Repeat([]byte("z"), 4096)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(20 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	})
	o := testOptions()
	o.PerHostConcurrency = 1
	c := newTestClient(t, o)
	start := time.Now()
	quick := make(chan error, 1)
	var buf bytes.Buffer
	go func() {
		// Queued behind the endless one for its host's only slot.
		time.Sleep(50 * time.Millisecond)
		_, err := c.DownloadWith(testContext(t), s.URL+"/quick", &buf, DownloadOptions{Timeout: 300 * time.Millisecond})
		quick <- err
	}()
	_, err := c.DownloadWith(testContext(t), s.URL+"/endless", io.Discard, DownloadOptions{Timeout: 400 * time.Millisecond, StallBytes: 1024, IdleTimeout: 200 * time.Millisecond})
	var te *DownloadTimeoutError
	if !errors.As(err, &te) || te.Limit != 400*time.Millisecond || !strings.Contains(err.Error(), s.URL+"/endless: not downloaded within 400ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	if err := <-quick; err != nil || buf.String() != "done" {
		t.Errorf("the download that waited for its slot: %q, %v", buf.String(), err)
	}
}
