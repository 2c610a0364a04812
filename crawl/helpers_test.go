package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/fetch"
)

// page is one response of a test site.
type page struct {
	status int // default 200
	ctype  string
	body   string
	header map[string][]string
	delay  time.Duration
}

// site is a loopback test server answering from a map of paths, which
// handlers may fill after the server is started (its URL is known then).
type site struct {
	*httptest.Server
	mu       sync.Mutex
	pages    map[string]page
	hits     map[string]int
	inFlight int
	maxIn    int
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{pages: map[string]page{}, hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// set adds a page; body may use {{base}} for the server URL.
func (s *site) set(path string, p page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.body = strings.ReplaceAll(p.body, "{{base}}", s.URL)
	for k, vs := range p.header {
		for i := range vs {
			vs[i] = strings.ReplaceAll(vs[i], "{{base}}", s.URL)
		}
		p.header[k] = vs
	}
	s.pages[path] = p
}

func (s *site) xml(path, body string) { s.set(path, page{ctype: "application/xml", body: body}) }

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p, ok := s.pages[r.URL.Path]
	s.hits[r.URL.Path]++
	s.inFlight++
	if s.inFlight > s.maxIn {
		s.maxIn = s.inFlight
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if p.delay > 0 {
		time.Sleep(p.delay)
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	for k, vs := range p.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if p.ctype != "" {
		w.Header().Set("Content-Type", p.ctype)
	}
	st := p.status
	if st == 0 {
		st = http.StatusOK
	}
	w.WriteHeader(st)
	fmt.Fprint(w, p.body)
}

func (s *site) hitCount(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// testGetter is a Getter over net/http that behaves like fetch.Client:
// redirects followed, the final URL reported, a *fetch.StatusError with
// the response for a non-2xx status. It records crawl delays.
type testGetter struct {
	mu     sync.Mutex
	delays map[string]time.Duration
	gets   []string
}

func (g *testGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	g.mu.Lock()
	g.gets = append(g.gets, url)
	g.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	r := &fetch.Response{URL: resp.Request.URL.String(), Status: resp.StatusCode, Header: resp.Header, Body: resp.Body}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return r, &fetch.StatusError{URL: url, Status: resp.StatusCode, StatusText: http.StatusText(resp.StatusCode)}
	}
	return r, nil
}

func (g *testGetter) SetCrawlDelay(host string, d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.delays == nil {
		g.delays = map[string]time.Duration{}
	}
	g.delays[host] = d
}

// Document builders.

const xmlHead = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// urlset builds a <urlset> with a document-level md (attrs as written) and
// links ("rel href" pairs), and entries.
func urlset(md string, links []string, entries ...string) string {
	return doc("urlset", md, links, entries)
}

func sitemapindex(md string, links []string, entries ...string) string {
	return doc("sitemapindex", md, links, entries)
}

func doc(root, md string, links []string, entries []string) string {
	var b strings.Builder
	b.WriteString(xmlHead)
	fmt.Fprintf(&b, `<%s xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`+"\n", root)
	fmt.Fprintf(&b, "  <rs:md %s/>\n", md)
	for _, l := range links {
		rel, href, _ := strings.Cut(l, " ")
		fmt.Fprintf(&b, "  <rs:ln rel=%q href=%q/>\n", rel, href)
	}
	child := "url"
	if root == "sitemapindex" {
		child = "sitemap"
	}
	for _, e := range entries {
		loc, md, _ := strings.Cut(e, " ")
		if md != "" {
			md = "<rs:md " + md + "/>"
		}
		fmt.Fprintf(&b, "  <%s><loc>%s</loc>%s</%s>\n", child, loc, md, child)
	}
	fmt.Fprintf(&b, "</%s>\n", root)
	return b.String()
}

func ln(rel, href string) string { return rel + " " + href }
