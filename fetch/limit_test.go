package fetch

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// startTimes is a handler that notes when each request arrived.
type startTimes struct {
	mu    sync.Mutex
	times []time.Time
}

func (s *startTimes) handler(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.times = append(s.times, time.Now())
	s.mu.Unlock()
	w.Write([]byte("ok"))
}

// lastSince is how long after start the last request arrived. Arrival
// gaps jitter with connection set-up, but the last of n requests spaced by
// d cannot arrive earlier than (n-1)·d after the first was allowed to start.
func (s *startTimes) lastSince(start time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var last time.Time
	for _, t := range s.times {
		if t.After(last) {
			last = t
		}
	}
	return last.Sub(start)
}

// fetchConcurrently makes n Gets at once and waits for them.
func fetchConcurrently(t *testing.T, c *Client, url string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := getBody(t, c, url); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

func TestPerHostRate(t *testing.T) {
	t.Parallel()
	var st startTimes
	s := newServer(t, st.handler)
	o := testOptions()
	o.PerHostRate = 20 // one start per 50ms
	c := newTestClient(t, o)
	start := time.Now()
	fetchConcurrently(t, c, s.URL, 5)
	if d := st.lastSince(start); d < 190*time.Millisecond {
		t.Errorf("5 requests at 20/s: the last arrived after %v, want 200ms or more", d)
	}
}

func TestCrawlDelay(t *testing.T) {
	t.Parallel()
	var st startTimes
	s := newServer(t, st.handler)
	o := testOptions()
	o.PerHostRate = 100
	c := newTestClient(t, o)
	// Set the delay before and after the host's limiter exists.
	if _, _, err := getBody(t, c, s.URL); err != nil {
		t.Fatal(err)
	}
	c.SetCrawlDelay(strings.TrimPrefix(s.URL, "http://"), 150*time.Millisecond)
	time.Sleep(150 * time.Millisecond) // let the first token come back
	st.mu.Lock()
	st.times = nil
	st.mu.Unlock()
	start := time.Now()
	fetchConcurrently(t, c, s.URL, 3)
	if d := st.lastSince(start); d < 290*time.Millisecond {
		t.Errorf("3 requests with a 150ms crawl delay: the last arrived after %v", d)
	}

	c2 := newTestClient(t, o)
	c2.SetCrawlDelay("127.0.0.1", 100*time.Millisecond)
	var st2 startTimes
	s2 := newServer(t, st2.handler)
	start = time.Now()
	fetchConcurrently(t, c2, s2.URL, 3)
	if d := st2.lastSince(start); d < 190*time.Millisecond {
		t.Errorf("delay set before the first request: the last arrived after %v", d)
	}

	// The spacing is the larger of the rate interval and the crawl delay.
	h := newHostLimits(Limits{Rate: 10, Concurrency: 1}, nil, nil)
	h.setCrawlDelay("example.org", 50*time.Millisecond)
	if got := h.get("example.org").lim.Limit(); got != limitFor(100*time.Millisecond) {
		t.Errorf("rate interval lost to a shorter crawl delay: %v", got)
	}
	h.setCrawlDelay("EXAMPLE.org:443", 2*time.Second)
	if got := h.get("example.org").lim.Limit(); got != limitFor(2*time.Second) {
		t.Errorf("crawl delay not applied: %v", got)
	}
}

func TestPerHostConcurrency(t *testing.T) {
	t.Parallel()
	var inFlight, peak atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		inFlight.Add(-1)
		w.Write([]byte("ok"))
	})
	o := testOptions()
	o.PerHostConcurrency = 2
	c := newTestClient(t, o)
	fetchConcurrently(t, c, s.URL, 8)
	if p := peak.Load(); p > 2 {
		t.Errorf("%d requests in flight, limit 2", p)
	}
}

func TestExchangeRingAndHook(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(r.URL.Path)) })
	o := testOptions()
	o.MaxExchanges = 3
	c := newTestClient(t, o)
	var hooked atomic.Int32
	c.OnExchange(func(e *Exchange) {
		if e.Done {
			hooked.Add(1)
		}
	})
	for _, p := range []string{"/1", "/2", "/3", "/4", "/5"} {
		if _, _, err := getBody(t, c, s.URL+p); err != nil {
			t.Fatal(err)
		}
	}
	all := c.Exchanges()
	if len(all) != 3 || !strings.HasSuffix(all[0].URL, "/3") || !strings.HasSuffix(all[2].URL, "/5") {
		var urls []string
		for _, e := range all {
			urls = append(urls, e.URL)
		}
		t.Errorf("ring holds %v", urls)
	}
	if hooked.Load() != 5 {
		t.Errorf("hook called %d times", hooked.Load())
	}
}
