package spotcheck

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rsx/claims"
	"rsx/demo"
	"rsx/fetch"
	"rsx/model"
)

// The spot audit of the demo Source's dataset1 (10,000 resources: 8,008 in
// dataset1, 2,290 mirrors), every resource, on loopback, against a
// baseline measured in the same run: a minimal loop of 8 keep-alive
// workers that GET the same URLs (resources and mirrors) and hash each
// body with md5 and sha-256, as the audit does. BENCHMARKS.md "Spot audit"
// has the figures.
//
//	go test ./audit/ -run '^$' -bench Audit -benchtime 3x

func benchDemo(b *testing.B) (base string, urls []string) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 10000})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	c := benchClient(b)
	idx := parseDoc(b, c, srv.URL+"/dataset1/resourcelist.xml")
	for _, part := range idx.Entries {
		for _, e := range parseDoc(b, c, part.Loc).Entries {
			for _, t := range claims.Targets(e) {
				urls = append(urls, t.URL)
			}
		}
	}
	return srv.URL, urls
}

func parseDoc(b *testing.B, c *fetch.Client, url string) *model.Document {
	resp, err := c.Get(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := model.Parse(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	return doc
}

func benchClient(b *testing.B) *fetch.Client {
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", PerHostRate: 0, PerHostConcurrency: 8})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func BenchmarkAuditDemo(b *testing.B) {
	base, urls := benchDemo(b)
	b.Run("audit", func(b *testing.B) {
		var resources, requests int
		for b.Loop() {
			// The defaults of rsx audit on loopback: 8 per host, 16 resources at once.
			rep, err := New(benchClient(b), Options{Concurrency: 16, OmitOKMirrors: true}).Run(context.Background(), base+"/dataset1/resourcelist.xml")
			if err != nil || rep.Wrong() || rep.Checked < 8000 {
				b.Fatalf("err %v, checked %d, mismatched %d", err, rep.Checked, len(rep.Mismatched))
			}
			resources += rep.Checked
			requests += rep.Checked + rep.MirrorsChecked
		}
		b.ReportMetric(float64(resources)/b.Elapsed().Seconds(), "resources/s")
		b.ReportMetric(float64(requests)/b.Elapsed().Seconds(), "requests/s")
	})
	b.Run("baseline", func(b *testing.B) {
		// Resources per second counted as the audit counts them: the
		// requests of a resource and its mirrors make one.
		perResource := float64(len(urls)) / 8008
		var requests atomic.Int64
		for b.Loop() {
			baseline(b, urls, &requests)
		}
		b.ReportMetric(float64(requests.Load())/perResource/b.Elapsed().Seconds(), "resources/s")
		b.ReportMetric(float64(requests.Load())/b.Elapsed().Seconds(), "requests/s")
	})
}

// baseline GETs urls with 8 keep-alive workers and hashes each body.
func baseline(b *testing.B, urls []string, requests *atomic.Int64) {
	tr := &http.Transport{MaxIdleConnsPerHost: 8, IdleConnTimeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			buf := make([]byte, 32<<10)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(urls) {
					return
				}
				resp, err := hc.Get(urls[i])
				if err != nil {
					b.Error(err)
					return
				}
				m, s := md5.New(), sha256.New()
				if _, err := io.CopyBuffer(io.MultiWriter(m, s), resp.Body, buf); err != nil {
					b.Error(err)
				}
				resp.Body.Close()
				m.Sum(nil)
				s.Sum(nil)
				requests.Add(1)
			}
		})
	}
	wg.Wait()
}
