package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"rsx/demo"
	"rsx/fetch"
)

// The tree-walk benchmarks serve a Resource List Index of parts × 50,000
// entries from memory: every part is the same bytes, one Resource List part
// of the demo Source (loc, lastmod, md hash md5+sha-256/length/type, three
// rs:ln links per entry: about 450 bytes an entry), taken once from
// demo.Start. What is measured is then the walker, the HTTP client and the
// decoder, not the demo's generator. With gzip the part is sent compressed
// (as the demo does when asked), which adds decompression to the client.
// BENCHMARKS.md "Tree walk" has the figures and the end-to-end run against
// the demo Source.
//
//	go test ./crawl/ -run '^$' -bench Walk -benchtime 1x

func benchSource(b *testing.B, parts int, gz bool, lean int, declare bool) (srv *httptest.Server, perPart int, partBytes int64) {
	b.Helper()
	var part []byte
	if lean > 0 {
		part = leanPart(lean)
	} else {
		part = demoPart(b)
	}
	perPart = bytes.Count(part, []byte("<url>"))
	partBytes = int64(len(part))
	var zpart bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zpart, gzip.BestSpeed)
	zw.Write(part)
	zw.Close()

	var index []byte
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		if r.URL.Path == "/index.xml" {
			w.Write(index)
			return
		}
		body := part
		if gz && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			body = zpart.Bytes()
			w.Header().Set("Content-Encoding", "gzip")
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	b.Cleanup(srv.Close)

	var sb strings.Builder
	sb.WriteString(xmlHead + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` + "\n")
	fmt.Fprintf(&sb, "  <rs:ln rel=\"up\" href=\"%s/cl.xml\"/>\n", srv.URL)
	sb.WriteString("  <rs:md capability=\"resourcelist\" at=\"2026-01-05T09:00:00Z\"/>\n")
	md := `at="2026-01-05T09:00:00Z"`
	if declare {
		// As resync writes its Resource List Index: the md5 and length of
		// each part, which the walk then hashes as it streams.
		md += fmt.Sprintf(` hash="md5:%x" length="%d"`, md5.Sum(part), len(part))
	}
	for i := 1; i <= parts; i++ {
		fmt.Fprintf(&sb, "  <sitemap><loc>%s/part-%04d.xml</loc><rs:md %s/></sitemap>\n", srv.URL, i, md)
	}
	sb.WriteString("</sitemapindex>\n")
	index = []byte(sb.String())
	return srv, perPart, partBytes
}

// demoPart is one 50,000-entry Resource List part of the demo Source.
func demoPart(b *testing.B) []byte {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 100000, ListSize: 50000})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	resp, err := http.Get(d.URL + "/dataset1/resourcelist-0001.xml") // net/http asks for gzip and undoes it
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	part, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	return part
}

// leanPart is a Resource List of n entries shaped like the model's parsing
// benchmark: loc, lastmod, md hash (md5 and sha-256), length and type, about
// 270 bytes an entry, no links.
func leanPart(n int) []byte {
	var sb strings.Builder
	sb.WriteString(xmlHead + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` + "\n")
	sb.WriteString("  <rs:ln rel=\"up\" href=\"http://127.0.0.1/cl.xml\"/>\n  <rs:md capability=\"resourcelist\" at=\"2026-01-05T09:00:00Z\"/>\n")
	for i := 0; i < n; i++ {
		h := uint64(i+1) * 0x9e3779b97f4a7c15
		fmt.Fprintf(&sb, "<url><loc>http://127.0.0.1/dataset1/res/%08d.html</loc><lastmod>2026-01-0%dT0%d:%02d:00Z</lastmod>"+
			"<rs:md hash=\"md5:%016x%016x sha-256:%016x%016x%016x%016x\" length=\"%d\" type=\"text/html\"/></url>\n",
			i, 1+i%4, i%10, i%60, h, h^1, h, h^2, h^3, h^4, 1000+i%5000)
	}
	sb.WriteString("</urlset>\n")
	return []byte(sb.String())
}

// peakHeap samples the live heap while f runs and returns its maximum.
func peakHeap(f func()) uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return peak.Load()
}

// benchWalk walks parts parts of lean entries each (0: a demo part).
func benchWalk(b *testing.B, parts int, check, gz bool, lean int) {
	benchWalkDeclared(b, parts, check, gz, lean, false)
}

// benchWalkDeclared is benchWalk whose index declares the md5 and length of
// each part when declare is set.
func benchWalkDeclared(b *testing.B, parts int, check, gz bool, lean int, declare bool) {
	srv, perPart, partBytes := benchSource(b, parts, gz, lean, declare)
	client, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", PerHostRate: 0, PerHostConcurrency: 4})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	cpu0 := cpuTime()
	b.ResetTimer()
	var peak, retained uint64
	for i := 0; i < b.N; i++ {
		g := NewGraph(client, GraphOptions{})
		var root *Node
		p := peakHeap(func() {
			root, err = g.Walk(context.Background(), srv.URL+"/index.xml", WalkOptions{Depth: Unlimited, Check: check})
		})
		if err != nil {
			b.Fatal(err)
		}
		if len(root.Children) != parts || root.Children[parts-1].EntryCount != perPart || root.Children[0].Err != nil {
			b.Fatalf("walk incomplete: %d parts", len(root.Children))
		}
		if c := root.Children[0].Content; declare && (c == nil || c.Length != partBytes) {
			b.Fatalf("part not measured: %+v", c)
		}
		peak = max(peak, p)
		// What the walk keeps: the tree (headers, down links, exchanges)
		// with everything else collected.
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		retained = max(retained, ms.HeapAlloc)
		runtime.KeepAlive(root)
		runtime.KeepAlive(g)
	}
	b.StopTimer()
	secs := b.Elapsed().Seconds() / float64(b.N)
	cpu := (cpuTime() - cpu0).Seconds() / float64(b.N)
	b.ReportMetric(float64(parts*perPart)/secs, "entries/s")
	b.ReportMetric(float64(parts*perPart)/cpu, "entries/cpu-s")
	b.ReportMetric(float64(parts+1)/secs, "docs/s")
	b.ReportMetric(float64(int64(parts)*partBytes)/secs/1e6, "MB/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(retained)/(1<<20), "retained-MiB")
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkWalk20Parts(b *testing.B)         { benchWalk(b, 20, false, false, 0) }
func BenchmarkWalk200Parts(b *testing.B)        { benchWalk(b, 200, false, false, 0) }
func BenchmarkWalk200PartsGzip(b *testing.B)    { benchWalk(b, 200, false, true, 0) }
func BenchmarkWalk200PartsLean(b *testing.B)    { benchWalk(b, 200, false, false, 50000) }
func BenchmarkWalk20PartsChecked(b *testing.B)  { benchWalk(b, 20, true, false, 0) }
func BenchmarkWalk200PartsChecked(b *testing.B) { benchWalk(b, 200, true, false, 0) }

// BenchmarkWalk200PartsMD5 is BenchmarkWalk200Parts whose index declares
// each part's md5 and length, as resync's does: the cost of hashing.
func BenchmarkWalk200PartsMD5(b *testing.B) { benchWalkDeclared(b, 200, false, false, 0, true) }

// BenchmarkWalk5000SmallParts measures the cost per document: 5,000 parts
// of 100 lean entries.
func BenchmarkWalk5000SmallParts(b *testing.B) { benchWalk(b, 5000, false, false, 100) }
