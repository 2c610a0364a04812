package engine

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestGateHalvesAndRecovers(t *testing.T) {
	g := newGate(8)
	ctx := context.Background()
	for range 3 {
		g.acquire(ctx)
		g.release(true)
	}
	if g.bound() != 1 {
		t.Fatalf("after three back-offs the bound is %d, want 1", g.bound())
	}
	// One slot: a second acquire waits until the first is released.
	g.acquire(ctx)
	got := make(chan struct{})
	go func() { g.acquire(ctx); close(got) }()
	select {
	case <-got:
		t.Fatal("two downloads at once under a bound of 1")
	case <-time.After(20 * time.Millisecond):
	}
	g.release(false)
	<-got
	g.release(false)
	// Successes raise it again, one at a time, up to the maximum.
	for range 200 {
		g.acquire(ctx)
		g.release(false)
	}
	if g.bound() != 8 {
		t.Errorf("after many successes the bound is %d, want 8", g.bound())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for range 8 {
		g.acquire(ctx)
	}
	if err := g.acquire(cctx); err == nil {
		t.Error("acquire with a cancelled context and no slot succeeded")
	}
}

// A Source that answers 429 with Retry-After: the fetch layer waits and
// retries, the engine fetches fewer at once, and everything arrives.
func TestTooManyRequestsBacksOff(t *testing.T) {
	f := manySource(t, 40)
	var mu sync.Mutex
	refused := 0
	f.mu.Lock()
	f.hook = func(p string) {
		mu.Lock()
		defer mu.Unlock()
		if len(p) > 3 && p[:3] == "/r/" && refused < 10 {
			refused++
			f.setCode(p, 429)
		} else {
			f.setCode(p, 0)
		}
	}
	f.mu.Unlock()
	dir := t.TempDir()
	s := openSession(t, dir, testClient(t), Options{Concurrency: 8})
	p, err := s.Plan(context.Background(), f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := s.Run(context.Background(), p)
	if err != nil || !res.OK() || res.Created != 40 {
		t.Fatalf("%v: created %d:%s", err, res.Created, failures(res))
	}
	if refused != 10 || res.BackOffs == 0 {
		t.Errorf("refused %d, backed off %d times", refused, res.BackOffs)
	}
	assertWhole(t, f, dir)
}

// recordingClient notes the crawl delays it is asked to keep.
type recordingClient struct {
	Client
	mu     sync.Mutex
	delays map[string]time.Duration
}

func (c *recordingClient) SetCrawlDelay(host string, d time.Duration) {
	c.mu.Lock()
	c.delays[host] = d
	c.mu.Unlock()
}

func TestCrawlDelayIsHonoured(t *testing.T) {
	f := newChangingSource(t)
	f.setDoc("/robots.txt", "User-agent: *\nCrawl-delay: 2\n\nUser-agent: rsx\nCrawl-delay: 1\n")
	c := &recordingClient{Client: testClient(t), delays: map[string]time.Duration{}}
	s := openSession(t, t.TempDir(), c, Options{})
	p, err := s.Plan(context.Background(), f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if c.delays["127.0.0.1"] != time.Second || len(p.Warnings) != 1 {
		t.Errorf("delays %v, warnings %q", c.delays, p.Warnings)
	}
	// A delay beyond the cap is capped, and said.
	f.setDoc("/robots.txt", "User-agent: *\nCrawl-delay: 3600\n")
	c2 := &recordingClient{Client: testClient(t), delays: map[string]time.Duration{}}
	s2 := openSession(t, t.TempDir(), c2, Options{MaxCrawlDelay: 5 * time.Second})
	p2, err := s2.Plan(context.Background(), f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p2.Close()
	if c2.delays["127.0.0.1"] != 5*time.Second {
		t.Errorf("capped delay %v", c2.delays)
	}
	// --ignore-crawl-delay.
	c3 := &recordingClient{Client: testClient(t), delays: map[string]time.Duration{}}
	s3 := openSession(t, t.TempDir(), c3, Options{IgnoreCrawlDelay: true})
	p3, err := s3.Plan(context.Background(), f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p3.Close()
	if len(c3.delays) != 0 || f.hitsOf("/robots.txt") != 2 {
		t.Errorf("ignored: delays %v, robots.txt read %d times", c3.delays, f.hitsOf("/robots.txt"))
	}
}
