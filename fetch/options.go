package fetch

import (
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Options configure a Client. Start from DefaultOptions. In NewClient a zero
// duration, size or count takes its default, except Retries and PerHostRate,
// where zero means none and unlimited.
type Options struct {
	// UserAgent is sent with every request; default "rsx/<Version>".
	UserAgent string
	// Version goes into the default UserAgent.
	Version string

	// Timeout bounds each try of Get and Head, from the dial to the last
	// byte of the body; default 60s. Download has no whole-request timeout.
	Timeout time.Duration
	// ConnectTimeout bounds each of dialling, the TLS handshake and waiting
	// for response headers; default 30s. It applies to downloads too.
	ConnectTimeout time.Duration
	// IdleTimeout fails a Download when no body byte arrives for this long;
	// default 60s.
	IdleTimeout time.Duration
	// MaxBytes limits the decompressed body that Get delivers; default 256 MiB.
	// Exceeding it gives a *TooLargeError. Negative means no limit.
	MaxBytes int64

	// Retries is how many times a try is repeated after a connection error,
	// a 429 or a 5xx other than 501: total tries are 1+Retries.
	// DefaultOptions sets 3; zero means no retries.
	Retries int
	// RetryWait is the first back-off wait; it doubles with each retry.
	// Default 1s. A Retry-After header replaces it.
	RetryWait time.Duration
	// MaxRetryWait caps every wait between tries, Retry-After included;
	// default 60s.
	MaxRetryWait time.Duration
	// OnWait, when set, is told of every wait between tries before it
	// starts, so that a program can say that it waits (the Exchange shows it
	// too: WaitingUntil). It is called from the fetching goroutine and must
	// not block. A wait ends early when the request's context ends.
	OnWait func(Wait)

	// PerHostConcurrency bounds the requests in flight to one host name;
	// default 4. A request holds its slot until its body is read to the end
	// or closed.
	PerHostConcurrency int
	// PerHostRate is the requests per second started to one host name;
	// DefaultOptions sets 10; 0 means unlimited (a crawl delay still applies).
	PerHostRate float64
	// Near, when set, are the limits of a host on this machine or a private
	// network (NearHost) in place of PerHostConcurrency and PerHostRate:
	// one politeness policy by kind of host, for every caller. DefaultOptions
	// sets DefaultNearRate and DefaultNearConcurrency; nil treats every host
	// alike.
	Near *Limits
	// OnThrottle, when set, is told once per host when the host's rate (or
	// crawl delay) has held its requests back for a second in all, so that
	// a program can say that it is being polite (Client.Throttled tells the
	// same at any time). It must not block.
	OnThrottle func(Throttle)

	// MaxRedirects is how many redirects one request follows; default 10.
	MaxRedirects int
	// Insecure skips TLS certificate verification. Ignored when Transport is set.
	Insecure bool

	// CacheDir holds the conditional-GET cache; default
	// os.UserCacheDir()/rsx/http. NoCache disables the cache.
	CacheDir string
	NoCache  bool

	// Headers are extra request headers, each sent only to its own host.
	Headers []HostHeader
	// Netrc is the netrc file to take Basic credentials from, for matching
	// machines only; default $NETRC, or ~/.netrc when it exists.
	// "-" means no netrc file.
	Netrc string
	// BasicAuth are credentials, each sent only to its own host.
	BasicAuth []HostBasicAuth

	// MaxExchanges is how many Exchanges the client keeps; default 1000.
	MaxExchanges int

	// Transport replaces the tuned default transport (tests inject one).
	Transport http.RoundTripper
}

// HostHeader is a request header sent only to Host.
//
// Host is "name" or "name:port"; without a port it matches the name on any
// port. Use CanonicalHost to bind to exactly one origin's host and port.
type HostHeader struct{ Host, Name, Value string }

// HostBasicAuth are Basic credentials sent only to Host (matched like
// HostHeader.Host).
type HostBasicAuth struct{ Host, User, Password string }

// Defaults of Options.
const (
	DefaultTimeout            = 60 * time.Second
	DefaultConnectTimeout     = 30 * time.Second
	DefaultIdleTimeout        = 60 * time.Second
	DefaultMaxBytes           = 256 << 20
	DefaultRetries            = 3
	DefaultRetryWait          = time.Second
	DefaultMaxRetryWait       = 60 * time.Second
	DefaultPerHostConcurrency = 4
	DefaultPerHostRate        = 10
	DefaultMaxRedirects       = 10
	DefaultMaxExchanges       = 1000
)

// DefaultOptions returns the defaults, with CacheDir and Netrc resolved
// from the environment.
func DefaultOptions() Options {
	o := Options{
		Timeout:            DefaultTimeout,
		ConnectTimeout:     DefaultConnectTimeout,
		IdleTimeout:        DefaultIdleTimeout,
		MaxBytes:           DefaultMaxBytes,
		Retries:            DefaultRetries,
		RetryWait:          DefaultRetryWait,
		MaxRetryWait:       DefaultMaxRetryWait,
		PerHostConcurrency: DefaultPerHostConcurrency,
		PerHostRate:        DefaultPerHostRate,
		Near:               &Limits{Rate: DefaultNearRate, Concurrency: DefaultNearConcurrency},
		MaxRedirects:       DefaultMaxRedirects,
		MaxExchanges:       DefaultMaxExchanges,
		CacheDir:           DefaultCacheDir(),
		Netrc:              DefaultNetrc(),
	}
	return o
}

// DefaultCacheDir is os.UserCacheDir()/rsx/http, or "" when the system has
// no cache directory.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "rsx", "http")
}

// DefaultNetrc is $NETRC, else ~/.netrc when that file exists, else "".
func DefaultNetrc() string {
	if p := os.Getenv("NETRC"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	p := filepath.Join(home, ".netrc")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// withDefaults fills zero fields. CacheDir and Netrc are left alone: an empty
// CacheDir is resolved in NewClient, and an empty Netrc means none.
func (o Options) withDefaults() Options {
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.UserAgent == "" {
		o.UserAgent = "rsx/" + o.Version
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.RetryWait <= 0 {
		o.RetryWait = DefaultRetryWait
	}
	if o.MaxRetryWait <= 0 {
		o.MaxRetryWait = DefaultMaxRetryWait
	}
	if o.PerHostConcurrency <= 0 {
		o.PerHostConcurrency = DefaultPerHostConcurrency
	}
	if o.PerHostRate < 0 {
		o.PerHostRate = 0
	}
	if o.Near != nil {
		n := *o.Near // the caller's value stays theirs
		if n.Concurrency <= 0 {
			n.Concurrency = DefaultNearConcurrency
		}
		n.Rate = max(n.Rate, 0)
		o.Near = &n
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.MaxExchanges <= 0 {
		o.MaxExchanges = DefaultMaxExchanges
	}
	return o
}
