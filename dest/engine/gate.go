package engine

import (
	"context"
	"sync"
)

// gate bounds the downloads in flight, adaptively: a download that had to
// be retried, or that ended with 429 or 503, halves the bound (the Source
// is struggling: fewer requests at once, and the fetch layer's back-off and
// Retry-After space them); each run of successes as long as the bound
// raises it by one, up to the configured concurrency.
type gate struct {
	mu        sync.Mutex
	limit     int
	max       int
	inUse     int
	successes int
	backoffs  int
	wake      chan struct{}
}

func newGate(n int) *gate {
	return &gate{limit: n, max: n, wake: make(chan struct{})}
}

// acquire waits for a slot.
func (g *gate) acquire(ctx context.Context) error {
	for {
		g.mu.Lock()
		if g.inUse < g.limit {
			g.inUse++
			g.mu.Unlock()
			return nil
		}
		ch := g.wake
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release frees a slot; backoff says the download met resistance.
func (g *gate) release(backoff bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inUse--
	switch {
	case backoff:
		g.backoffs++
		g.successes = 0
		if g.limit > 1 {
			g.limit /= 2
		}
	case g.limit < g.max:
		g.successes++
		if g.successes >= g.limit {
			g.limit++
			g.successes = 0
		}
	}
	close(g.wake)
	g.wake = make(chan struct{})
}

// bound is the current bound.
func (g *gate) bound() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.limit
}

// backoffCount is how many times the bound was halved.
func (g *gate) backoffCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.backoffs
}
