package fetch

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func TestNoCredentialsAfterDowngrade(t *testing.T) {
	t.Parallel()
	var rec recorder
	plain := newServer(t, rec.handler(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("plain")) }))
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			t.Errorf("https request lacked the header")
		}
		http.Redirect(w, r, plain.URL+"/down", http.StatusFound)
	}))
	t.Cleanup(secure.Close)
	o := testOptions()
	o.Transport = secure.Client().Transport
	// Bound to the name on any port, so only the downgrade rule stops it.
	o.Headers = []HostHeader{{Host: "127.0.0.1", Name: "Authorization", Value: "Bearer t"}}
	c := newTestClient(t, o)
	if _, _, err := getBody(t, c, secure.URL+"/start"); err != nil {
		t.Fatal(err)
	}
	if got := rec.header("/down", "Authorization"); got != "" {
		t.Errorf("sent over plain http after a redirect from https: %q", got)
	}
}

func TestInsecure(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("tls"))
	}))
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	s.StartTLS()
	t.Cleanup(s.Close)
	o := testOptions()
	c := newTestClient(t, o)
	_, err := c.Get(testContext(t), s.URL)
	if err == nil || !strings.Contains(err.Error(), "certificate") || strings.Contains(err.Error(), "tries") {
		t.Errorf("self-signed certificate: %v (certificate errors are not retried)", err)
	}
	o.Insecure = true
	c = newTestClient(t, o)
	if _, body, err := getBody(t, c, s.URL); err != nil || body != "tls" {
		t.Errorf("insecure: %q, %v", body, err)
	}
}
