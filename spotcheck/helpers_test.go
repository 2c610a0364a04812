package spotcheck

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/fetch"
)

// testSource is a loopback Source of handwritten documents and resources;
// it counts the requests for each path.
type testSource struct {
	*httptest.Server
	mu       sync.Mutex
	routes   map[string]http.HandlerFunc
	prefixes map[string]http.HandlerFunc
	hits     map[string]int
}

func newTestSource(t *testing.T) *testSource {
	t.Helper()
	s := &testSource{routes: map[string]http.HandlerFunc{}, prefixes: map[string]http.HandlerFunc{}, hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		h := s.routes[r.URL.Path]
		for p, ph := range s.prefixes {
			if h == nil && strings.HasPrefix(r.URL.Path, p) {
				h = ph
			}
		}
		s.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *testSource) handle(path string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[path] = h
}

// handlePrefix serves every path under prefix that has no route of its own.
func (s *testSource) handlePrefix(prefix string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prefixes[prefix] = h
}

// doc serves an XML document; {{base}} in it is the server's URL.
func (s *testSource) doc(path, body string) {
	body = strings.ReplaceAll(body, "{{base}}", s.URL)
	s.handle(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		io.WriteString(w, body)
	})
}

// lastModified is what every resource of a testSource says it was last modified.
const lastModified = "Wed, 02 Jan 2013 13:00:00 GMT"

// resource serves body as ctype.
func (s *testSource) resource(path, body, ctype string) {
	s.handle(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Last-Modified", lastModified)
		io.WriteString(w, body)
	})
}

// requested returns the paths under prefix that were requested, sorted.
func (s *testSource) requested(prefix string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for p := range s.hits {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func (s *testSource) resetHits() {
	s.mu.Lock()
	s.hits = map[string]int{}
	s.mu.Unlock()
}

const (
	xmlHead = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	nsAttrs = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
)

// urlset is a document of capability with an at (none when "") and entries.
func urlset(capability, at string, entries ...string) string {
	md := `<rs:md capability="` + capability + `"`
	if at != "" {
		md += ` at="` + at + `"`
	}
	return xmlHead + `<urlset ` + nsAttrs + `>` + md + `/>` + strings.Join(entries, "") + `</urlset>`
}

// index is a <sitemapindex> of capability listing locs.
func index(capability, at string, locs ...string) string {
	var b strings.Builder
	b.WriteString(xmlHead + `<sitemapindex ` + nsAttrs + `><rs:md capability="` + capability + `" at="` + at + `"/>`)
	for _, l := range locs {
		b.WriteString(`<sitemap><loc>` + l + `</loc></sitemap>`)
	}
	b.WriteString(`</sitemapindex>`)
	return b.String()
}

// entry is a <url> with loc, the attributes of its rs:md, and extra
// elements (rs:ln).
func entry(loc, md string, extra ...string) string {
	return `<url><loc>` + loc + `</loc><rs:md ` + md + `/>` + strings.Join(extra, "") + `</url>`
}

// declares are rs:md attributes that hold for body of type ctype.
func declares(body, ctype string) string {
	m, h := md5.Sum([]byte(body)), sha256.Sum256([]byte(body))
	return fmt.Sprintf(`hash="md5:%s sha-256:%s" length="%d" type="%s"`, hex.EncodeToString(m[:]), hex.EncodeToString(h[:]), len(body), ctype)
}

// testClient fetches without a cache, politeness aside.
func testClient(t *testing.T) *fetch.Client {
	t.Helper()
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", PerHostRate: 0, PerHostConcurrency: 8,
		Retries: 2, RetryWait: 10 * time.Millisecond, IdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runAudit audits url with o and fails the test if the audit cannot run.
func runAudit(t *testing.T, url string, o Options) *Report {
	t.Helper()
	rep, err := New(testClient(t), o).Run(context.Background(), url)
	if err != nil {
		t.Fatalf("audit %s: %v", url, err)
	}
	return rep
}

// findings lists findings as "path field" (mirror findings as
// "path>mirrorpath field"), relative to base, sorted.
func findings(base string, fs []Finding) []string {
	var out []string
	for _, f := range fs {
		k := strings.TrimPrefix(f.URL, base)
		if f.Mirror != "" {
			k += ">" + strings.TrimPrefix(f.Mirror, base)
		}
		out = append(out, k+" "+f.Field)
	}
	sort.Strings(out)
	return out
}

func unchecked(base string, us []Unchecked) []string {
	var out []string
	for _, u := range us {
		k := strings.TrimPrefix(u.URL, base)
		if u.Mirror != "" {
			k += ">" + strings.TrimPrefix(u.Mirror, base)
		}
		out = append(out, k+" "+u.Field)
	}
	sort.Strings(out)
	return out
}
