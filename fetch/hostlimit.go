package fetch

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// hostLimits hands out per-host request slots: at most a fixed number in
// flight, and starts spaced by the larger of the rate interval and the host's
// crawl delay. Hosts are keyed by host name alone (not port): politeness is
// owed to the machine.
type hostLimits struct {
	concurrency int
	interval    time.Duration // from PerHostRate; 0 = unlimited

	mu          sync.Mutex
	hosts       map[string]*hostLimit
	crawlDelays map[string]time.Duration
}

type hostLimit struct {
	sem chan struct{}
	lim *rate.Limiter
}

func newHostLimits(concurrency int, perSecond float64) *hostLimits {
	h := &hostLimits{
		concurrency: concurrency,
		hosts:       map[string]*hostLimit{},
		crawlDelays: map[string]time.Duration{},
	}
	if perSecond > 0 {
		h.interval = time.Duration(float64(time.Second) / perSecond)
	}
	return h
}

// limitFor gives the rate limit for a spacing; a zero spacing is unlimited.
func limitFor(spacing time.Duration) rate.Limit {
	if spacing <= 0 {
		return rate.Inf
	}
	return rate.Every(spacing)
}

func (h *hostLimits) spacingLocked(host string) time.Duration {
	return max(h.interval, h.crawlDelays[host])
}

func (h *hostLimits) get(host string) *hostLimit {
	h.mu.Lock()
	defer h.mu.Unlock()
	l, ok := h.hosts[host]
	if !ok {
		l = &hostLimit{
			sem: make(chan struct{}, h.concurrency),
			lim: rate.NewLimiter(limitFor(h.spacingLocked(host)), 1),
		}
		h.hosts[host] = l
	}
	return l
}

func (h *hostLimits) setCrawlDelay(host string, d time.Duration) {
	host = hostName(host)
	h.mu.Lock()
	defer h.mu.Unlock()
	if d < 0 {
		d = 0
	}
	h.crawlDelays[host] = d
	if l, ok := h.hosts[host]; ok {
		l.lim.SetLimit(limitFor(h.spacingLocked(host)))
	}
}

// acquire waits for a slot for u's host and for its turn to start. The
// returned release must be called once the request is finished with; it is
// safe to call more than once.
func (h *hostLimits) acquire(ctx context.Context, u *url.URL) (release func(), err error) {
	l := h.get(hostName(u.Host))
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for a connection slot to %s: %w", u.Host, ctx.Err())
	}
	var once sync.Once
	release = func() { once.Do(func() { <-l.sem }) }
	if err := l.lim.Wait(ctx); err != nil {
		release()
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("wait for my turn at %s: %w", u.Host, err)
	}
	return release, nil
}

// hostName lowercases a host and drops its port and IPv6 brackets. A whole
// URL is accepted too.
func hostName(host string) string {
	if strings.Contains(host, "://") {
		if u, err := url.Parse(host); err == nil {
			host = u.Host
		}
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.Trim(host, "[]"))
}

// CanonicalHost is u's host as "name:port", lowercased, with the scheme's
// default port filled in: the form to bind a HostHeader or HostBasicAuth to
// exactly one origin's host.
func CanonicalHost(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// hostMatches reports whether a binding ("name" or "name:port") covers u.
func hostMatches(bound string, u *url.URL) bool {
	bound = strings.ToLower(strings.TrimSpace(bound))
	if bound == "" {
		return false
	}
	if h, p, err := net.SplitHostPort(bound); err == nil {
		return CanonicalHost(u) == net.JoinHostPort(strings.Trim(h, "[]"), p)
	}
	return strings.Trim(bound, "[]") == strings.ToLower(u.Hostname())
}
