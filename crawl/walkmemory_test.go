package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"rsx/fetch"
)

// partsSource serves a Change List Index (/cl.xml) of parts one-entry Change
// Lists, with the headers a real server sends.
func partsSource(t *testing.T, parts int) *httptest.Server {
	return partsSourceWith(t, parts, false)
}

// partsSourceWith is partsSource; with closed, the parts are closed and
// follow each other (the index has no problem), else all are open from the
// same instant.
func partsSourceWith(t *testing.T, parts int, closed bool) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
		w.Header().Set("Content-Type", "application/xml")
		w.Header().Set("Last-Modified", "Mon, 05 Jan 2026 09:00:00 GMT")
		w.Header().Set("ETag", `"a-fairly-long-entity-tag-as-servers-send-them-0123456789"`)
		if r.URL.Path == "/cl.xml" {
			var b strings.Builder
			b.WriteString(`<?xml version="1.0"?><sitemapindex ` + ns + `><rs:md capability="changelist" from="2030-01-01T00:00:00Z"/>`)
			for k := range parts {
				fmt.Fprintf(&b, "<sitemap><loc>%s/cl/%d.xml</loc><rs:md %s/></sitemap>\n", srv.URL, k, partInterval(k, closed))
			}
			b.WriteString("</sitemapindex>")
			w.Write([]byte(b.String()))
			return
		}
		k, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/cl/"), ".xml"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<?xml version="1.0"?><urlset %s><rs:ln rel="index" href="%s/cl.xml"/><rs:md capability="changelist" %s/>`+
			`<url><loc>%s/r/%d</loc><rs:md change="updated" datetime="2030-01-01T00:00:00Z"/></url></urlset>`, ns, srv.URL, partInterval(k, closed), srv.URL, k)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// partInterval is the from and until of part k.
func partInterval(k int, closed bool) string {
	if !closed {
		return `from="2030-01-01T00:00:00Z"`
	}
	at := func(k int) string {
		return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(k) * time.Hour).Format(time.RFC3339)
	}
	return fmt.Sprintf(`from="%s" until="%s"`, at(k), at(k+1))
}

// heapAlloc is the heap in use after a collection.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestWalkMemoryPerPart walks a Change List Index of 5,000 one-entry parts
// through fetch's client, as rsx tree --depth 1 does, and bounds the heap the
// walked tree keeps per part (issue 23). The HTTP record of each fetch (its
// request and response headers) was kept with every document, about 1 KB a
// part; a walk has no use for it.
func TestWalkMemoryPerPart(t *testing.T) {
	if raceEnabled {
		t.Skip("a heap budget: the race detector's shadow memory counts in it")
	}
	const parts = 5000
	srv := partsSource(t, parts)
	opts := fetch.DefaultOptions()
	opts.NoCache, opts.PerHostRate = true, 0
	client, err := fetch.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	before := heapAlloc()
	g := NewGraph(client, GraphOptions{})
	root, err := g.Walk(context.Background(), srv.URL+"/cl.xml", WalkOptions{Depth: 1, Check: true})
	if err != nil || len(root.Children) != parts {
		t.Fatalf("walk: %v, %d children", err, len(root.Children))
	}
	per := float64(heapAlloc()-before) / parts
	runtime.KeepAlive(root)
	runtime.KeepAlive(g)
	t.Logf("%.0f bytes kept per part", per)
	for _, c := range root.Children {
		if c.Exchange != nil {
			t.Fatal("a walked document keeps its HTTP exchange")
		}
	}
	if per > 4000 {
		t.Errorf("the walked tree keeps %.0f bytes per part; at most 4,000", per)
	}
}

// TestWalkDepthZeroKeepsNoDownLinks: rsx tree --depth 0 of an index keeps the
// number of its parts, not a DownLink of half a kilobyte for each (issue 23:
// 1.8 GB of RSS for an index of a million parts); the tree still says how
// many were not loaded.
func TestWalkDepthZeroKeepsNoDownLinks(t *testing.T) {
	if raceEnabled {
		t.Skip("a heap budget: the race detector's shadow memory counts in it")
	}
	const parts = 50000
	srv := partsSource(t, parts)
	before := heapAlloc()
	g := NewGraph(&testGetter{}, GraphOptions{})
	root, err := g.Walk(context.Background(), srv.URL+"/cl.xml", WalkOptions{Depth: 0, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	per := float64(heapAlloc()-before) / parts
	runtime.KeepAlive(g)
	if root.Down != nil || root.DownCount != parts || !root.Unexpanded {
		t.Fatalf("%d down links kept, DownCount %d, unexpanded %v", len(root.Down), root.DownCount, root.Unexpanded)
	}
	if _, unexpanded := root.Bounds(); unexpanded != parts {
		t.Errorf("Bounds: %d not loaded, want %d", unexpanded, parts)
	}
	t.Logf("%.0f bytes kept per part", per)
	if per > 64 {
		t.Errorf("a depth-0 walk keeps %.0f bytes per part of the index; at most 64", per)
	}
	// Load (the explorer, sync's resolution) still gets the links, also
	// after the walk cached the document without them.
	d, err := g.Load(context.Background(), srv.URL+"/cl.xml")
	if err != nil || len(d.Down) != parts || d.DownCount != parts {
		t.Errorf("Load after the walk: %d down links, %v", len(d.Down), err)
	}
}
