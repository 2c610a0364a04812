package fetch

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// hostLimits hands out per-host request slots: at most a fixed number in
// flight, and starts spaced by the larger of the rate interval and the host's
// crawl delay. Hosts are keyed by host name alone (not port): politeness is
// owed to the machine. A host on this machine or a private network gets the
// near limits when there are any (Options.Near), every other host the
// remote ones: one policy, by kind of host, for every command and the
// explorer. It remembers the hosts whose requests had to wait for their
// turn, so that the throttling can be shown (Client.Throttled, OnThrottle).
type hostLimits struct {
	remote, near *Limits // near nil: every host is treated as remote

	// onThrottle is told once per host when its waits for the rate or the
	// crawl delay add up to throttleShown.
	onThrottle func(Throttle)

	mu          sync.Mutex
	hosts       map[string]*hostLimit
	crawlDelays map[string]time.Duration
}

type hostLimit struct {
	sem      chan struct{}
	lim      *rate.Limiter
	interval time.Duration // from the rate of the host's kind; 0 = unlimited
	// What the rate and the crawl delay cost this host's requests.
	waits    int
	waited   time.Duration
	reported bool

	// Waiting now: the requests waiting for their turn, and when the last
	// wait ended (Throttle.Active).
	waiting  int
	waitEnds time.Time
}

// throttleRecent is how long after its last wait a host still counts as
// throttled: a sequential load waits before each request, and the moments
// between two waits are part of the same throttling.
const throttleRecent = 2 * time.Second

// throttleShown is how long a host's requests must have waited for their
// turn, in all, before OnThrottle tells of it: a wait now and then is not
// worth a line, a command that the rate slows down is.
const throttleShown = time.Second

func newHostLimits(remote Limits, near *Limits, onThrottle func(Throttle)) *hostLimits {
	h := &hostLimits{
		remote:      &remote,
		near:        near,
		onThrottle:  onThrottle,
		hosts:       map[string]*hostLimit{},
		crawlDelays: map[string]time.Duration{},
	}
	return h
}

// limitsFor are the limits of host's kind (a name, no port).
func (h *hostLimits) limitsFor(host string) Limits {
	if h.near != nil && NearHost(host) {
		return *h.near
	}
	return *h.remote
}

// intervalOf is the spacing of starts a rate asks for; 0 for unlimited.
func intervalOf(perSecond float64) time.Duration {
	if perSecond <= 0 {
		return 0
	}
	return time.Duration(float64(time.Second) / perSecond)
}

// limitFor gives the rate limit for a spacing; a zero spacing is unlimited.
func limitFor(spacing time.Duration) rate.Limit {
	if spacing <= 0 {
		return rate.Inf
	}
	return rate.Every(spacing)
}

func (h *hostLimits) spacingLocked(host string, l *hostLimit) time.Duration {
	return max(l.interval, h.crawlDelays[host])
}

func (h *hostLimits) get(host string) *hostLimit {
	h.mu.Lock()
	defer h.mu.Unlock()
	l, ok := h.hosts[host]
	if !ok {
		lim := h.limitsFor(host)
		conc := lim.Concurrency
		if conc <= 0 {
			conc = DefaultPerHostConcurrency
		}
		l = &hostLimit{sem: make(chan struct{}, conc), interval: intervalOf(lim.Rate)}
		l.lim = rate.NewLimiter(limitFor(h.spacingLocked(host, l)), 1)
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
		l.lim.SetLimit(limitFor(h.spacingLocked(host, l)))
	}
}

// throttled notes that a request to host waits d for its turn, and tells
// onThrottle once the host's waits reach throttleShown.
func (h *hostLimits) throttled(host string, l *hostLimit, d time.Duration) {
	h.mu.Lock()
	l.waits++
	l.waited += d
	l.waiting++
	var t Throttle
	tell := !l.reported && l.waited >= throttleShown && h.onThrottle != nil
	if tell {
		l.reported = true
		t = h.throttleLocked(host, l)
	}
	h.mu.Unlock()
	if tell {
		h.onThrottle(t)
	}
}

// waitEnded notes that a request to l's host waits no more.
func (h *hostLimits) waitEnded(l *hostLimit) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l.waiting--
	l.waitEnds = time.Now()
}

func (h *hostLimits) throttleLocked(host string, l *hostLimit) Throttle {
	t := Throttle{Host: host, Waits: l.waits, Waited: l.waited, Near: h.near != nil && NearHost(host),
		Active: l.waiting > 0 || time.Since(l.waitEnds) < throttleRecent}
	spacing := h.spacingLocked(host, l)
	if spacing > 0 {
		t.Rate = float64(time.Second) / float64(spacing)
	}
	if cd := h.crawlDelays[host]; cd > 0 && cd >= l.interval {
		t.CrawlDelay = cd
	}
	return t
}

// throttledHosts are the hosts whose requests waited for their turn, by name.
func (h *hostLimits) throttledHosts() []Throttle {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Throttle
	for host, l := range h.hosts {
		if l.waits > 0 {
			out = append(out, h.throttleLocked(host, l))
		}
	}
	slices.SortFunc(out, func(a, b Throttle) int { return strings.Compare(a.Host, b.Host) })
	return out
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
	r := l.lim.Reserve()
	if d := r.Delay(); d > 0 {
		h.throttled(hostName(u.Host), l, d)
		defer h.waitEnded(l)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			r.Cancel()
			release()
			return nil, fmt.Errorf("wait for my turn at %s: %w", u.Host, ctx.Err())
		}
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
