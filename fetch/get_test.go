package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGetPlain(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("User-Agent"); got != "rsx/test" {
			t.Errorf("User-Agent = %q", got)
		}
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, "<urlset/>")
	})
	c := newTestClient(t, testOptions())
	resp, body, err := getBody(t, c, s.URL+"/a.xml#frag")
	if err != nil {
		t.Fatal(err)
	}
	if body != "<urlset/>" || resp.Status != 200 || resp.URL != s.URL+"/a.xml" {
		t.Fatalf("got %d %q from %s", resp.Status, body, resp.URL)
	}
	ex := resp.Exchange
	if ex.Bytes != 9 || ex.Tries != 1 || ex.Status != 200 || ex.StatusText != "OK" || !ex.Done ||
		ex.TTFB <= 0 || ex.Duration < ex.TTFB || ex.Started.IsZero() || ex.Err != "" ||
		ex.ResponseHeader.Get("Content-Type") != "application/xml" || ex.RequestHeader.Get("User-Agent") != "rsx/test" {
		t.Fatalf("exchange not filled: %+v", ex)
	}
	if all := c.Exchanges(); len(all) != 1 || all[0].URL != s.URL+"/a.xml" {
		t.Fatalf("Exchanges() = %+v", all)
	}
}

func TestGetGzip(t *testing.T) {
	t.Parallel()
	const doc = "<urlset>gzip</urlset>"
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/encoded":
			if r.Header.Get("Accept-Encoding") != "gzip" {
				t.Errorf("Accept-Encoding = %q", r.Header.Get("Accept-Encoding"))
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipped(t, doc))
		case "/file.xml.gz":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(gzipped(t, doc))
		case "/both.xml.gz":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipped(t, string(gzipped(t, doc))))
		case "/short":
			w.Write([]byte{0x1f})
		}
	})
	c := newTestClient(t, testOptions())
	for _, path := range []string{"/encoded", "/file.xml.gz", "/both.xml.gz"} {
		_, body, err := getBody(t, c, s.URL+path)
		if err != nil || body != doc {
			t.Errorf("%s: %q, %v", path, body, err)
		}
	}
	if _, body, err := getBody(t, c, s.URL+"/short"); err != nil || body != "\x1f" {
		t.Errorf("one-byte body: %q, %v", body, err)
	}
}

func TestRedirectChain(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a":
			http.Redirect(w, r, "/b", http.StatusMovedPermanently)
		case "/b":
			w.Header().Set("Location", "sub/c") // relative to /b
			w.WriteHeader(http.StatusFound)
		case "/sub/c":
			w.Header().Set("Location", "../d?x=1")
			w.WriteHeader(http.StatusTemporaryRedirect)
		case "/d":
			fmt.Fprint(w, "done")
		default:
			http.NotFound(w, r)
		}
	})
	c := newTestClient(t, testOptions())
	resp, body, err := getBody(t, c, s.URL+"/a")
	if err != nil || body != "done" {
		t.Fatalf("%q, %v", body, err)
	}
	if resp.URL != s.URL+"/d?x=1" {
		t.Fatalf("final URL %s", resp.URL)
	}
	want := []Redirect{
		{URL: s.URL + "/a", Status: 301, Location: "/b", To: s.URL + "/b"},
		{URL: s.URL + "/b", Status: 302, Location: "sub/c", To: s.URL + "/sub/c"},
		{URL: s.URL + "/sub/c", Status: 307, Location: "../d?x=1", To: s.URL + "/d?x=1"},
	}
	got := resp.Exchange.Redirects
	if len(got) != len(want) {
		t.Fatalf("redirects %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("redirect %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if resp.Exchange.FinalURL != s.URL+"/d?x=1" {
		t.Errorf("FinalURL %s", resp.Exchange.FinalURL)
	}
}

func TestRedirectLoop(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/a" {
			http.Redirect(w, r, "/b", http.StatusFound)
			return
		}
		http.Redirect(w, r, "/a", http.StatusFound)
	})
	c := newTestClient(t, testOptions())
	_, err := c.Get(testContext(t), s.URL+"/a")
	if !errors.Is(err, ErrRedirectLoop) {
		t.Fatalf("err = %v", err)
	}
	want := "redirect loop: " + s.URL + "/a → " + s.URL + "/b → " + s.URL + "/a"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("message %q lacks %q", err, want)
	}
	if hits.Load() != 2 {
		t.Errorf("%d requests", hits.Load())
	}
	if ex := c.Exchanges()[0]; !ex.Done || ex.Err == "" || len(ex.Redirects) != 2 {
		t.Errorf("exchange %+v", ex)
	}
}

func TestTooManyRedirects(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		http.Redirect(w, r, fmt.Sprintf("/r%d", n), http.StatusFound)
	})
	o := testOptions()
	o.MaxRedirects = 3
	c := newTestClient(t, o)
	_, err := c.Get(testContext(t), s.URL+"/start")
	var re *RedirectError
	if !errors.Is(err, ErrTooManyRedirects) || !errors.As(err, &re) || len(re.Chain) != 5 {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "more than 3 redirects") {
		t.Errorf("message %q", err)
	}
	if hits.Load() != 4 {
		t.Errorf("%d requests, want 4", hits.Load())
	}
}

func TestRetryStatus(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	})
	c := newTestClient(t, testOptions())
	resp, body, err := getBody(t, c, s.URL)
	if err != nil || body != "ok" || resp.Exchange.Tries != 2 {
		t.Fatalf("%q, %v, tries %d", body, err, resp.Exchange.Tries)
	}
}

func TestRetryPersistent500(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "broken", http.StatusInternalServerError)
	})
	c := newTestClient(t, testOptions())
	resp, body, err := getBody(t, c, s.URL+"/x")
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 500 || se.Tries != 3 {
		t.Fatalf("err = %#v", err)
	}
	want := "GET " + s.URL + "/x: 500 Internal Server Error (after 3 tries)"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	if resp == nil || resp.Status != 500 || body != "broken\n" {
		t.Errorf("error page not available: %v %q", resp, body)
	}
	if hits.Load() != 3 {
		t.Errorf("%d requests", hits.Load())
	}
}

func TestNoRetryOn404(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	})
	c := newTestClient(t, testOptions())
	_, _, err := getBody(t, c, s.URL)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 404 || hits.Load() != 1 || strings.Contains(err.Error(), "after") {
		t.Fatalf("err = %v, %d hits", err, hits.Load())
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		value func() string
		min   time.Duration
	}{
		{"seconds", func() string { return "1" }, 900 * time.Millisecond},
		// An HTTP date has whole seconds: two seconds ahead waits over one.
		{"date", func() string { return time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat) }, 900 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var hits atomic.Int32
			var first time.Time
			var gap time.Duration
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if hits.Add(1) == 1 {
					first = time.Now()
					w.Header().Set("Retry-After", tc.value())
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				gap = time.Since(first)
				fmt.Fprint(w, "ok")
			})
			c := newTestClient(t, testOptions())
			_, body, err := getBody(t, c, s.URL)
			if err != nil || body != "ok" {
				t.Fatalf("%q, %v", body, err)
			}
			if gap < tc.min || gap > 3500*time.Millisecond {
				t.Errorf("retried after %v", gap)
			}
		})
	}
}

func TestRetryAfterCapped(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	})
	o := testOptions()
	o.MaxRetryWait = 50 * time.Millisecond
	c := newTestClient(t, o)
	start := time.Now()
	if _, body, err := getBody(t, c, s.URL); err != nil || body != "ok" {
		t.Fatalf("%q, %v", body, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("waited %v despite MaxRetryWait", d)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"5", 5 * time.Second, true},
		{"-3", 0, true},
		{"Sun, 22 Nov 2026 08:00:30 GMT", 30 * time.Second, true},
		{"Sun, 22 Nov 2026 07:00:00 GMT", 0, true},
		{"soon", 0, false},
	} {
		got, ok := retryAfter(http.Header{"Retry-After": {tc.v}}, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%q: %v %v, want %v %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

// A refused connection on this machine is a wrong port or a server not
// started: it fails at once, with no retries and no back-off (a wrong port
// took 13 s to report). A remote host's refusal is still retried (a server
// that restarts, a balancer between backends).
func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		name, url string
		tries     int
		says      string
	}{
		{"loopback", "http://" + addr + "/", 1, "(nothing listens there on this machine)"},
		{"localhost", "http://localhost:" + addr[strings.LastIndex(addr, ":")+1:] + "/", 1, "(nothing listens there on this machine)"},
		// Every dial goes to the closed port: a remote name that refuses.
		{"remote", "http://refusing.example/", 3, "(after 3 tries)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions()
			o.RetryWait = 200 * time.Millisecond
			dialer := &net.Dialer{}
			o.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return dialer.DialContext(ctx, network, addr)
			}}
			c := newTestClient(t, o)
			start := time.Now()
			_, err := c.Get(testContext(t), tc.url)
			if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want it to say %q", err, tc.says)
			}
			took := time.Since(start)
			if tc.tries == 1 && took > 150*time.Millisecond {
				t.Errorf("a refusal on this machine took %v: no back-off wanted", took)
			}
			ex := c.Exchanges()[0]
			if ex.Tries != tc.tries || ex.Err == "" || !ex.Done {
				t.Errorf("%d tries, want %d; exchange %+v", ex.Tries, tc.tries, ex)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	})
	o := testOptions()
	o.Timeout = 150 * time.Millisecond
	o.Retries = 0
	c := newTestClient(t, o)
	start := time.Now()
	_, err := c.Get(testContext(t), s.URL)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "within 150ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}

func TestTimeoutDuringBody(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<urlset>"))
		w.(http.Flusher).Flush()
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	})
	o := testOptions()
	o.Timeout = 200 * time.Millisecond
	c := newTestClient(t, o)
	resp, err := c.Get(testContext(t), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "read body of") {
		t.Fatalf("err = %v", err)
	}
}

func TestCancelMidBody(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 1000)))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newTestClient(t, testOptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := c.Get(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 1000)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
	resp.Body.Close()
	if ex := resp.Exchange; !ex.Done || ex.Err == "" || ex.Bytes != 1000 {
		t.Errorf("exchange %+v", ex)
	}
}

func TestMaxBytes(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("y", 5000)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/length":
			w.Header().Set("Content-Length", fmt.Sprint(len(big)))
			fmt.Fprint(w, big)
		case "/chunked":
			w.Write([]byte(big[:2000]))
			w.(http.Flusher).Flush()
			w.Write([]byte(big[2000:]))
		case "/bomb.gz":
			w.Write(gzipped(t, big))
		}
	})
	o := testOptions()
	o.MaxBytes = 1000
	c := newTestClient(t, o)
	_, err := c.Get(testContext(t), s.URL+"/length")
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 1000 || !strings.Contains(err.Error(), "larger than 1000 B (1000 bytes), the limit of --max-bytes") {
		t.Fatalf("declared length: %v", err)
	}
	for _, p := range []string{"/chunked", "/bomb.gz"} {
		_, body, err := getBody(t, c, s.URL+p)
		if !errors.As(err, &tl) || len(body) != 1000 {
			t.Errorf("%s: %d bytes, %v", p, len(body), err)
		}
	}
}

// TestRetryWaitIsToldAndInterruptible: a wait between tries is capped, told
// (Options.OnWait, and on the exchange while it lasts), and ends at once
// when the context does.
func TestRetryWaitIsToldAndInterruptible(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "180")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	o := testOptions()
	o.Retries = 3
	o.MaxRetryWait = 30 * time.Second
	waits := make(chan Wait, 4)
	var c *Client
	var during []*Exchange
	o.OnWait = func(w Wait) {
		during = c.Exchanges()
		waits <- w
	}
	c = newTestClient(t, o)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-waits; cancel() }() // ctrl-c during the first wait
	start := time.Now()
	_, err := c.Get(ctx, s.URL+"/busy")
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
	if len(during) != 1 || during[0].WaitingUntil.IsZero() || during[0].WaitReason != "Retry-After" {
		t.Errorf("the exchange does not show the wait: %+v", during)
	}
	if ex := c.Exchanges(); len(ex) != 1 || !ex[0].WaitingUntil.IsZero() {
		t.Errorf("the wait is still shown after it ended: %+v", ex)
	}
	var w Wait
	o.OnWait = func(x Wait) { w = x }
	o.Retries, o.MaxRetryWait = 1, 10*time.Millisecond
	c = newTestClient(t, o)
	c.Get(context.Background(), s.URL+"/busy")
	if w.Status != 503 || w.Asked != 180*time.Second || w.Duration != 10*time.Millisecond ||
		!strings.Contains(w.String(), "asked 3m0s, capped") {
		t.Errorf("wait %+v: %s", w, w)
	}
}
