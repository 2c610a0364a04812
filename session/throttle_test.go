package session

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rsx/fetch"
)

// The explorer's status bar can say that fetching is held back: the
// session passes on the hosts its clients' politeness throttles.
func TestSessionThrottled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	o := fetch.DefaultOptions()
	o.NoCache, o.Netrc, o.PerHostRate = true, "-", 50
	o.Near = nil // the test server is on loopback: treat it as remote
	c, err := fetch.NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	s := New(c, Options{})
	if th := s.Throttled(); len(th) != 0 {
		t.Fatalf("throttled before any request: %+v", th)
	}
	for range 3 {
		resp, err := c.Get(context.Background(), srv.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	th := s.Throttled()
	if len(th) != 1 || th[0].Host != "127.0.0.1" || th[0].Rate != 50 || th[0].Waits < 2 || !strings.Contains(srv.URL, th[0].Host) {
		t.Errorf("Throttled() = %+v", th)
	}
}
