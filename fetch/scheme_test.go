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
