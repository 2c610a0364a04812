package session

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rsx/fetch"
)

// The explorer's sync goes through the same engine with its defaults: a
// resource that redirects to another host fails there too, and the other
// host is asked nothing.
func TestSyncHoldsRedirectsToTheAuthority(t *testing.T) {
	var foreignHits atomic.Int64
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignHits.Add(1)
		io.WriteString(w, "secret")
	}))
	defer foreign.Close()
	const ns = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cap.xml":
			io.WriteString(w, ns+`<rs:md capability="capabilitylist"/><url><loc>`+srv.URL+`/rl.xml</loc><rs:md capability="resourcelist"/></url></urlset>`)
		case "/rl.xml":
			io.WriteString(w, ns+`<rs:ln rel="up" href="`+srv.URL+`/cap.xml"/><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/>`+
				`<url><loc>`+srv.URL+`/r/away</loc></url><url><loc>`+srv.URL+`/r/ok</loc></url></urlset>`)
		case "/r/away":
			http.Redirect(w, r, foreign.URL+"/latest/meta-data/", http.StatusFound)
		case "/r/ok":
			io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", PerHostConcurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	s := New(c, Options{BatchSize: 16})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	j := s.NewSync(SyncRequest{Dest: t.TempDir(), Target: srv.URL + "/cap.xml"})
	defer j.Close()
	if _, err := j.Plan(ctx, false); err != nil {
		t.Fatal(err)
	}
	res, err := j.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Created != 1 || res.FailedCount != 1 || !strings.Contains(res.Failed[0].Error(), "--allow-other-hosts") {
		t.Errorf("created %d, failed %v", res.Created, res.Failed)
	}
	if n := foreignHits.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}
}
