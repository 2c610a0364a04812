package session

import (
	"context"
	"sync"
	"testing"
	"time"

	"rsx/demo"
	"rsx/fetch"
	"rsx/model"
)

// recorder is a DocSink that keeps what it is told.
type recorder struct {
	mu       sync.Mutex
	started  []string
	total    int64
	header   *model.Header
	entries  []model.Entry
	batches  []int
	progress []int64
	done     []LoadResult
}

func (r *recorder) Started(final string, total int64, _ *fetch.Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, final)
	r.total = total
}

func (r *recorder) Header(h model.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.header = &h
}

func (r *recorder) Entries(b []model.Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries = append(r.entries, b...)
	r.batches = append(r.batches, len(b))
}

func (r *recorder) Progress(done int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress = append(r.progress, done)
}

func (r *recorder) Done(res LoadResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = append(r.done, res)
}

// load loads target through s and returns what the sink was told; it
// fails the test unless Done came exactly once, last.
func load(t *testing.T, s *Session, target string) *recorder {
	t.Helper()
	r := &recorder{}
	err := s.LoadDocument(context.Background(), target, r)
	if len(r.done) != 1 {
		t.Fatalf("load %s: Done called %d times", target, len(r.done))
	}
	if err != r.done[0].Err {
		t.Fatalf("load %s: returned %v, Done told %v", target, err, r.done[0].Err)
	}
	return r
}

// startDemo serves a small demo Source whose Resource List is an index of
// several parts and whose Resource Dump has several packages.
func startDemo(t *testing.T, o demo.Options) (*demo.Server, *Session) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := demo.Start(ctx, "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", PerHostConcurrency: 8, IdleTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return srv, New(c, Options{BatchSize: 16})
}
