package engine

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/dest/pathmap"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/model"
)

// The changes of each Change List of BenchmarkIncremental: updates of
// resources of the copy (spread over all of it), new resources, and
// deletions of resources the list before created (of the copy's own for
// the first list).
const (
	incrUpdates = 3500
	incrCreates = 1000
	incrDeletes = 500
	incrChanges = incrUpdates + incrCreates + incrDeletes
)

// BenchmarkIncremental measures incremental runs of 5,000 changes against
// copies of 8,000 and 100,000 resources (and 1,000,000 with RSX_SPEED=1,
// or the sizes of RSX_INCREMENTAL_ROWS=N,M,…): the cost of a run should
// follow its changes, not the size of the copy (issue 27). The copy's
// state is written first, through state.Writer (its files are not on
// disk: an update writes its file anew, a deletion of a missing file is
// nothing to do); a Source in this process (httptest) then serves one
// more closed Change List for each op: 3,500 updates of resources spread
// over the whole copy, 1,000 new resources and 500 deletions, with md5
// and length declared. One op is one incremental `rsx sync` of that list
// in a session of its own, plan and run, as a new process would. Reported
// per op: changes/s (of the whole sync), the plan's wall time and the
// process's CPU time (the Source's share included). BENCHMARKS.md, "Incremental
// runs against the copy's size":
//
//	go test ./dest/engine/ -run '^$' -bench Incremental -benchtime 3x -count 2
//	RSX_SPEED=1 go test ./dest/engine/ -run '^$' -bench Incremental -benchtime 3x -timeout 60m
//
// RSX_INCREMENTAL_PROFILE=PREFIX writes a CPU profile of each size's ops
// to PREFIX-ROWS.
func BenchmarkIncremental(b *testing.B) {
	sizes := []int{8000, 100000}
	if os.Getenv("RSX_SPEED") != "" {
		sizes = append(sizes, 1000000)
	}
	if v := os.Getenv("RSX_INCREMENTAL_ROWS"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < incrUpdates+incrDeletes {
				b.Fatalf("RSX_INCREMENTAL_ROWS: %q is not a number of rows of at least %d", f, incrUpdates+incrDeletes)
			}
			sizes = append(sizes, n)
		}
	}
	top := b
	for _, rows := range sizes {
		// The copy is made once for the size: testing runs a
		// sub-benchmark's function more than once (b.N 1, then as asked),
		// and each run syncs the lists published after the last.
		var src *incrSource
		var dir string
		b.Run(fmt.Sprintf("rows-%d", rows), func(b *testing.B) {
			if src == nil {
				src = newIncrSource(top, rows)
				dir = filepath.Join(top.TempDir(), "copy")
				t0 := time.Now()
				src.buildState(b, dir)
				b.Logf("state of %d resources written in %v", rows, time.Since(t0).Round(time.Millisecond))
			}
			if prefix := os.Getenv("RSX_INCREMENTAL_PROFILE"); prefix != "" {
				stop := startProfile(b, fmt.Sprintf("%s-%d", prefix, rows))
				defer stop()
			}
			c := testClient(b)
			var elapsed, planned, cpu time.Duration
			b.ResetTimer()
			for range b.N {
				src.publishNext()
				t0, cpu0 := time.Now(), processCPU()
				res, planTime := incrSync(b, dir, c, src.url("/cap.xml"))
				elapsed += time.Since(t0)
				cpu += processCPU() - cpu0
				planned += planTime
				s := res.Plan.Summary
				if !res.OK() || res.Plan.Mode != ModeIncremental || s.Create+s.Update+s.Delete != incrChanges || res.Created+res.Updated+res.Deleted != incrChanges {
					b.Fatalf("mode %s: planned %d creates, %d updates, %d deletions; did %d, %d, %d (of %d changes): %s",
						res.Plan.Mode, s.Create, s.Update, s.Delete, res.Created, res.Updated, res.Deleted, incrChanges, failures(res))
				}
			}
			b.ReportMetric(float64(b.N*incrChanges)/elapsed.Seconds(), "changes/s")
			b.ReportMetric(float64(planned)/float64(b.N), "plan-ns/op")
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// incrSync is one incremental sync (deletions applied) in a session of its
// own, and the time its plan took.
func incrSync(b testing.TB, dir string, c Client, target string) (*Result, time.Duration) {
	ctx := context.Background()
	st, err := store.OpenDir(dir, store.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	t0 := time.Now()
	s, err := Open(ctx, st, c, Options{Now: fixtureClock})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	p, err := s.Plan(ctx, target, PlanOptions{Delete: true})
	if err != nil {
		b.Fatalf("plan %s: %v", target, err)
	}
	planTime := time.Since(t0)
	defer p.Close()
	res, err := s.Run(ctx, p)
	if err != nil {
		b.Fatalf("run %s: %v", target, err)
	}
	return res, planTime
}

// incrSource is the Source of BenchmarkIncremental: a Capability List, a
// Change List Index of the lists published so far, each list, and the
// resources.
type incrSource struct {
	srv  *httptest.Server
	rows int
	// changes of each list: updates of the copy's resources, new
	// resources, deletions
	updates, creates, deletes int
	from                      time.Time // the copy's baseline; list k covers [from+k h, from+(k+1) h)
	m                         *pathmap.Mapper

	mu      sync.Mutex
	lists   [][]byte       // the Change Lists published
	version map[string]int // resource path → the list that last changed it (-1: the copy's)
}

func newIncrSource(b testing.TB, rows int) *incrSource {
	m, err := pathmap.New(pathmap.Options{AllowOtherHosts: true})
	if err != nil {
		b.Fatal(err)
	}
	s := &incrSource{rows: rows, updates: incrUpdates, creates: incrCreates, deletes: incrDeletes, from: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), m: m, version: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	b.Cleanup(s.srv.Close)
	return s
}

func (s *incrSource) url(p string) string { return s.srv.URL + p }

// original is the URI of the copy's resource at position p of a
// permutation of the copy (so that a list's updates fall all over it).
func (s *incrSource) original(p int) string {
	i := (p*7919 + 13) % s.rows
	return s.url(fmt.Sprintf("/r/%07d", i))
}

// body is the content of a resource as the list v made it.
func incrBody(path string, v int) []byte {
	line := fmt.Sprintf("%s version %d\n", path, v)
	return []byte(strings.Repeat(line, 1000/len(line)+1)[:1000])
}

func (s *incrSource) serve(w http.ResponseWriter, r *http.Request) {
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	s.mu.Lock()
	defer s.mu.Unlock()
	p := r.URL.Path
	switch {
	case p == "/cap.xml":
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset %s><rs:md capability="capabilitylist"/><url><loc>%s</loc><rs:md capability="changelist"/></url></urlset>`, ns, s.url("/cl.xml"))
	case p == "/cl.xml":
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex %s><rs:ln rel="up" href="%s"/><rs:md capability="changelist" from="%s"/>`, ns, s.url("/cap.xml"), model.FormatDatetime(s.from))
		for k := range s.lists {
			fmt.Fprintf(w, `<sitemap><loc>%s</loc><rs:md from="%s" until="%s"/></sitemap>`, s.url(fmt.Sprintf("/cl/%d.xml", k)),
				model.FormatDatetime(s.from.Add(time.Duration(k)*time.Hour)), model.FormatDatetime(s.from.Add(time.Duration(k+1)*time.Hour)))
		}
		fmt.Fprint(w, "</sitemapindex>")
	case strings.HasPrefix(p, "/cl/"):
		k, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/cl/"), ".xml"))
		if err != nil || k < 0 || k >= len(s.lists) {
			http.NotFound(w, r)
			return
		}
		w.Write(s.lists[k])
	default:
		v, ok := s.version[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(incrBody(p, v))
	}
}

// publishNext publishes the next Change List.
func (s *incrSource) publishNext() {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := len(s.lists)
	from := s.from.Add(time.Duration(k) * time.Hour)
	var buf strings.Builder
	fmt.Fprintf(&buf, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:ln rel="up" href="%s"/><rs:md capability="changelist" from="%s" until="%s"/>
`, s.url("/cap.xml"), model.FormatDatetime(from), model.FormatDatetime(from.Add(time.Hour)))
	n := 0
	entry := func(uri, change string) {
		dt := model.FormatDatetime(from.Add(time.Duration(n) * 100 * time.Millisecond))
		n++
		p := strings.TrimPrefix(uri, s.srv.URL)
		if change == "deleted" {
			delete(s.version, p)
			fmt.Fprintf(&buf, "<url><loc>%s</loc><rs:md change=\"deleted\" datetime=\"%s\"/></url>\n", uri, dt)
			return
		}
		s.version[p] = k
		sum := md5.Sum(incrBody(p, k))
		fmt.Fprintf(&buf, "<url><loc>%s</loc><lastmod>%s</lastmod><rs:md change=\"%s\" datetime=\"%s\" hash=\"md5:%s\" length=\"1000\"/></url>\n",
			uri, dt, change, dt, hex.EncodeToString(sum[:]))
	}
	for j := range s.updates {
		entry(s.original(k*s.updates+j), "updated")
	}
	for j := range s.creates {
		entry(s.url(fmt.Sprintf("/n/%d/%04d", k, j)), "created")
	}
	for j := range s.deletes {
		if k == 0 {
			entry(s.original(s.rows-1-j), "deleted")
		} else {
			entry(s.url(fmt.Sprintf("/n/%d/%04d", k-1, j)), "deleted")
		}
	}
	buf.WriteString("</urlset>\n")
	s.lists = append(s.lists, []byte(buf.String()))
}

// buildState writes the state of a copy of the Source's rows resources
// into the destination dir, its baseline done at s.from.
func (s *incrSource) buildState(b testing.TB, dir string) {
	ctx := context.Background()
	st, err := store.OpenDir(dir, store.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	path, err := st.StatePath(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	db, err := state.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	src, err := db.EnsureSource(ctx, s.url("/cap.xml"))
	if err != nil {
		b.Fatal(err)
	}
	w := db.NewWriter(state.WriterOptions{BatchSize: 50000, MaxDelay: time.Hour})
	if err := w.SetBaseline(ctx, src.ID, state.Baseline{Kind: "list", URL: s.url("/rl.xml"), At: s.from, Done: s.from}); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	for i := range s.rows {
		uri := s.url(fmt.Sprintf("/r/%07d", i))
		p, err := s.m.Map(uri)
		if err != nil {
			b.Fatal(err)
		}
		s.version[strings.TrimPrefix(uri, s.srv.URL)] = -1
		r := state.Resource{SourceID: src.ID, URI: uri, Path: p, Length: 1000, Digests: state.Digests(fmt.Sprintf("md5:%032x", i)),
			Lastmod: s.from.Add(-time.Duration(i) * time.Second), FetchedAt: now, VerifiedAt: now}
		if err := w.PutResource(ctx, &r); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		b.Fatal(err)
	}
}

// startProfile writes a CPU profile to name until the returned func is called.
func startProfile(b *testing.B, name string) func() {
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
