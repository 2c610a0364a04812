package fetch

import (
	"context"
	"net/url"
	"testing"
	"time"
)

// TestThrottleActive: a host counts as throttled while a request waits for
// its turn and a moment after (the gap between two requests of a
// sequential load), not for the rest of the run: Waits and Waited add up
// the run, Active says now.
func TestThrottleActive(t *testing.T) {
	h := newHostLimits(Limits{Rate: 10, Concurrency: 4}, nil, nil)
	u, _ := url.Parse("http://example.org/a")
	ctx := context.Background()
	release, err := h.acquire(ctx, u) // the first goes at once
	if err != nil {
		t.Fatal(err)
	}
	release()
	if th := h.throttledHosts(); len(th) != 0 {
		t.Fatalf("throttled after one request: %+v", th)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if release, err := h.acquire(ctx, u); err == nil { // waits ~100ms for its turn
			release()
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		th := h.throttledHosts()
		if len(th) == 1 && th[0].Active {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never active while a request waits: %+v", th)
		}
		time.Sleep(time.Millisecond)
	}
	<-done
	if th := h.throttledHosts(); len(th) != 1 || !th[0].Active || th[0].Waits != 1 {
		t.Errorf("just after the wait: %+v, want active still", th)
	}
	// Long after the last wait: no longer active, the run's total kept.
	h.mu.Lock()
	h.hosts["example.org"].waitEnds = time.Now().Add(-throttleRecent - time.Second)
	h.mu.Unlock()
	if th := h.throttledHosts(); len(th) != 1 || th[0].Active || th[0].Waits != 1 {
		t.Errorf("after the throttle let go: %+v, want inactive with its wait counted", th)
	}
}
