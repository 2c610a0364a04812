package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDownload(t *testing.T) {
	t.Parallel()
	payload := bytes.Repeat([]byte("0123456789"), 20000) // 200 kB
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/move" {
			http.Redirect(w, r, "/pkg.zip", http.StatusFound)
			return
		}
		if got := r.Header.Get("Accept-Encoding"); got != "identity" {
			t.Errorf("Accept-Encoding %q", got)
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(payload)))
		for i := 0; i < len(payload); i += 50000 {
			w.Write(payload[i : i+50000])
			w.(http.Flusher).Flush()
			time.Sleep(60 * time.Millisecond)
		}
	})
	c := newTestClient(t, testOptions())
	var buf bytes.Buffer
	var mu sync.Mutex
	var calls [][2]int64
	ex, err := c.Download(testContext(t), s.URL+"/move", &buf, func(done, total int64) {
		mu.Lock()
		calls = append(calls, [2]int64{done, total})
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), payload) {
		t.Fatalf("got %d bytes", buf.Len())
	}
	if ex.Bytes != int64(len(payload)) || ex.Status != 200 || len(ex.Redirects) != 1 || !ex.Done || ex.Err != "" {
		t.Errorf("exchange %+v", ex)
	}
	if len(calls) < 2 || len(calls) > 8 {
		t.Errorf("%d progress calls: %v", len(calls), calls)
	}
	if last := calls[len(calls)-1]; last != [2]int64{int64(len(payload)), int64(len(payload))} {
		t.Errorf("last progress %v", last)
	}
}

func TestDownloadIdleTimeout(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	c := newTestClient(t, testOptions())
	var buf bytes.Buffer
	start := time.Now()
	ex, err := c.DownloadWith(testContext(t), s.URL+"/hang", &buf, DownloadOptions{IdleTimeout: 200 * time.Millisecond})
	var idle *IdleTimeoutError
	if !errors.As(err, &idle) || !strings.Contains(err.Error(), "no data received for 200ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	if buf.String() != "partial" || ex.Err == "" || !ex.Done {
		t.Errorf("wrote %q, exchange %+v", buf.String(), ex)
	}
}

func TestDownloadKeepsBitstream(t *testing.T) {
	t.Parallel()
	const doc = "<urlset/>"
	gz := gzipped(t, doc)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/file.xml.gz":
			w.Write(gz)
		case "/encoded":
			w.Header().Set("Content-Encoding", "gzip") // despite identity
			w.Write(gz)
		}
	})
	c := newTestClient(t, testOptions())
	var buf bytes.Buffer
	if _, err := c.Download(testContext(t), s.URL+"/file.xml.gz", &buf, nil); err != nil || !bytes.Equal(buf.Bytes(), gz) {
		t.Errorf(".gz file: %v, %q", err, buf.Bytes())
	}
	buf.Reset()
	if _, err := c.Download(testContext(t), s.URL+"/encoded", &buf, nil); err != nil || buf.String() != doc {
		t.Errorf("Content-Encoding gzip: %v, %q", err, buf.Bytes())
	}
}

func TestDownloadErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/big":
			w.Write(bytes.Repeat([]byte("b"), 3000))
		}
	})
	c := newTestClient(t, testOptions())
	var buf bytes.Buffer
	_, err := c.Download(testContext(t), s.URL+"/missing", &buf, nil)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 404 || buf.Len() != 0 {
		t.Errorf("404: %v, wrote %d", err, buf.Len())
	}
	_, err = c.DownloadWith(testContext(t), s.URL+"/big", &buf, DownloadOptions{MaxBytes: 1000})
	var tl *TooLargeError
	if !errors.As(err, &tl) || buf.Len() > 1000 {
		t.Errorf("limit: %v, wrote %d", err, buf.Len())
	}
	if _, err := c.Download(testContext(t), "ftp://example.org/x", &buf, nil); err == nil {
		t.Error("ftp URL accepted")
	}
}

func TestHead(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			t.Errorf("method %s", r.Method)
		}
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Length", "1234")
		w.Header().Set("Last-Modified", "Sat, 21 Nov 2026 10:00:00 GMT")
	})
	c := newTestClient(t, testOptions())
	resp, err := c.Head(testContext(t), s.URL+"/old")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.URL != s.URL+"/new" || resp.Header.Get("Content-Length") != "1234" || !resp.Exchange.Done || resp.Exchange.Method != "HEAD" {
		t.Errorf("%+v %+v", resp, resp.Exchange)
	}
}

func TestDownloadCancel(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("some"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newTestClient(t, testOptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(100*time.Millisecond, cancel)
	var buf bytes.Buffer
	_, err := c.Download(ctx, s.URL, &buf, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestDownloadRetriesBeforeBody(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) < 3 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.Write([]byte("pkg"))
	})
	c := newTestClient(t, testOptions())
	var buf bytes.Buffer
	ex, err := c.Download(testContext(t), s.URL, &buf, nil)
	if err != nil || buf.String() != "pkg" || ex.Tries != 3 {
		t.Fatalf("%v, %q, %+v", err, buf.String(), ex)
	}
}
