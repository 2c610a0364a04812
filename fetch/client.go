package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Client gets documents and downloads over HTTP. It is safe for concurrent use.
//
// Retries are a small loop of its own rather than go-retryablehttp: every
// try has to pass the per-host limiter, redirects are followed by hand so
// credentials can be dropped when the host changes, and each try is counted
// in the Exchange — all of which sit awkwardly around retryablehttp's
// internal loop.
type Client struct {
	opts  Options
	hc    *http.Client
	cache *diskCache // nil when disabled
	netrc []netrcEntry
	hosts *hostLimits
	log   *exchangeLog
}

// Response is a document being received. Body streams the decoded body;
// the caller must Close it.
type Response struct {
	URL      string // final URL after redirects: the base for relative references
	Status   int
	Header   http.Header
	Body     io.ReadCloser
	Exchange *Exchange
}

// NewClient builds a client from o; see Options for the defaults.
func NewClient(o Options) (*Client, error) {
	o = o.withDefaults()
	c := &Client{
		opts:  o,
		hosts: newHostLimits(Limits{Rate: o.PerHostRate, Concurrency: o.PerHostConcurrency}, o.Near, o.OnThrottle),
		log:   &exchangeLog{max: o.MaxExchanges},
	}
	rt := o.Transport
	if rt == nil {
		rt = newTransport(o)
	}
	c.hc = &http.Client{
		Transport: rt,
		// Redirects are followed by hand, to record them and to decide
		// credentials per hop.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	if !o.NoCache {
		dir := o.CacheDir
		if dir == "" {
			dir = DefaultCacheDir()
		}
		if dir != "" {
			c.cache = &diskCache{dir: dir}
		}
	}
	if o.Netrc != "" && o.Netrc != "-" {
		entries, err := readNetrc(o.Netrc)
		if err != nil {
			return nil, err
		}
		c.netrc = entries
	}
	return c, nil
}

func newTransport(o Options) *http.Transport {
	dialer := &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   o.ConnectTimeout,
		ResponseHeaderTimeout: o.ConnectTimeout,
		ExpectContinueTimeout: time.Second,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   maxConcurrency(o),
		IdleConnTimeout:       90 * time.Second,
	}
	if o.Insecure {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // only when asked with --insecure
	}
	return t
}

// maxConcurrency is the most requests in flight to one host, of either kind.
func maxConcurrency(o Options) int {
	if o.Near != nil {
		return max(o.PerHostConcurrency, o.Near.Concurrency)
	}
	return o.PerHostConcurrency
}

// Exchanges returns copies of the recorded exchanges, oldest first.
func (c *Client) Exchanges() []*Exchange { return c.log.snapshot() }

// OnExchange adds a hook called with a copy of each exchange when it is
// finished (body read or closed, or failed). Hooks run on the goroutine that
// finished the exchange and must not block.
func (c *Client) OnExchange(f func(*Exchange)) { c.log.onExchange(f) }

// SetCrawlDelay spaces request starts to host by at least d, on top of
// PerHostRate. host is a name ("example.org"); a port, or a whole URL, is
// accepted and reduced to the name. There is no cap: the caller decides how
// long a robots.txt Crawl-delay it accepts.
func (c *Client) SetCrawlDelay(host string, d time.Duration) { c.hosts.setCrawlDelay(host, d) }

// Options returns the options in effect, defaults filled in.
func (c *Client) Options() Options { return c.opts }

// request says how one logical request is made.
type request struct {
	method         string
	timeout        time.Duration // per try, body included; 0 = none
	acceptEncoding string
	useCache       bool
	header         http.Header // extra request headers (DownloadOptions.Header)
	started        func()      // called when a try has its host's slot, before it is sent
}

// hop is the outcome of the last hop: a response whose body is still open.
type hop struct {
	resp    *http.Response
	url     *url.URL
	cancel  context.CancelFunc // ends the try's context; call after the body
	release func()             // frees the host slot
	cached  *cacheEntry        // the cached body, when the server answered 304
	expired func() bool        // whether the try's own timeout ran out
	hint    string             // what the final status means, when it is clear (StatusError.Hint)
}

func parseTarget(method, rawURL string) (*url.URL, error) {
	if meant := SchemeFor(rawURL); meant != "" {
		return nil, noSchemeError(method, rawURL, meant)
	}
	// A loc that is not strictly a URI (a stray "%") is requested as a
	// browser would send it.
	u, err := url.Parse(RequestURL(rawURL))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s %s: not an http or https URL", method, redactURL(u))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s %s: no host in URL", method, redactURL(u))
	}
	u.Fragment = ""
	u.RawFragment = ""
	return u, nil
}

// do makes a request, following redirects and retrying, and returns the
// final hop with its body open. The exchange is recorded from the start;
// on error it is finished.
func (c *Client) do(ctx context.Context, rawURL string, r request) (*hop, *Exchange, error) {
	ex := &Exchange{Method: r.method, URL: rawURL, Started: time.Now()}
	u, err := parseTarget(r.method, rawURL)
	if err != nil {
		c.log.add(ex)
		c.log.finish(ex, func(e *Exchange) { e.Err = err.Error() })
		return nil, ex, err
	}
	ex.URL = redactURL(u)
	ex.FinalURL = ex.URL
	c.log.add(ex)
	fail := func(err error) (*hop, *Exchange, error) {
		c.log.finish(ex, func(e *Exchange) { e.Err = err.Error() })
		return nil, ex, err
	}

	origin := u
	cur := u
	visited := map[string]bool{withoutUser(u): true}
	chain := []string{redactURL(u)}
	for {
		h, err := c.tryHop(ctx, ex, cur, origin, r)
		if err != nil {
			return fail(err)
		}
		resp := h.resp
		loc := resp.Header.Get("Location")
		if !isRedirect(resp.StatusCode) || loc == "" {
			c.log.update(ex, func(e *Exchange) {
				e.FinalURL = redactURL(cur)
				e.Status = resp.StatusCode
				e.StatusText = statusText(resp)
				e.ResponseHeader = resp.Header.Clone()
				e.TTFB = time.Since(e.Started)
			})
			return h, ex, nil
		}
		next, perr := cur.Parse(loc)
		discard(resp.Body)
		h.cancel()
		h.release()
		rd := Redirect{URL: redactURL(cur), Status: resp.StatusCode, Location: loc}
		if perr != nil {
			c.log.update(ex, func(e *Exchange) { e.Redirects = append(e.Redirects, rd) })
			return fail(fmt.Errorf("%s %s: bad redirect Location %q: %w", r.method, redactURL(cur), loc, perr))
		}
		next.Fragment, next.RawFragment = "", ""
		rd.To = redactURL(next)
		c.log.update(ex, func(e *Exchange) {
			e.Redirects = append(e.Redirects, rd)
			e.FinalURL = rd.To
		})
		if next.Scheme != "http" && next.Scheme != "https" {
			return fail(fmt.Errorf("%s %s: redirect to %s: not an http or https URL", r.method, redactURL(cur), rd.To))
		}
		chain = append(chain, rd.To)
		if visited[withoutUser(next)] {
			return fail(fmt.Errorf("%s %s: %w", r.method, ex.URL, &RedirectError{Chain: chain, Err: ErrRedirectLoop}))
		}
		if len(chain)-1 > c.opts.MaxRedirects {
			return fail(fmt.Errorf("%s %s: %w", r.method, ex.URL, &RedirectError{Chain: chain, Err: ErrTooManyRedirects, Limit: c.opts.MaxRedirects}))
		}
		if check := redirectCheckOf(ctx); check != nil {
			if err := check(cur, next); err != nil {
				return fail(fmt.Errorf("%s %s: %w", r.method, ex.URL, err))
			}
		}
		visited[withoutUser(next)] = true
		cur = next
	}
}

// tryHop requests one URL, retrying connection errors, 429 and 5xx.
func (c *Client) tryHop(ctx context.Context, ex *Exchange, u, origin *url.URL, r request) (*hop, error) {
	var cached *cacheMeta
	if r.useCache && c.cache != nil {
		cached = c.cache.lookup(redactURL(u))
	}
	for try := 1; ; try++ {
		release, err := c.hosts.acquire(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.method, redactURL(u), err)
		}
		if r.started != nil {
			r.started()
		}
		// One context per try, and its cancel kept: a context made and
		// replaced without being cancelled stays among its parent's
		// children (100 bytes a request, 100 MB at a million, issue 23).
		var tctx context.Context
		var cancel context.CancelFunc
		expired := func() bool { return false }
		if r.timeout > 0 {
			tctx, cancel = context.WithTimeout(ctx, r.timeout)
			deadlineCtx := tctx
			expired = func() bool { return ctx.Err() == nil && errors.Is(deadlineCtx.Err(), context.DeadlineExceeded) }
		} else {
			tctx, cancel = context.WithCancel(ctx)
		}
		req, err := http.NewRequestWithContext(tctx, r.method, withoutUser(u), nil)
		if err != nil {
			cancel()
			release()
			return nil, fmt.Errorf("%s %s: %w", r.method, redactURL(u), err)
		}
		req.Header = c.requestHeader(u, origin, r.acceptEncoding)
		for name, values := range r.header {
			req.Header[http.CanonicalHeaderKey(name)] = append([]string(nil), values...)
		}
		if host := req.Header.Get("Host"); host != "" {
			// net/http sends req.Host, not a Host header.
			req.Host = host
		}
		if cached != nil {
			if et := cached.Header.Get("ETag"); et != "" {
				req.Header.Set("If-None-Match", et)
			}
			if lm := cached.Header.Get("Last-Modified"); lm != "" {
				req.Header.Set("If-Modified-Since", lm)
			}
		}
		sent := redactHeader(req.Header)
		c.log.update(ex, func(e *Exchange) {
			e.Tries = try
			e.RequestHeader = sent
		})
		resp, err := c.hc.Do(req)
		if err != nil {
			cancel()
			release()
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%s %s: %w", r.method, redactURL(u), ctx.Err())
			}
			if expired() {
				err = fmt.Errorf("no complete response within %v: %w", r.timeout, err)
			}
			if refusedHere(u, err) {
				// Nothing listens on that port of this machine: a wrong
				// port, or a server not started. Trying again with back-off
				// only makes the answer late (13 s for a wrong port).
				return nil, fmt.Errorf("%s %s: %w (nothing listens there on this machine)", r.method, redactURL(u), err)
			}
			if hint, ok := schemeMismatch(u, err); ok {
				return nil, fmt.Errorf("%s %s: %w (%s)", r.method, redactURL(u), err, hint)
			}
			if try > c.opts.Retries || !retryableError(err) {
				return nil, fmt.Errorf("%s %s: %w%s", r.method, redactURL(u), err, afterTries(try))
			}
			d := c.backoff(try)
			if err := c.wait(ctx, ex, Wait{URL: redactURL(u), Reason: "back-off", Duration: d, Try: try}); err != nil {
				return nil, fmt.Errorf("%s %s: %w", r.method, redactURL(u), err)
			}
			continue
		}
		if retryableStatus(resp.StatusCode) && try <= c.opts.Retries {
			w := Wait{URL: redactURL(u), Status: resp.StatusCode, Reason: "back-off", Try: try}
			if asked, ok := retryAfter(resp.Header, time.Now()); ok {
				w.Reason, w.Asked, w.Duration = "Retry-After", asked, asked
			} else {
				w.Duration = c.backoff(try)
			}
			w.Duration = min(w.Duration, c.opts.MaxRetryWait)
			discard(resp.Body)
			cancel()
			release()
			if err := c.wait(ctx, ex, w); err != nil {
				return nil, fmt.Errorf("%s %s: %w", r.method, redactURL(u), err)
			}
			continue
		}
		h := &hop{resp: resp, url: u, cancel: cancel, release: release, expired: expired}
		h.hint, _ = httpsAnswer(u, resp)
		if cached != nil && resp.StatusCode == http.StatusNotModified {
			entry, err := c.cache.open(redactURL(u))
			if err != nil {
				// The entry went bad between the lookup and the answer:
				// ask again, unconditionally.
				discard(resp.Body)
				cancel()
				release()
				cached = nil
				try-- // not a failure of the server's
				continue
			}
			h.cached = entry
		}
		return h, nil
	}
}

func afterTries(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (after %d tries)", n)
}

// requestHeader builds the header for a request to u, reached from origin.
// Credentials and host-bound headers go only to their own host, and never
// over plain http after a redirect from https.
func (c *Client) requestHeader(u, origin *url.URL, acceptEncoding string) http.Header {
	h := http.Header{}
	h.Set("User-Agent", c.opts.UserAgent)
	if acceptEncoding != "" {
		h.Set("Accept-Encoding", acceptEncoding)
	}
	if origin.Scheme == "https" && u.Scheme != "https" {
		return h
	}
	// Lowest precedence first: later ones overwrite.
	if user, pass, ok := c.netrcFor(u); ok {
		h.Set("Authorization", basicAuth(user, pass))
	}
	for _, a := range c.opts.BasicAuth {
		if hostMatches(a.Host, u) {
			h.Set("Authorization", basicAuth(a.User, a.Password))
		}
	}
	if origin.User != nil && CanonicalHost(origin) == CanonicalHost(u) && origin.Scheme == u.Scheme {
		pass, _ := origin.User.Password()
		h.Set("Authorization", basicAuth(origin.User.Username(), pass))
	}
	set := map[string]bool{}
	for _, hh := range c.opts.Headers {
		if !hostMatches(hh.Host, u) {
			continue
		}
		name := http.CanonicalHeaderKey(hh.Name)
		if !set[name] {
			h.Del(name)
			set[name] = true
		}
		h.Add(name, hh.Value)
	}
	return h
}

func basicAuth(user, pass string) string {
	r := http.Request{Header: http.Header{}}
	r.SetBasicAuth(user, pass)
	return r.Header.Get("Authorization")
}

// withoutUser is u as a string without its user info, which is sent as a
// header instead, and only to its own host.
func withoutUser(u *url.URL) string {
	if u.User == nil {
		return u.String()
	}
	v := *u
	v.User = nil
	return v.String()
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

func retryableStatus(status int) bool {
	return status == http.StatusTooManyRequests ||
		(status >= 500 && status <= 599 && status != http.StatusNotImplemented)
}

// retryableError reports whether a failed round trip may succeed if tried
// again: not for certificate problems, unknown hosts or bad requests.
func retryableError(err error) bool {
	var (
		certErr    *tls.CertificateVerificationError
		unknownCA  x509.UnknownAuthorityError
		hostErr    x509.HostnameError
		invalidErr x509.CertificateInvalidError
		dnsErr     *net.DNSError
	)
	switch {
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &invalidErr):
		return false
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return false
	case strings.Contains(err.Error(), "unsupported protocol scheme"):
		return false
	}
	return true
}

// refusedHere reports whether err is a refused connection to a host on this
// machine: no retry can help it. Elsewhere a refusal may be a server that
// restarts, or a balancer between backends, and is retried.
func refusedHere(u *url.URL, err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) && loopbackHost(u.Hostname())
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, true
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// backoff is RetryWait doubled per retry, with ±20% jitter, capped.
func (c *Client) backoff(try int) time.Duration {
	d := c.opts.RetryWait
	for i := 1; i < try && d < c.opts.MaxRetryWait; i++ {
		d *= 2
	}
	d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	return min(d, c.opts.MaxRetryWait)
}

// wait waits w.Duration between two tries, or until ctx ends: it says so
// (Options.OnWait) and shows it on the exchange while it lasts.
func (c *Client) wait(ctx context.Context, ex *Exchange, w Wait) error {
	if w.Duration > 0 {
		until := time.Now().Add(w.Duration)
		c.log.update(ex, func(e *Exchange) { e.WaitingUntil, e.WaitReason = until, w.Reason })
		defer c.log.update(ex, func(e *Exchange) { e.WaitingUntil, e.WaitReason = time.Time{}, "" })
		if c.opts.OnWait != nil {
			c.opts.OnWait(w)
		}
	}
	return sleep(ctx, w.Duration)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting %v to retry: %w", d.Round(time.Millisecond), ctx.Err())
	}
}

// discard reads a little of a body we do not need, so the connection can be
// reused, and closes it.
func discard(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 64<<10)
	_ = body.Close()
}

// statusText is the reason phrase the server sent, or the standard one.
func statusText(resp *http.Response) string {
	if _, text, ok := strings.Cut(resp.Status, " "); ok && text != "" {
		return text
	}
	return http.StatusText(resp.StatusCode)
}
