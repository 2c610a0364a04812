package fetch

import (
	"net"
	"net/url"
	"strings"
	"time"
)

// Limits are the per-host limits of one kind of host: requests per second
// started (0: unlimited; a crawl delay still applies) and requests in
// flight at once.
type Limits struct {
	Rate        float64
	Concurrency int
}

// Defaults of Options.Near: a Source on this machine or on a private
// network is the operator's own, and ten requests a second would make a
// command over a hundred thousand resources take hours.
const (
	DefaultNearRate        = 0 // unlimited
	DefaultNearConcurrency = 8
)

// NearHost reports whether host (a name or an address, without port) is on
// this machine or a private network: localhost (and names under
// .localhost), a loopback address, a private address (RFC 1918, RFC 4193)
// or a link-local one. Other names are not resolved: they count as remote.
func NearHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast())
}

// loopbackHost reports whether host is this machine: localhost or a
// loopback address (names are not resolved).
func loopbackHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Throttle says how the per-host rate (or a robots.txt crawl delay) holds
// back the requests to one host.
type Throttle struct {
	Host string
	// Rate is the requests per second the host gets, from its kind's rate
	// or its crawl delay, whichever is slower.
	Rate float64
	// CrawlDelay is set when the host's robots.txt Crawl-delay, not the
	// rate, sets the pace.
	CrawlDelay time.Duration
	// Near: the host is on this machine or a private network
	// (Options.Near applies).
	Near bool
	// Waits is how many requests waited for their turn, Waited how long in
	// all (requests in parallel wait at once: this is not time lost).
	Waits  int
	Waited time.Duration
	// Active: a request to the host waits for its turn now, or did a
	// moment ago: the throttle holds fetching back at present, where Waits
	// and Waited add up the whole run.
	Active bool
}

// Throttled returns the hosts whose requests had to wait for their turn
// (the per-host rate, a crawl delay), by host name: what a status bar shows
// when fetching is slower than the network.
func (c *Client) Throttled() []Throttle { return c.hosts.throttledHosts() }

// LimitsFor returns the per-host limits that requests to rawURL's host get
// (the kind of host decides: Options.Near or PerHost*). A caller that runs
// its own workers sizes them by it.
func (c *Client) LimitsFor(rawURL string) Limits {
	u, err := url.Parse(rawURL)
	if err != nil {
		return *c.hosts.remote
	}
	return c.hosts.limitsFor(hostName(u.Host))
}
