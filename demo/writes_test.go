package demo

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// countingListener counts the writes of every connection it accepts.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{Conn: c, writes: l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// ReadFrom is there as a *net.TCPConn's is (net/http's response uses it
// for a body given by ReadFrom); each write of what it copies is counted.
func (c countingConn) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{c}, r)
}

// A resource's answer leaves in one write, its header and its bytes: a
// baseline makes a request for each resource, and the header written apart
// from the body cost the Source a write and the client a read more each.
// Conditional and partial requests are answered as before.
func TestResourceAnsweredInOneWrite(t *testing.T) {
	s := New(Options{})
	srv := httptest.NewUnstartedServer(s.Handler())
	var writes atomic.Int64
	srv.Listener = countingListener{Listener: srv.Listener, writes: &writes}
	srv.Start()
	defer srv.Close()
	client := srv.Client()
	do := func(header ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/dataset1/res/000011.html", nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	do() // the connection made
	before := writes.Load()
	resp, body := do()
	if n := writes.Load() - before; n != 1 {
		t.Errorf("a resource answered in %d writes, want 1", n)
	}
	want := get(t, s.Handler(), "/dataset1/res/000011.html")
	if resp.StatusCode != http.StatusOK || string(body) != want.Body.String() || len(body) <= 512 {
		t.Fatalf("status %d, %d bytes; want 200 and the %d bytes served in-process", resp.StatusCode, len(body), want.Body.Len())
	}
	if et := resp.Header.Get("ETag"); et == "" {
		t.Fatal("no ETag")
	} else if r, _ := do("If-None-Match", et); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", r.StatusCode)
	}
	if r, b := do("Range", "bytes=2-5"); r.StatusCode != http.StatusPartialContent || string(b) != string(body[2:6]) {
		t.Errorf("Range: status %d, %q; want 206, %q", r.StatusCode, b, body[2:6])
	}
}
