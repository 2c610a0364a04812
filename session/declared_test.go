package session

import (
	"context"
	"crypto/md5"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rsx/crawl"
	"rsx/fetch"
)

// The explorer's cross-document check of an index hashes the parts as they
// are loaded and names the entry whose declared md5 the part does not have.
func TestCrossCheckComparesDeclaredDigests(t *testing.T) {
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	part := func(n int) string {
		return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?><urlset %s><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/><url><loc>http://example.com/r%d</loc></url></urlset>`, ns, n)
	}
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/index.xml":
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><sitemapindex %s><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`, ns)
			fmt.Fprintf(w, `<sitemap><loc>%s/p0.xml</loc><rs:md hash="md5:%x"/></sitemap>`, srv.URL, md5.Sum([]byte(part(0))))
			fmt.Fprintf(w, `<sitemap><loc>%s/p1.xml</loc><rs:md hash="md5:%x"/></sitemap>`, srv.URL, md5.Sum([]byte(part(0))))
			fmt.Fprint(w, `</sitemapindex>`)
		case "/p0.xml":
			fmt.Fprint(w, part(0))
		case "/p1.xml":
			fmt.Fprint(w, part(1))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-"})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := New(c, Options{}).CrossCheck(context.Background(), srv.URL+"/index.xml", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range ps {
		if p.Rule == crawl.RuleDocumentDeclaredMismatch {
			n++
			if p.Entry != 1 || !strings.Contains(p.Message, "/p1.xml") {
				t.Errorf("problem %+v, want it on entry 1 (p1.xml)", p)
			}
		}
	}
	if n != 1 {
		t.Errorf("problems %v, want one %s", ps, crawl.RuleDocumentDeclaredMismatch)
	}
}
