package cli

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"rsx/config"
	"rsx/display"
	"rsx/fetch"
	"rsx/internal/version"
	"rsx/model"
)

// httpFlags are the persistent flags that configure the HTTP client.
// Commands get a client from client(), naming their target URLs so that
// headers and credentials are bound to those hosts only.
type httpFlags struct {
	headers        []string
	user           string
	netrc          string
	insecure       bool
	noCache        bool
	cacheDir       string
	timeout        time.Duration
	connectTimeout time.Duration
	retries        int
	maxRetryWait   time.Duration
	rate           float64
	concurrency    int
	userAgent      string
	maxBytes       byteSize

	// onWait tells of a wait between tries (standard error for the
	// commands; the explorer shows it from the exchanges instead).
	onWait func(fetch.Wait)
	// onThrottle tells that a host's rate holds the requests back
	// (standard error for the commands; the explorer asks the client).
	onThrottle func(fetch.Throttle)

	// fs is where the flags were registered: whether --rate and
	// --concurrency were given decides the limits of near hosts.
	fs *pflag.FlagSet

	// transport, when set (by tests only), carries every request instead of
	// the network: a test serves a Source published under another host name.
	transport http.RoundTripper
}

func (f *httpFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	f.maxBytes = fetch.DefaultMaxBytes
	fs.StringArrayVarP(&f.headers, "header", "H", nil, "extra request header 'Name: value', sent only to the target URL's host (repeatable)")
	fs.StringVar(&f.user, "user", "", "Basic credentials 'user:password', sent only to the target URL's host")
	fs.StringVar(&f.netrc, "netrc", "", "netrc file with credentials per machine (default $NETRC or ~/.netrc if present; '-' for none)")
	fs.BoolVar(&f.insecure, "insecure", false, "do not verify TLS certificates")
	fs.BoolVar(&f.noCache, "no-cache", false, "do not use or update the on-disk HTTP cache")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "directory of the HTTP cache (default "+displayCacheDir()+")")
	fs.DurationVar(&f.timeout, "timeout", fetch.DefaultTimeout, "time limit for each try of fetching a document, body included")
	fs.DurationVar(&f.connectTimeout, "connect-timeout", fetch.DefaultConnectTimeout, "time limit for connecting and for the response headers")
	fs.IntVar(&f.retries, "retries", fetch.DefaultRetries, "retries after connection errors, 429 and 5xx responses")
	fs.DurationVar(&f.maxRetryWait, "max-retry-wait", fetch.DefaultMaxRetryWait, "longest wait before a retry, whatever a Retry-After header asks")
	fs.Float64Var(&f.rate, "rate", fetch.DefaultPerHostRate, "requests per second to one host (0 = unlimited); a host on this machine or a private network gets no limit unless this is given")
	fs.IntVar(&f.concurrency, "concurrency", fetch.DefaultPerHostConcurrency, "requests in flight to one host; a host on this machine or a private network gets 8 unless this is given")
	fs.StringVar(&f.userAgent, "user-agent", "", "User-Agent header (default rsx/"+version.String()+")")
	fs.Var(&f.maxBytes, "max-bytes", "largest document to read, e.g. 256MiB, 50MB, 1000000 (0 = default, -1 = unlimited; a local file: 1GiB unless set)")
}

// localDocumentLimit is the bound that --max-bytes sets on a document read
// from a local file or standard input, which fetch does not bound: the same
// limit with the same message (fetch.TooLargeError) as a fetched document.
// At fetch's default a file keeps the 1 GiB the decoder always allowed one.
// -1: no bound.
func (f *httpFlags) localDocumentLimit() int64 {
	switch {
	case f.maxBytes < 0:
		return -1
	case f.maxBytes == 0 || f.maxBytes == fetch.DefaultMaxBytes:
		return defaultLocalMaxBytes
	}
	return int64(f.maxBytes)
}

// defaultLocalMaxBytes bounds a local document when --max-bytes is left at
// its default: what the decoder allowed before --max-bytes applied to files.
const defaultLocalMaxBytes = 1 << 30

// documentDecoder are the decoder's options for documents bounded by
// --max-bytes (fetch's limit, or LimitReader for a file): the decoder's own
// size limit is off, so that the one that stops a document is --max-bytes
// and says so.
func documentDecoder() model.DecoderOptions { return model.DecoderOptions{MaxBytes: -1} }

func displayCacheDir() string {
	if d := fetch.DefaultCacheDir(); d != "" {
		return d
	}
	return "none"
}

// options turns the flags into fetch options, binding -H and --user to the
// hosts of targets (each as host:port, so they reach no other origin).
func (f *httpFlags) options(targets ...string) (fetch.Options, error) {
	o := fetch.DefaultOptions()
	o.Version = version.String()
	if f.userAgent != "" {
		if err := config.CheckHeaderValue(f.userAgent); err != nil {
			return o, fmt.Errorf("--user-agent %q: %w", f.userAgent, err)
		}
		o.UserAgent = f.userAgent
	}
	if f.timeout <= 0 || f.connectTimeout <= 0 {
		return o, errors.New("--timeout and --connect-timeout must be positive")
	}
	o.Timeout = f.timeout
	o.ConnectTimeout = f.connectTimeout
	if f.retries < 0 {
		return o, errors.New("--retries must not be negative")
	}
	o.Retries = f.retries
	if f.maxRetryWait <= 0 {
		return o, errors.New("--max-retry-wait must be positive")
	}
	o.MaxRetryWait = f.maxRetryWait
	o.OnWait = f.onWait
	if f.rate < 0 {
		return o, errors.New("--rate must not be negative")
	}
	o.PerHostRate = f.rate
	if f.concurrency < 1 {
		return o, errors.New("--concurrency must be at least 1")
	}
	o.PerHostConcurrency = f.concurrency
	// The one politeness policy, by kind of host (fetch.Options.Near): a
	// flag given applies to every host.
	if f.changed("rate") {
		o.Near.Rate = f.rate
	}
	if f.changed("concurrency") {
		o.Near.Concurrency = f.concurrency
	}
	o.OnThrottle = f.onThrottle
	o.MaxBytes = int64(f.maxBytes)
	o.Insecure = f.insecure
	o.NoCache = f.noCache
	o.Transport = f.transport
	if f.cacheDir != "" {
		o.CacheDir = f.cacheDir
	}
	if f.netrc != "" {
		o.Netrc = f.netrc
	}

	var hosts []string
	for _, t := range targets {
		u, err := url.Parse(t)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue // a local file, or not a URL: nothing to bind to
		}
		hosts = append(hosts, fetch.CanonicalHost(u))
	}
	if (len(f.headers) > 0 || f.user != "") && len(hosts) == 0 {
		return o, errors.New("-H/--header and --user need an http(s) target URL: they are sent only to its host")
	}
	for _, h := range f.headers {
		name, value, err := parseHeader(h)
		if err != nil {
			return o, err
		}
		for _, host := range hosts {
			o.Headers = append(o.Headers, fetch.HostHeader{Host: host, Name: name, Value: value})
		}
	}
	if f.user != "" {
		user, pass, ok := strings.Cut(f.user, ":")
		if !ok || user == "" {
			return o, errors.New("--user wants 'user:password'")
		}
		for _, host := range hosts {
			o.BasicAuth = append(o.BasicAuth, fetch.HostBasicAuth{Host: host, User: user, Password: pass})
		}
	}
	return o, nil
}

// changed tells whether the flag name was given on the command line.
func (f *httpFlags) changed(name string) bool { return f.fs != nil && f.fs.Changed(name) }

// politeLine is what a command says on standard error when a host's rate
// (or its robots.txt Crawl-delay) holds its requests back: once per host,
// so that a slow command is not taken for a slow network.
func politeLine(t fetch.Throttle) string {
	host := esc(t.Host)
	if t.CrawlDelay > 0 {
		return fmt.Sprintf("rsx: polite: one request every %v to %s, as its robots.txt Crawl-delay asks", t.CrawlDelay, host)
	}
	return fmt.Sprintf("rsx: polite: %s requests a second to %s (--rate changes it)", strconv.FormatFloat(t.Rate, 'f', -1, 64), host)
}

// client builds an HTTP client for a command whose targets are given.
func (f *httpFlags) client(targets ...string) (*fetch.Client, error) {
	o, err := f.options(targets...)
	if err != nil {
		return nil, err
	}
	c, err := fetch.NewClient(o)
	if err != nil {
		return nil, fmt.Errorf("set up HTTP client: %w", err)
	}
	return c, nil
}

// parseHeader splits "Name: value", checking that Name is a header name.
func parseHeader(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t\r\n\"(),/;<=>?@[\\]{}") {
		return "", "", fmt.Errorf("header %q: want 'Name: value'", s)
	}
	value = strings.TrimSpace(value)
	if err := config.CheckHeaderValue(value); err != nil {
		return "", "", fmt.Errorf("header %q: value %q: %w", name, value, err)
	}
	return http.CanonicalHeaderKey(name), value, nil
}

// byteSize is a flag value like "256MiB", "50MB", "1.5GiB" or "1000".
type byteSize int64

func (b *byteSize) String() string { return display.Size(int64(*b)) }
func (b *byteSize) Type() string   { return "size" }

func (b *byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

// parseByteSize is display.ParseSize, and -1 for no limit.
func parseByteSize(s string) (int64, error) {
	if strings.TrimSpace(s) == "-1" {
		return -1, nil
	}
	return display.ParseSize(s)
}
