package engine

import (
	"bufio"
	"context"
	"crypto/md5"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"rsx/dest/store"
	"rsx/model"
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

// changeIndexSource serves a Capability List (/cap.xml) whose Resource List
// (/rl.xml) lists nothing and whose Change List Index (/cl.xml) has parts
// parts, each a Change List of one change, closed a minute each from 2020
// but the last: an empty baseline, then an incremental plan that reads every
// part. The changes are of resources out of distinct (what the plan
// remembers of each resource changed is not what is measured here).
func changeIndexSource(t testing.TB, parts, distinct int) *httptest.Server {
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	from := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(k int) string { return model.FormatDatetime(from.Add(time.Duration(k) * time.Minute)) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bw := bufio.NewWriterSize(w, 64<<10)
		defer bw.Flush()
		base := "http://" + r.Host
		switch r.URL.Path {
		case "/cap.xml":
			fmt.Fprintf(bw, `<?xml version="1.0"?><urlset %s><rs:md capability="capabilitylist"/>`+
				`<url><loc>%s/rl.xml</loc><rs:md capability="resourcelist"/></url><url><loc>%s/cl.xml</loc><rs:md capability="changelist"/></url></urlset>`, ns, base, base)
		case "/rl.xml":
			fmt.Fprintf(bw, `<?xml version="1.0"?><urlset %s><rs:ln rel="up" href="%s/cap.xml"/><rs:md capability="resourcelist" at="%s"/></urlset>`, ns, base, at(0))
		case "/cl.xml":
			fmt.Fprintf(bw, `<?xml version="1.0"?><sitemapindex %s><rs:ln rel="up" href="%s/cap.xml"/><rs:md capability="changelist" from="%s"/>`+"\n", ns, base, at(0))
			for k := range parts {
				until := ""
				if k < parts-1 {
					until = ` until="` + at(k+1) + `"`
				}
				fmt.Fprintf(bw, "<sitemap><loc>%s/cl/%d.xml</loc><rs:md from=\"%s\"%s/></sitemap>\n", base, k, at(k), until)
			}
			fmt.Fprint(bw, "</sitemapindex>\n")
		default:
			var k int
			if _, err := fmt.Sscanf(r.URL.Path, "/r/%d", &k); err == nil {
				bw.Write(changedBody(k))
				return
			}
			if _, err := fmt.Sscanf(r.URL.Path, "/cl/%d.xml", &k); err != nil || k < 0 || k >= parts {
				http.NotFound(w, r)
				return
			}
			until := ""
			if k < parts-1 {
				until = ` until="` + at(k+1) + `"`
			}
			body := changedBody(k % distinct)
			fmt.Fprintf(bw, `<?xml version="1.0"?><urlset %s><rs:ln rel="up" href="%s/cap.xml"/><rs:ln rel="index" href="%s/cl.xml"/><rs:md capability="changelist" from="%s"%s/>`+
				`<url><loc>%s/r/%d</loc><rs:md change="updated" datetime="%s" hash="md5:%x" length="%d"/></url></urlset>`,
				ns, base, base, at(k), until, base, k%distinct, at(k), md5.Sum(body), len(body))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// changedBody is the resource /r/K of changeIndexSource.
func changedBody(k int) []byte { return fmt.Appendf(nil, "resource %d\n", k) }

// TestPlanHeapPerChangeListPart: what planning an incremental sync holds
// per part of a Change List Index, the heap once every part is read (before
// the changes are decided) for indexes of n1 and n2 parts: the plan reads
// the parts as tree walks them, keeping none of them behind (issue 34).
func TestPlanHeapPerChangeListPart(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 8,000 Change Lists")
	}
	const n1, n2 = 2000, 6000
	if os.Getenv("RSX_HEAP_PROFILE") != "" {
		defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
		runtime.MemProfileRate = 1
	}
	heap := func(n int) (uint64, Mode, int64) {
		srv := changeIndexSource(t, n, 50)
		dir := t.TempDir()
		if res := syncOnce(t, dir, testClient(t), srv.URL+"/cap.xml", PlanOptions{}); !res.OK() || res.Plan.Mode != ModeBaseline {
			t.Fatalf("the empty baseline: %s", failures(res))
		}
		st, err := store.OpenDir(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var inUse uint64
		// A few lists in memory at a time (a plan keeps thousands), so
		// that the parts measured are past them.
		s, err := Open(context.Background(), st, testClient(t), Options{Now: fixtureClock, listsInMemory: 256, listRead: func() {
			var ms runtime.MemStats
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&ms)
			inUse = ms.HeapAlloc
			if d := os.Getenv("RSX_HEAP_PROFILE"); d != "" {
				f, _ := os.Create(fmt.Sprintf("%s/heap-%d.pprof", d, n))
				pprof.WriteHeapProfile(f)
				f.Close()
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// The documents a run keeps are bounded (maxCapturedDocs): not
		// what is measured.
		s.capture.maxDocs = 10
		p, err := s.Plan(context.Background(), srv.URL+"/cap.xml", PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		return inUse, p.Mode, p.Summary.Entries
	}
	h1, m1, e1 := heap(n1)
	h2, m2, e2 := heap(n2)
	if m1 != ModeIncremental || m2 != ModeIncremental || e1 != n1 || e2 != n2 {
		t.Fatalf("plans of %s (%d changes) and %s (%d changes), want incremental ones of %d and %d", m1, e1, m2, e2, n1, n2)
	}
	per := (float64(h2) - float64(h1)) / (n2 - n1)
	t.Logf("heap after reading %d Change Lists: %.1f MB; %d: %.1f MB; %.1f bytes a part", n1, float64(h1)/1e6, n2, float64(h2)/1e6, per)
	if per > 64 {
		t.Errorf("planning holds %.1f bytes a part of the Change List Index; want at most 64", per)
	}
}
