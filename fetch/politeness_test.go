package fetch

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNearHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "app.localhost": true,
		"127.0.0.1": true, "127.0.0.2": true, "::1": true, "[::1]": true,
		"10.1.2.3": true, "172.16.0.1": true, "192.168.1.10": true, "fd00::1": true,
		"169.254.1.1": true, "fe80::1": true,
		"example.org": false, "8.8.8.8": false, "172.32.0.1": false, "2001:db8::1": false,
		"localhost.example.org": false, "": false,
	} {
		if got := NearHost(host); got != want {
			t.Errorf("NearHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// One politeness policy, by kind of host, in the client that every command
// and the explorer use: a host on this machine gets the near limits
// (unlimited by default), any other the polite rate; the throttling is told
// once per host (OnThrottle) and can be asked for (Throttled). Only sync
// and audit used to get fast defaults, chosen by the command's target.
func TestPolitenessByKindOfHost(t *testing.T) {
	t.Parallel()
	var st startTimes
	s := newServer(t, st.handler)
	addr := strings.TrimPrefix(s.URL, "http://")
	port := addr[strings.LastIndex(addr, ":")+1:]

	o := DefaultOptions()
	o.NoCache, o.Netrc, o.CacheDir = true, "-", ""
	// A rate slow enough that 8 requests at it take 1.4 s: a loopback
	// run on a loaded machine (the race step, shared CI) stays far below.
	o.PerHostRate, o.PerHostConcurrency = 5, 8
	var mu sync.Mutex
	var told []Throttle
	o.OnThrottle = func(t Throttle) {
		mu.Lock()
		told = append(told, t)
		mu.Unlock()
	}
	// Every dial reaches the test server: remote.example stands for a
	// remote host.
	dialer := &net.Dialer{}
	o.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dialer.DialContext(ctx, network, addr)
	}}
	c := newTestClient(t, o)

	if l := c.LimitsFor("http://127.0.0.1:" + port + "/"); l.Rate != DefaultNearRate || l.Concurrency != DefaultNearConcurrency {
		t.Errorf("limits of a loopback host: %+v", l)
	}
	if l := c.LimitsFor("http://remote.example/"); l.Rate != 5 || l.Concurrency != 8 {
		t.Errorf("limits of a remote host: %+v", l)
	}

	start := time.Now()
	fetchConcurrently(t, c, "http://127.0.0.1:"+port+"/", 8)
	if d := st.lastSince(start); d > time.Second && !raceEnabled {
		t.Errorf("8 requests to loopback took %v: the polite rate was applied", d)
	}
	if th := c.Throttled(); len(th) != 0 {
		t.Errorf("loopback throttled: %+v", th)
	}

	start = time.Now()
	fetchConcurrently(t, c, "http://remote.example/", 8)
	if d := st.lastSince(start); d < 7*200*time.Millisecond-20*time.Millisecond {
		t.Errorf("8 requests to a remote host at 5/s took only %v", d)
	}
	th := c.Throttled()
	if len(th) != 1 || th[0].Host != "remote.example" || th[0].Rate != 5 || th[0].Near || th[0].Waits < 6 || th[0].Waited < time.Second {
		t.Errorf("Throttled() = %+v", th)
	}
	fetchConcurrently(t, c, "http://remote.example/", 2)
	mu.Lock()
	defer mu.Unlock()
	if len(told) != 1 || told[0].Host != "remote.example" || told[0].Rate != 5 {
		t.Errorf("OnThrottle told %+v, want remote.example once", told)
	}
}

// A robots.txt crawl delay that is slower than the rate is what Throttled
// names.
func TestThrottledByCrawlDelay(t *testing.T) {
	h := newHostLimits(Limits{Rate: 100, Concurrency: 1}, nil, nil)
	h.setCrawlDelay("example.org", 2*time.Second)
	l := h.get("example.org")
	h.throttled("example.org", l, 2*time.Second)
	th := h.throttledHosts()
	if len(th) != 1 || th[0].CrawlDelay != 2*time.Second || th[0].Rate != 0.5 {
		t.Errorf("throttled %+v", th)
	}
}
