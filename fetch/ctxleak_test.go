package fetch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// countingContext is a caller's context that can end (as the command
// line's, which ends on a signal) and counts the contexts derived from it
// that are still tied to it: the context package registers each through
// AfterFunc, and unregisters it when the derived context is cancelled.
type countingContext struct {
	context.Context // Background: values, no deadline
	done            chan struct{}
	mu              sync.Mutex
	live            int
}

func (c *countingContext) Done() <-chan struct{} { return c.done }

func (c *countingContext) AfterFunc(f func()) func() bool {
	c.mu.Lock()
	c.live++
	c.mu.Unlock()
	var once sync.Once
	return func() bool {
		stopped := false
		once.Do(func() {
			c.mu.Lock()
			c.live--
			c.mu.Unlock()
			stopped = true
		})
		return stopped
	}
}

// TestRequestsLetTheirContextsGo: each try made a context and, when it had
// a timeout, replaced it with another without cancelling the first, which
// stayed tied to the caller's context for as long as that lived: about 100
// bytes a request, 100 MB for rsx tree of an index of a million parts
// (issue 23).
func TestRequestsLetTheirContextsGo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	opts := DefaultOptions()
	opts.NoCache, opts.PerHostRate = true, 0
	opts.Timeout = time.Minute // a timeout per try, as the command line's
	c, err := NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &countingContext{Context: context.Background(), done: make(chan struct{})}
	const n = 50
	for range n {
		resp, err := c.Get(ctx, srv.URL+"/x")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	ctx.mu.Lock()
	live := ctx.live
	ctx.mu.Unlock()
	if live > 2 {
		t.Errorf("after %d requests, each done, %d contexts made from the caller's are still tied to it", n, live)
	}
}
