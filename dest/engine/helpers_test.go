package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/demo"
	"rsx/dest/store"
	"rsx/fetch"
)

// startDemo serves a demo Source on a free loopback port.
func startDemo(t testing.TB, o demo.Options) *demo.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := demo.Start(ctx, "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// advance moves a demo Source's clock on, as a client would.
func advance(t testing.TB, base string, steps int) {
	t.Helper()
	resp, err := http.Post(fmt.Sprintf("%s/demo/advance?steps=%d", base, steps), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("advance: %s", resp.Status)
	}
}

// testClient is a client for loopback tests: no cache, no rate limit, quick
// retries.
func testClient(t testing.TB) *fetch.Client {
	t.Helper()
	o := fetch.DefaultOptions()
	o.NoCache = true
	o.PerHostRate = 0
	o.PerHostConcurrency = 8
	o.RetryWait = 10 * time.Millisecond
	o.MaxRetryWait = 50 * time.Millisecond
	o.Netrc = "-"
	c, err := fetch.NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// counting wraps a transport and counts the requests per path.
type counting struct {
	rt http.RoundTripper
	mu sync.Mutex
	n  map[string]int
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n[r.URL.Path]++
	c.mu.Unlock()
	return c.rt.RoundTrip(r)
}

func (c *counting) count(prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for p, k := range c.n {
		if strings.HasPrefix(p, prefix) {
			n += k
		}
	}
	return n
}

// countingClient is a testClient whose requests are counted.
func countingClient(t testing.TB) (*fetch.Client, *counting) {
	t.Helper()
	cnt := &counting{rt: http.DefaultTransport.(*http.Transport).Clone(), n: map[string]int{}}
	o := fetch.DefaultOptions()
	o.NoCache = true
	o.PerHostRate = 0
	o.PerHostConcurrency = 8
	o.RetryWait = 10 * time.Millisecond
	o.MaxRetryWait = 50 * time.Millisecond
	o.Netrc = "-"
	o.Transport = cnt
	c, err := fetch.NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c, cnt
}

// openSession opens a session on a destination folder.
func openSession(t testing.TB, dir string, c Client, o Options) *Session {
	t.Helper()
	st, err := store.OpenDir(dir, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), st, c, o)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); st.Close() })
	return s
}

// syncOnce plans and runs in a session of its own.
func syncOnce(t testing.TB, dir string, c Client, target string, po PlanOptions) *Result {
	t.Helper()
	st, err := store.OpenDir(dir, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := Open(context.Background(), st, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Plan(context.Background(), target, po)
	if err != nil {
		t.Fatalf("plan %s: %v", target, err)
	}
	defer p.Close()
	res, err := s.Run(context.Background(), p)
	if err != nil {
		t.Fatalf("run %s: %v", target, err)
	}
	return res
}

// files lists the files of a destination (not .rsx), relative, sorted.
func files(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == ".rsx" {
				return filepath.SkipDir
			}
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func failures(r *Result) string {
	var b strings.Builder
	for _, f := range r.Failed {
		fmt.Fprintf(&b, "\n  %s [%s]: %v", f.URL, f.Kind, f.Err)
	}
	for _, f := range r.Plan.Problems {
		fmt.Fprintf(&b, "\n  problem %s [%s]: %v", f.URL, f.Kind, f.Err)
	}
	return b.String()
}
