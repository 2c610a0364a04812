// Command minsync is the yardstick of rsx sync's speed (BENCHMARKS.md): the
// least a correct baseline must do, and nothing more. It reads a Resource
// List (or its index, the parts one after the other), then 8 workers with
// keep-alive connections GET each resource, write it to a temporary file,
// fsync it and rename it into place. No hashing, no verification, no state.
// It is not part of rsx.
//
//	go run ./scripts/minsync URL_OF_RESOURCELIST DIR
package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

var locRE = regexp.MustCompile(`<loc>([^<]+)</loc>`)

func get(c *http.Client, u string) ([]byte, error) {
	resp, err := c.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: minsync URL_OF_RESOURCELIST DIR")
		os.Exit(2)
	}
	list, dir := os.Args[1], os.Args[2]
	const workers = 8
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	start := time.Now()
	body, err := get(c, list)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var urls []string
	if regexp.MustCompile(`<sitemapindex`).Match(body) {
		for _, m := range locRE.FindAllSubmatch(body, -1) {
			part, err := get(c, string(m[1]))
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			for _, m := range locRE.FindAllSubmatch(part, -1) {
				urls = append(urls, string(m[1]))
			}
		}
	} else {
		for _, m := range locRE.FindAllSubmatch(body, -1) {
			urls = append(urls, string(m[1]))
		}
	}
	jobs := make(chan string)
	var wg sync.WaitGroup
	var failed, n atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range jobs {
				if err := fetch(c, u, dir, &n); err != nil {
					fmt.Fprintln(os.Stderr, err)
					failed.Add(1)
				}
			}
		}()
	}
	for _, u := range urls {
		jobs <- u
	}
	close(jobs)
	wg.Wait()
	el := time.Since(start)
	fmt.Printf("%d resources in %.3f s: %.0f resources/s (%d failed)\n", len(urls), el.Seconds(), float64(len(urls))/el.Seconds(), failed.Load())
	if failed.Load() > 0 {
		os.Exit(1)
	}
}

func fetch(c *http.Client, u, dir string, n *atomic.Int64) error {
	pu, err := url.Parse(u)
	if err != nil {
		return err
	}
	final := filepath.Join(dir, pu.Host, filepath.FromSlash(pu.Path))
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	tmp := filepath.Join(filepath.Dir(final), ".tmp-"+strconv.FormatInt(n.Add(1), 10))
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, final)
}
