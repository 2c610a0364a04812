package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestResourceListIndexPartsStream: the parts of a Resource List Index are
// read while the index streams in, not once it has been read to its end
// into a list of every part (issue 23: an index of a million parts held
// them all in memory). The server holds back the end of the index until the
// first part has been asked for, and gives up waiting after 3 s.
func TestResourceListIndexPartsStream(t *testing.T) {
	const parts = 20
	firstAsked := make(chan struct{})
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := srv.URL
		w.Header().Set("Content-Type", "application/xml")
		const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
		switch {
		case r.URL.Path == "/cap.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset %s><rs:md capability="capabilitylist"/><url><loc>%s/rli.xml</loc><rs:md capability="resourcelist"/></url></urlset>`, ns, base)
		case r.URL.Path == "/rli.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><sitemapindex %s><rs:ln rel="up" href="%s/cap.xml"/><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/>`+"\n", ns, base)
			for k := range parts {
				fmt.Fprintf(w, "<sitemap><loc>%s/rl/%d.xml</loc></sitemap>\n", base, k)
				if k == parts/2 {
					// Past the decoder's first read: what follows comes only
					// once the first part was asked for.
					fmt.Fprintf(w, "<!-- %s -->\n", strings.Repeat("x", 256<<10))
					w.(http.Flusher).Flush()
					select {
					case <-firstAsked:
					case <-time.After(3 * time.Second):
						t.Errorf("no part asked for before the index ended")
					case <-r.Context().Done():
						return
					}
				}
			}
			fmt.Fprint(w, "</sitemapindex>\n")
		case strings.HasPrefix(r.URL.Path, "/rl/"):
			select {
			case <-firstAsked:
			default:
				close(firstAsked)
			}
			var k int
			fmt.Sscanf(r.URL.Path, "/rl/%d.xml", &k)
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset %s><rs:ln rel="up" href="%s/cap.xml"/><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/>`+
				`<url><loc>%s/r/%d</loc><rs:md length="3"/></url></urlset>`, ns, base, base, k)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	s := openSession(t, t.TempDir(), testClient(t), Options{})
	p, err := s.Plan(context.Background(), srv.URL+"/cap.xml", PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Summary.Create != parts || len(p.Problems) != 0 {
		t.Errorf("plan: %+v, problems %v", p.Summary, p.Problems)
	}
}
