package engine

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rsx/demo"
	"rsx/fetch"
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

// BenchmarkReconcile100k measures, in one run against the demo Source with
// 100,000 resources (its dataset1: 80,008 of them, in Resource List parts
// of 500), a full baseline into an empty folder and two reconciles of the
// intact copy it made: `rsx sync --mode baseline` again (each file's
// length checked) and with --checksum (each file read and hashed). Each
// opens its own session, as a new `rsx sync` would. fetched/op counts the
// resources GET from the Source; a reconcile of an intact copy must fetch
// none, or the benchmark fails. x-baseline is a reconcile's time over the
// baseline's in the same run (BENCHMARKS.md, "Reconcile"). Opt-in, like
// the other large sync measurements (RSX_RECONCILE_RESOURCES=N for a
// smaller demo):
//
//	RSX_SPEED=1 go test ./dest/engine/ -run '^$' -bench Reconcile100k -benchtime 1x -count 3 -timeout 60m
func BenchmarkReconcile100k(b *testing.B) {
	if os.Getenv("RSX_SPEED") == "" {
		b.Skip("set RSX_SPEED=1 to measure a baseline and reconciles of 80,008 resources (minutes, and 80,008 files on disk)")
	}
	resources := 100000
	if v := os.Getenv("RSX_RECONCILE_RESOURCES"); v != "" { // a smaller run, to try the benchmark
		resources, _ = strconv.Atoi(v)
	}
	srv := startDemo(b, demo.Options{Resources: resources})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	cnt := &resourceGets{rt: http.DefaultTransport.(*http.Transport).Clone(), prefix: "/dataset1/res/"}
	o := testClientOptions()
	o.Transport = cnt
	c, err := fetch.NewClient(o)
	if err != nil {
		b.Fatal(err)
	}
	copyDir := filepath.Join(b.TempDir(), "copy")
	total := 0                 // resources in the copy
	var baseline time.Duration // one baseline, this run

	fullBaseline := func(b *testing.B) {
		b.Helper()
		os.RemoveAll(copyDir)
		res := syncOnce(b, copyDir, c, target, PlanOptions{})
		if !res.OK() || res.Plan.Mode != ModeBaseline || res.Created < resources*4/5 || res.Created != res.Plan.Summary.Create {
			b.Fatalf("baseline: mode %s, created %d of %d: %s", res.Plan.Mode, res.Created, res.Plan.Summary.Create, failures(res))
		}
		total = res.Created
	}
	b.Run("baseline", func(b *testing.B) {
		fetched := cnt.n.Load()
		for i := range b.N {
			if i > 0 {
				b.StopTimer()
				os.RemoveAll(copyDir)
				b.StartTimer()
			}
			fullBaseline(b)
		}
		baseline = b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(float64(cnt.n.Load()-fetched)/float64(b.N), "fetched/op")
		b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "resources/s")
	})
	reconcile := func(name string, po PlanOptions) {
		b.Run(name, func(b *testing.B) {
			if total == 0 {
				b.StopTimer()
				fullBaseline(b) // the baseline was not run (-bench filtered it out): the copy, untimed
				b.StartTimer()
			}
			fetched := cnt.n.Load()
			hashed := 0
			for range b.N {
				res := syncOnce(b, copyDir, c, target, po)
				s := res.Plan.Summary
				if !res.OK() || !res.Plan.Reconcile || s.Checked != total || s.Unchanged != total || res.Created+res.Updated+res.Deleted != 0 {
					b.Fatalf("%s: reconcile %v, checked %d, unchanged %d of %d, created %d, updated %d, deleted %d: %s",
						name, res.Plan.Reconcile, s.Checked, s.Unchanged, total, res.Created, res.Updated, res.Deleted, failures(res))
				}
				if po.Checksum && s.Hashed != total {
					b.Fatalf("%s hashed %d files of %d", name, s.Hashed, total)
				}
				hashed += s.Hashed
			}
			n := cnt.n.Load() - fetched
			if n != 0 {
				b.Fatalf("%s of an intact copy fetched %d resources", name, n)
			}
			b.ReportMetric(float64(n)/float64(b.N), "fetched/op")
			b.ReportMetric(float64(hashed)/float64(b.N), "hashed/op")
			b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "resources/s")
			if baseline > 0 {
				b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(baseline), "x-baseline")
			}
		})
	}
	reconcile("reconcile", PlanOptions{Mode: ModeBaseline})
	reconcile("checksum", PlanOptions{Checksum: true})
}

// resourceGets counts the requests whose path begins with prefix.
type resourceGets struct {
	rt     http.RoundTripper
	prefix string
	n      atomic.Int64
}

func (c *resourceGets) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasPrefix(r.URL.Path, c.prefix) {
		c.n.Add(1)
	}
	return c.rt.RoundTrip(r)
}
