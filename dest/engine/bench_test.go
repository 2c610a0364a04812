package engine

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"

	"rsx/demo"
)

// BenchmarkBaseline syncs the demo's dataset1 (8,008 small resources with
// --resources 10000) into a fresh folder, beside the yardstick of
// BENCHMARKS.md: 8 keep-alive workers that GET each resource, write it to a
// temporary file, fsync and rename it (scripts/minsync as a function). Both
// run in this process with the demo Source; scripts/bench-sync measures
// whole processes.
func BenchmarkBaseline(b *testing.B) {
	srv := startDemo(b, demo.Options{Resources: 10000})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	b.Run("engine", func(b *testing.B) {
		for range b.N {
			dir := b.TempDir()
			res := syncOnce(b, dir, testClient(b), target, PlanOptions{})
			if !res.OK() || res.Created != 8008 {
				b.Fatalf("created %d: %s", res.Created, failures(res))
			}
			b.ReportMetric(float64(res.Created)/res.Elapsed.Seconds(), "resources/s")
		}
	})
	b.Run("yardstick", func(b *testing.B) {
		for range b.N {
			dir := b.TempDir()
			n := minimalBaseline(b, srv.URL+"/dataset1/resourcelist.xml", dir)
			if n != 8008 {
				b.Fatalf("fetched %d", n)
			}
		}
	})
}

var locPattern = regexp.MustCompile(`<loc>([^<]+)</loc>`)

// minimalBaseline is the yardstick: the least a correct baseline does.
func minimalBaseline(b *testing.B, list, dir string) int {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	get := func(u string) []byte {
		resp, err := c.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return body
	}
	var urls []string
	for _, m := range locPattern.FindAllSubmatch(get(list), -1) {
		for _, r := range locPattern.FindAllSubmatch(get(string(m[1])), -1) {
			urls = append(urls, string(r[1]))
		}
	}
	jobs := make(chan string)
	var wg sync.WaitGroup
	var n atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range jobs {
				resp, err := c.Get(u)
				if err != nil {
					b.Error(err)
					continue
				}
				pu, _ := url.Parse(u)
				final := filepath.Join(dir, pu.Host, filepath.FromSlash(pu.Path))
				os.MkdirAll(filepath.Dir(final), 0o755)
				n.Add(1)
				f, _ := os.CreateTemp(filepath.Dir(final), ".tmp")
				io.Copy(f, resp.Body)
				resp.Body.Close()
				f.Sync()
				f.Close()
				os.Rename(f.Name(), final)
			}
		}()
	}
	for _, u := range urls {
		jobs <- u
	}
	close(jobs)
	wg.Wait()
	return int(n.Load())
}
