package engine

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
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
// of 500), rounds of three syncs: a full baseline into an empty folder,
// then two reconciles of the intact copy it made: `rsx sync --mode
// baseline` again (each file's length checked) and with --checksum (each
// file read and hashed). Each opens its own session, as a new `rsx sync`
// would. One op is one round; each sync's wall time (baseline-ns, …) and
// this process's CPU time (baseline-cpu-ns, …: the in-process Source's
// included) are reported per op, the reconciles' over the baseline's of
// the same round (reconcile/baseline, checksum/baseline: on a loaded
// machine the load of the moment cancels out), and the resources GET from
// the Source (fetched-…): a reconcile of an intact copy must fetch none,
// or the benchmark fails. BENCHMARKS.md, "Reconcile". Opt-in, like the
// other large sync measurements (RSX_RECONCILE_RESOURCES=N for a smaller
// demo; RSX_RECONCILE_PROFILE=FILE writes a CPU profile of the reconciles
// without --checksum alone):
//
//	RSX_SPEED=1 go test ./dest/engine/ -run '^$' -bench Reconcile100k -benchtime 1x -count 3 -timeout 90m
func BenchmarkReconcile100k(b *testing.B) {
	if os.Getenv("RSX_SPEED") == "" {
		b.Skip("set RSX_SPEED=1 to measure a baseline and reconciles of 80,008 resources (minutes, and 80,008 files on disk)")
	}
	resources := 100000
	if v := os.Getenv("RSX_RECONCILE_RESOURCES"); v != "" {
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
	type phase struct {
		name          string
		opts          PlanOptions
		wall, cpu     time.Duration
		fetched, hash int64
	}
	phases := []*phase{
		{name: "baseline"},
		{name: "reconcile", opts: PlanOptions{Mode: ModeBaseline}},
		{name: "checksum", opts: PlanOptions{Checksum: true}},
	}
	var ratio [3]float64 // per round, summed
	var prof *os.File
	if name := os.Getenv("RSX_RECONCILE_PROFILE"); name != "" {
		if prof, err = os.Create(name); err != nil {
			b.Fatal(err)
		}
		defer prof.Close()
	}
	for range b.N {
		dir := filepath.Join(b.TempDir(), "copy")
		total := 0
		var wall [3]time.Duration
		for k, ph := range phases {
			profile := prof != nil && k == 1
			if profile {
				if err := pprof.StartCPUProfile(prof); err != nil {
					b.Fatal(err)
				}
			}
			fetched, cpu0, t0 := cnt.n.Load(), processCPU(), time.Now()
			res := syncOnce(b, dir, c, target, ph.opts)
			wall[k] = time.Since(t0)
			if profile {
				pprof.StopCPUProfile()
				prof = nil // the first round's
			}
			ph.wall += wall[k]
			ph.cpu += processCPU() - cpu0
			n := cnt.n.Load() - fetched
			ph.fetched += n
			s := res.Plan.Summary
			ph.hash += int64(s.Hashed)
			if k == 0 {
				if !res.OK() || res.Plan.Mode != ModeBaseline || res.Plan.Reconcile || res.Created < resources*4/5 || int64(res.Created) != n {
					b.Fatalf("baseline: mode %s, reconcile %v, created %d of %d, fetched %d: %s", res.Plan.Mode, res.Plan.Reconcile, res.Created, s.Create, n, failures(res))
				}
				total = res.Created
				continue
			}
			if !res.OK() || !res.Plan.Reconcile || s.Checked != total || s.Unchanged != total || res.Created+res.Updated+res.Deleted != 0 {
				b.Fatalf("%s: reconcile %v, checked %d, unchanged %d of %d, created %d, updated %d, deleted %d: %s",
					ph.name, res.Plan.Reconcile, s.Checked, s.Unchanged, total, res.Created, res.Updated, res.Deleted, failures(res))
			}
			if n != 0 {
				b.Fatalf("%s of an intact copy fetched %d resources", ph.name, n)
			}
			if ph.opts.Checksum && s.Hashed != total {
				b.Fatalf("%s hashed %d files of %d", ph.name, s.Hashed, total)
			}
			ratio[k] += float64(wall[k]) / float64(wall[0])
		}
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
	per := func(x float64) float64 { return x / float64(b.N) }
	for _, ph := range phases {
		b.ReportMetric(per(float64(ph.wall)), ph.name+"-ns")
		b.ReportMetric(per(float64(ph.cpu)), ph.name+"-cpu-ns")
		b.ReportMetric(per(float64(ph.fetched)), "fetched-"+ph.name)
	}
	b.ReportMetric(per(float64(phases[2].hash)), "hashed-checksum")
	b.ReportMetric(per(ratio[1]), "reconcile/baseline")
	b.ReportMetric(per(ratio[2]), "checksum/baseline")
}

// processCPU is the CPU time this process has used (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
