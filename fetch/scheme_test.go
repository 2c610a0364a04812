package fetch

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// An https:// URL of a server that speaks plain http, and an http:// URL
// of one that speaks TLS, are a wrong scheme, not a server that may answer
// later: one try, and the error names the other scheme's URL.
func TestSchemeMismatchIsNotRetried(t *testing.T) {
	t.Parallel()
	var plainHits atomic.Int32
	plain := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		plainHits.Add(1)
		w.Write([]byte("plain"))
	})
	secure := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("tls")) }))
	secure.Config.ErrorLog = log.New(io.Discard, "", 0)
	secure.StartTLS()
	t.Cleanup(secure.Close)
	// A TLS server that answers plain http with a TLS alert, as many do
	// (Go's answers with a 400 of its own, below).
	alert, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alert.Close() })
	go func() {
		for {
			conn, err := alert.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				buf := make([]byte, 1024)
				conn.Read(buf)
				conn.Write([]byte{0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x46})
			}()
		}
	}()

	o := testOptions()
	o.Retries = 4
	o.Insecure = true
	c := newTestClient(t, o)
	for _, tc := range []struct {
		name, url, want string
	}{
		{"https to plain http", "https" + strings.TrimPrefix(plain.URL, "http") + "/cap.xml", "speaks plain http, not https: try http://" + strings.TrimPrefix(plain.URL, "http://") + "/cap.xml"},
		{"http to a TLS alert", "http://" + alert.Addr().String() + "/cap.xml", "speaks https, not plain http: try https://" + alert.Addr().String() + "/cap.xml"},
		{"http to Go's TLS server", "http" + strings.TrimPrefix(secure.URL, "https") + "/cap.xml", "speaks https, not plain http: try https://" + strings.TrimPrefix(secure.URL, "https://") + "/cap.xml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.Get(testContext(t), tc.url)
			if resp != nil {
				resp.Body.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "tries") {
				t.Errorf("GET %s: %v\nwant one try and %q", tc.url, err, tc.want)
			}
			if resp != nil && resp.Exchange != nil && resp.Exchange.Tries > 1 {
				t.Errorf("%d tries", resp.Exchange.Tries)
			}
		})
	}
	if n := plainHits.Load(); n != 0 {
		t.Errorf("the plain server answered %d requests", n)
	}
	// The right scheme works as ever.
	if _, body, err := getBody(t, c, plain.URL+"/x"); err != nil || body != "plain" {
		t.Errorf("http to plain http: %q, %v", body, err)
	}
}

func TestSchemeFor(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"example.org/cap.xml", "https://example.org/cap.xml"},
		{"example.org", "https://example.org"},
		{"www.example.org/.well-known/resourcesync", "https://www.example.org/.well-known/resourcesync"},
		{"localhost:8080/dataset1/capabilitylist.xml", "http://localhost:8080/dataset1/capabilitylist.xml"},
		{"localhost/x", "http://localhost/x"},
		{"127.0.0.1:8080/x", "http://127.0.0.1:8080/x"},
		{"[::1]:8080/x", "http://[::1]:8080/x"},
		{"example.org:8443/x", "http://example.org:8443/x"},
		{"example.org:443/x", "https://example.org:443/x"},
		{"myserver:8080/cap.xml", "http://myserver:8080/cap.xml"},
		{"example.org?x=1", "https://example.org?x=1"},
		{"resourcelist.xml", ""},
		{"changelist.xml.gz", ""},
		{"dump.zip", ""},
		{"./example.org", ""},
		{"data/example.org", ""},
		{"/srv/example.org/cap.xml", ""},
		{"https://example.org/x", ""},
		{"myserver/cap.xml", ""},
		{`C:\copy\cap.xml`, ""},
		{"c:/copy", ""},
		{"urn:isbn:1", ""},
		{"mailto:a@example.org", ""},
		{"", ""},
	} {
		if got := SchemeFor(c.in); got != c.want {
			t.Errorf("SchemeFor(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A URL typed without its scheme is said to need one, with the URL meant,
// whether it reads as a URL (localhost:8080/x) or as a path that is no file
// (127.0.0.1:8080/x, example.org/cap.xml): not a Go parse error.
func TestNoSchemeSuggestsOne(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, testOptions())
	for _, target := range []string{"localhost:8080/cap.xml", "127.0.0.1:8080/cap.xml", "example.org/cap.xml"} {
		if _, err := c.Get(testContext(t), target); err == nil || !strings.Contains(err.Error(), "give the scheme: "+SchemeFor(target)) || strings.Contains(err.Error(), "first path segment") {
			t.Errorf("Get(%q): %v", target, err)
		}
		_, err := Open(testContext(t), c, target)
		if err == nil || !strings.Contains(err.Error(), "give the scheme: "+SchemeFor(target)) || strings.Contains(err.Error(), "first path segment") {
			t.Errorf("Open(%q): %v", target, err)
		}
	}
}
