package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A hostile Source: a resource too large for --max-size, one that redirects
// to another host, one that drips. rsx sync fails each (exit 1) with a
// message that names the flag, asks the other host nothing, and ends.
func TestSyncCommandBoundsHostileResources(t *testing.T) {
	var foreignHits atomic.Int64
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignHits.Add(1)
		io.WriteString(w, "secret")
	}))
	defer foreign.Close()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cap.xml":
			io.WriteString(w, rsOpen+`<rs:md capability="capabilitylist"/><url><loc>`+srv.URL+`/rl.xml</loc><rs:md capability="resourcelist"/></url>`+rsClose)
		case "/rl.xml":
			io.WriteString(w, rsOpen+`<rs:ln rel="up" href="`+srv.URL+`/cap.xml"/><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/>`+
				`<url><loc>`+srv.URL+`/r/big</loc></url><url><loc>`+srv.URL+`/r/away</loc></url><url><loc>`+srv.URL+`/r/drip</loc></url>`+
				`<url><loc>`+srv.URL+`/r/ok</loc></url>`+rsClose)
		case "/r/big":
			w.Write(bytes.Repeat([]byte("b"), 8<<10))
		case "/r/away":
			http.Redirect(w, r, foreign.URL+"/latest/meta-data/", http.StatusFound)
		case "/r/drip":
			for {
				if _, err := w.Write([]byte(".")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-time.After(20 * time.Millisecond):
				case <-r.Context().Done():
					return
				}
			}
		case "/r/ok":
			io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	start := time.Now()
	code, out, errs := runCmd(t, "sync", "--json", "--dest", t.TempDir(), "--max-size", "4KiB", "--stall-timeout", "300ms", srv.URL+"/cap.xml")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	o := decodeOneJSON[syncOut](t, out, "sync")
	o.checkShape(t)
	if code != exitFound || *o.Created != 1 || len(o.Failed) != 3 {
		t.Fatalf("exit %d, %d created, failed %+v\n%s", code, *o.Created, o.Failed, errs)
	}
	want := map[string][]string{
		"/r/big":  {"larger than 4.0 KiB", "--max-size"},
		"/r/away": {foreign.URL + "/latest/meta-data/", "--allow-other-hosts"},
		"/r/drip": {"stalled", "--stall-timeout"},
	}
	for _, f := range o.Failed {
		for _, w := range want[strings.TrimPrefix(*f.URL, srv.URL)] {
			if !strings.Contains(*f.Error, w) {
				t.Errorf("%s: %q does not say %q", *f.URL, *f.Error, w)
			}
		}
	}
	if n := foreignHits.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}
}

func TestSyncCommandBoundsUsage(t *testing.T) {
	for _, tc := range []struct{ flag, value, want string }{
		{"--max-size", "0", "--max-size"},
		{"--max-size", "lots", "size"},
		{"--stall-timeout", "0s", "--stall-timeout"},
		{"--resource-timeout", "-1s", "--resource-timeout"},
	} {
		code, out, errs := runCmd(t, "sync", "--dest", t.TempDir(), tc.flag, tc.value, "http://127.0.0.1:1/cap.xml")
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q", tc.flag, tc.value, code, out, errs)
		}
	}
}
