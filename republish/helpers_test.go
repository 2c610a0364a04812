package republish

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"rsx/crawl"
	"rsx/demo"
	"rsx/dest/engine"
	"rsx/dest/store"
	"rsx/fetch"
	"rsx/model"
)

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

func advance(t testing.TB, base string, steps int) {
	t.Helper()
	resp, err := http.Post(fmt.Sprintf("%s/demo/advance?steps=%d", base, steps), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

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

// syncCopy syncs target into the destination st (a run of rsx sync).
func syncCopy(t testing.TB, st store.Store, target string, po engine.PlanOptions) *engine.Result {
	t.Helper()
	ctx := context.Background()
	s, err := engine.Open(ctx, st, testClient(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Plan(ctx, target, po)
	if err != nil {
		t.Fatalf("plan %s: %v", target, err)
	}
	defer p.Close()
	res, err := s.Run(ctx, p)
	if err != nil {
		t.Fatalf("run %s: %v", target, err)
	}
	if !res.OK() {
		t.Fatalf("run %s: %d failed: %+v", target, res.FailedCount, res.Failed)
	}
	return res
}

func syncDir(t testing.TB, dir, target string, po engine.PlanOptions) *engine.Result {
	t.Helper()
	st, err := store.OpenDir(dir, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return syncCopy(t, st, target, po)
}

// serveStore serves st (opened read-only) with documents of shape sh (the
// zero shape: the real one) until the end of the test, once its first
// generation is read.
func serveStore(t testing.TB, st store.Store, sh shape, o Options) (*Server, string) {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	base := "http://" + hs.Listener.Addr().String()
	o.BaseURL, o.Poll, o.TempDir = base, 10*time.Millisecond, t.TempDir()
	o.Note = func(msg string) { t.Log("serve: " + msg) }
	s, err := New(st, o)
	if err != nil {
		t.Fatal(err)
	}
	if sh.bucket > 0 {
		s.shape = sh
	}
	hs.Config.Handler = s
	hs.Start()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-ran
		hs.Close()
		s.Close()
	})
	select {
	case <-s.Ready():
	case err := <-ran:
		t.Fatalf("serve: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve: no generation read in 30s")
	}
	return s, base
}

func serveDir(t testing.TB, dir string, sh shape) (*Server, string) {
	t.Helper()
	return serveDirWith(t, dir, sh, Options{})
}

func serveDirWith(t testing.TB, dir string, sh shape, o Options) (*Server, string) {
	t.Helper()
	st, err := store.OpenDir(dir, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return serveStore(t, st, sh, o)
}

// get fetches url: its status, headers and body (err when the body could
// not be read to its end; a response that never came is a status 0).
func get(t testing.TB, url string, hdr map[string]string) (*http.Response, []byte, error) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return &http.Response{Header: http.Header{}}, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func parseDoc(t testing.TB, url string) *model.Document {
	t.Helper()
	resp, b, err := get(t, url, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %v", url, resp.StatusCode, err)
	}
	d, err := model.Parse(bytesReader(b))
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return d
}

// problems walks the served Source as rsx validate --recursive does and
// returns every problem it finds (errors and warnings), and the documents.
func problems(t testing.TB, base string) (out []string, docs int) {
	t.Helper()
	g := crawl.NewGraph(testClient(t), crawl.GraphOptions{})
	root, err := g.Walk(context.Background(), base+wellKnown, crawl.WalkOptions{Depth: crawl.Unlimited, Check: true, Archives: true})
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *crawl.Node)
	walk = func(n *crawl.Node) {
		docs++
		if n.Document != nil {
			if n.Err != nil {
				out = append(out, n.URL+": "+n.Err.Error())
			}
			for _, p := range n.Problems {
				out = append(out, n.URL+": "+p.Rule+": "+p.Message)
			}
		}
		for _, p := range n.Cross {
			out = append(out, n.URL+": "+p.Rule+": "+p.Message)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	return out, docs
}
