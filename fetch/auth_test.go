package fetch

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recorder is a server that remembers the credentials each path received.
type recorder struct {
	mu   sync.Mutex
	seen map[string]http.Header
}

func (rec *recorder) handler(next func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		if rec.seen == nil {
			rec.seen = map[string]http.Header{}
		}
		rec.seen[r.URL.Path] = r.Header.Clone()
		rec.mu.Unlock()
		next(w, r)
	}
}

func (rec *recorder) header(path, name string) string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.seen[path].Get(name)
}

func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return CanonicalHost(u)
}

func TestAuthOnlyToItsHost(t *testing.T) {
	t.Parallel()
	var other, home recorder
	otherSrv := newServer(t, other.handler(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("other"))
	}))
	var homeSrv = newServer(t, home.handler(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, otherSrv.URL+"/landed", http.StatusFound)
		case "/local":
			http.Redirect(w, r, "/here", http.StatusFound)
		default:
			w.Write([]byte("home"))
		}
	}))
	o := testOptions()
	o.Headers = []HostHeader{
		{Host: hostOf(t, homeSrv.URL), Name: "Authorization", Value: "Bearer sekrit"},
		{Host: hostOf(t, homeSrv.URL), Name: "X-Api-Key", Value: "k3y"},
	}
	c := newTestClient(t, o)

	if _, _, err := getBody(t, c, homeSrv.URL+"/doc"); err != nil {
		t.Fatal(err)
	}
	if got := home.header("/doc", "Authorization"); got != "Bearer sekrit" {
		t.Errorf("own host got Authorization %q", got)
	}
	if got := home.header("/doc", "X-Api-Key"); got != "k3y" {
		t.Errorf("own host got X-Api-Key %q", got)
	}
	// Same host after a redirect: still sent.
	if _, _, err := getBody(t, c, homeSrv.URL+"/local"); err != nil {
		t.Fatal(err)
	}
	if got := home.header("/here", "Authorization"); got != "Bearer sekrit" {
		t.Errorf("same-host redirect target got %q", got)
	}
	// Another host (another port on the same address): never.
	if _, _, err := getBody(t, c, otherSrv.URL+"/direct"); err != nil {
		t.Fatal(err)
	}
	resp, _, err := getBody(t, c, homeSrv.URL+"/away")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/direct", "/landed"} {
		for _, h := range []string{"Authorization", "X-Api-Key"} {
			if got := other.header(p, h); got != "" {
				t.Errorf("other host %s got %s %q", p, h, got)
			}
		}
	}
	if got := home.header("/away", "Authorization"); got != "Bearer sekrit" {
		t.Errorf("redirecting request lacked credentials: %q", got)
	}
	if got := resp.Exchange.RequestHeader.Get("Authorization"); got != "" {
		t.Errorf("recorded request to the other host has Authorization %q", got)
	}
}

func TestBasicAuthAndRedaction(t *testing.T) {
	t.Parallel()
	var rec recorder
	s := newServer(t, rec.handler(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	o := testOptions()
	o.BasicAuth = []HostBasicAuth{{Host: hostOf(t, s.URL), User: "alice", Password: "pw"}}
	c := newTestClient(t, o)
	resp, _, err := getBody(t, c, s.URL+"/p")
	if err != nil {
		t.Fatal(err)
	}
	req := &http.Request{Header: http.Header{"Authorization": {rec.header("/p", "Authorization")}}}
	if u, p, ok := req.BasicAuth(); !ok || u != "alice" || p != "pw" {
		t.Errorf("server got %q", rec.header("/p", "Authorization"))
	}
	if got := resp.Exchange.RequestHeader.Get("Authorization"); got != "Basic …(redacted)" {
		t.Errorf("recorded %q", got)
	}
	for _, ex := range c.Exchanges() {
		if strings.Contains(ex.RequestHeader.Get("Authorization"), "YWxpY2U6cHc=") {
			t.Error("credentials in the exchange log")
		}
	}
}

func TestUserInfoInURL(t *testing.T) {
	t.Parallel()
	var rec, other recorder
	otherSrv := newServer(t, other.handler(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("x")) }))
	s := newServer(t, rec.handler(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/go" {
			http.Redirect(w, r, otherSrv.URL+"/x", http.StatusFound)
			return
		}
		w.Write([]byte("ok"))
	}))
	c := newTestClient(t, testOptions())
	withUser := strings.Replace(s.URL, "http://", "http://bob:hunter2@", 1)
	resp, _, err := getBody(t, c, withUser+"/go")
	if err != nil {
		t.Fatal(err)
	}
	if rec.header("/go", "Authorization") == "" {
		t.Error("user info not sent to its own host")
	}
	if got := other.header("/x", "Authorization"); got != "" {
		t.Errorf("user info leaked on redirect: %q", got)
	}
	if strings.Contains(resp.Exchange.URL, "hunter2") || strings.Contains(resp.URL, "hunter2") {
		t.Errorf("password recorded: %s %s", resp.Exchange.URL, resp.URL)
	}
}

func TestHostMatches(t *testing.T) {
	u := func(s string) *url.URL { v, _ := url.Parse(s); return v }
	for _, tc := range []struct {
		bound, url string
		want       bool
	}{
		{"example.org:443", "https://example.org/x", true},
		{"example.org:443", "https://EXAMPLE.org:443/x", true},
		{"example.org:443", "http://example.org/x", false},
		{"example.org:443", "https://www.example.org/x", false},
		{"example.org", "http://example.org:8080/", true},
		{"example.org", "https://example.org.evil.com/", false},
		{"[::1]:8080", "http://[::1]:8080/", true},
		{"", "http://example.org/", false},
	} {
		if got := hostMatches(tc.bound, u(tc.url)); got != tc.want {
			t.Errorf("hostMatches(%q, %q) = %v", tc.bound, tc.url, got)
		}
	}
}

func TestNetrcCredentials(t *testing.T) {
	t.Parallel()
	var rec, other recorder
	s := newServer(t, rec.handler(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	otherSrv := newServer(t, other.handler(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	path := filepath.Join(t.TempDir(), "netrc")
	// 127.0.0.1 on s's port is the machine (a test server is never on the
	// default port, so the entry names it); localhost is the "other" host
	// name, and 127.0.0.1 on other's port another service.
	content := "machine " + strings.TrimPrefix(s.URL, "http://") + " login carol password \"p w\"\n" +
		"machine 127.0.0.1 login dave password d\ndefault login anyone password everywhere\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	o := testOptions()
	o.Netrc = path
	c := newTestClient(t, o)
	if _, _, err := getBody(t, c, s.URL+"/a"); err != nil {
		t.Fatal(err)
	}
	req := &http.Request{Header: http.Header{"Authorization": {rec.header("/a", "Authorization")}}}
	if u, p, ok := req.BasicAuth(); !ok || u != "carol" || p != "p w" {
		t.Errorf("machine got %q", rec.header("/a", "Authorization"))
	}
	otherURL := strings.Replace(otherSrv.URL, "127.0.0.1", "localhost", 1)
	if _, _, err := getBody(t, c, otherURL+"/b"); err != nil {
		t.Fatal(err)
	}
	if got := other.header("/b", "Authorization"); got != "" {
		t.Errorf("default entry used for another host: %q", got)
	}
	// The same host on another port is another service: neither carol's
	// entry (its port) nor dave's (the default port) is for it.
	if _, _, err := getBody(t, c, otherSrv.URL+"/c"); err != nil {
		t.Fatal(err)
	}
	if got := other.header("/c", "Authorization"); got != "" {
		t.Errorf("credentials sent to another port of the machine: %q", got)
	}

	o.Netrc = filepath.Join(t.TempDir(), "missing")
	if _, err := NewClient(o); err == nil || !strings.Contains(err.Error(), "netrc") {
		t.Errorf("missing netrc: %v", err)
	}
}

func TestHostHeaderOverride(t *testing.T) {
	t.Parallel()
	var got atomicString
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { got.set(r.Host) })
	o := testOptions()
	o.Headers = []HostHeader{{Host: hostOf(t, s.URL), Name: "host", Value: "virtual.example"}}
	c := newTestClient(t, o)
	if _, _, err := getBody(t, c, s.URL); err != nil {
		t.Fatal(err)
	}
	if got.get() != "virtual.example" {
		t.Errorf("Host %q", got.get())
	}
}

type atomicString struct {
	mu sync.Mutex
	s  string
}

func (a *atomicString) set(s string) { a.mu.Lock(); a.s = s; a.mu.Unlock() }
func (a *atomicString) get() string  { a.mu.Lock(); defer a.mu.Unlock(); return a.s }
