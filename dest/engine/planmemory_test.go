package engine

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// TestPlanHeapPerResource: what planning a baseline holds per resource, the
// heap after the Resource List is read (before the deletions and collisions
// are decided, where it peaks) of a plan of n1 and of n2 new resources:
// the plan's items are in a file, and so must be what it remembers of each
// URI and path (issue 23); both plans are past the bounds at which they
// move to files. Before, a set of the new URIs' hashes and the
// keys of their paths took about 50 bytes a resource.
func TestPlanHeapPerResource(t *testing.T) {
	if raceEnabled {
		t.Skip("a heap budget: the race detector's shadow memory counts in it")
	}
	if testing.Short() {
		t.Skip("plans 400,000 resources")
	}
	const n1, n2 = 100_000, 300_000
	heap := func(n int) (uint64, Summary) {
		// An index of parts of 10,000 entries each, so that no response
		// takes long on a loaded machine.
		const perPart = 10_000
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			bw := bufio.NewWriterSize(w, 64<<10)
			defer bw.Flush()
			const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
			if r.URL.Path == "/rl.xml" {
				fmt.Fprintf(bw, `<?xml version="1.0"?><sitemapindex %s><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/>`+"\n", ns)
				for k := 0; k*perPart < n; k++ {
					fmt.Fprintf(bw, "<sitemap><loc>http://%s/rl/%d.xml</loc></sitemap>\n", r.Host, k)
				}
				fmt.Fprint(bw, "</sitemapindex>\n")
				return
			}
			var part int
			if _, err := fmt.Sscanf(r.URL.Path, "/rl/%d.xml", &part); err != nil {
				http.NotFound(w, r)
				return
			}
			fmt.Fprintf(bw, `<?xml version="1.0"?><urlset %s><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/>`+"\n", ns)
			for k := part * perPart; k < min(n, (part+1)*perPart); k++ {
				// Each in a folder of its own, as many sites lay them out.
				fmt.Fprintf(bw, "<url><loc>http://%s/record/%d/file</loc><rs:md hash=\"md5:%032x\" length=\"%d\"/></url>\n", r.Host, k, k, 1000+k%1000)
			}
			fmt.Fprint(bw, "</urlset>\n")
		}))
		defer srv.Close()
		var inUse uint64
		s := openSession(t, t.TempDir(), testClient(t), Options{listRead: func() {
			var ms runtime.MemStats
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&ms)
			inUse = ms.HeapAlloc
		}})
		p, err := s.Plan(context.Background(), srv.URL+"/rl.xml", PlanOptions{Mode: ModeBaseline})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		return inUse, p.Summary
	}
	h1, s1 := heap(n1)
	h2, s2 := heap(n2)
	if s1.Create != n1 || s2.Create != n2 {
		t.Fatalf("plans of %d and %d creates, want %d and %d", s1.Create, s2.Create, n1, n2)
	}
	per := (float64(h2) - float64(h1)) / (n2 - n1)
	t.Logf("heap after reading %d resources: %.1f MB; %d: %.1f MB; %.1f bytes a resource", n1, float64(h1)/1e6, n2, float64(h2)/1e6, per)
	// A byte a URI stays in memory (the Bloom filter of internal/keyset).
	if per > 6 {
		t.Errorf("planning holds %.1f bytes a resource; want at most 6", per)
	}
}
