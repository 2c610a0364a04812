package engine

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"rsx/dest/pathmap"
	"rsx/display"
	"rsx/fetch"
)

// The bounds of one resource's fetch. A Source is not trusted to end what
// it sends: a resource that declares no length is bounded by Options.MaxSize,
// a body that drips by the stall timeout, and the whole fetch by
// Options.ResourceTimeout: by default a bound scaled by the resource's
// declared length, so that a Source whose bodies flow just fast enough to
// pass the stall timeout cannot hold a run (and the destination it shares
// with other Sources) for as long as it likes, while a large file on a slow
// link is not cut. Each failure names its limit and the flag of rsx sync
// that sets it.
const (
	// DefaultMaxSize is Options.MaxSize by default: the documents' limit
	// (rsx's --max-bytes).
	DefaultMaxSize = fetch.DefaultMaxBytes
	// DefaultStallTimeout is Options.StallTimeout by default.
	DefaultStallTimeout = time.Minute
	// StallRate is the fewest bytes a second, on average over the stall
	// timeout, that a body must bring: far below any working link, far
	// above a drip.
	StallRate = 1 << 10
	// DefaultResourceFloor and DefaultResourceRate make the default bound
	// of a resource's whole fetch (Options.ResourceTimeout 0): the floor,
	// which leaves room for the retries' waits (3 of at most a minute) and
	// the connections' timeouts, plus the time the declared length takes
	// at the rate, 32 KiB a second (256 kbit/s: slower than any link a
	// Source is worth copying over, 32 times the stall rate). A resource of
	// 100 MB has an hour (10 minutes and 51 more); one of 1 GiB, 9 hours 16
	// minutes; one that declares no length is given the time of --max-size
	// (256 MiB by default: 2 hours 26 minutes).
	DefaultResourceFloor = 10 * time.Minute
	DefaultResourceRate  = 32 << 10
	// NoResourceTimeout as Options.ResourceTimeout bounds no resource's
	// whole fetch (the stall timeout alone).
	NoResourceTimeout time.Duration = -1
)

// resourceTimeout is the bound of the whole fetch of a resource (or a
// dump's package) of the declared length (-1: none declared; limit is
// then what the body may bring); 0 for none.
func (o Options) resourceTimeout(declared, limit int64) time.Duration {
	switch {
	case o.ResourceTimeout > 0:
		return o.ResourceTimeout
	case o.ResourceTimeout < 0:
		return 0
	}
	n := declared
	if n < 0 {
		n = limit
		if n <= 0 {
			n = DefaultMaxSize
		}
	}
	floor, rate := o.resourceScale()
	secs := float64(n) / rate
	if secs > float64(1<<62)/float64(time.Second) {
		return 0 // beyond any clock: no bound worth keeping
	}
	return floor + time.Duration(secs*float64(time.Second))
}

// downloadOptions are the bounds of one resource's download: limit is what
// the verifier accepts (0: none), declared the resource's declared length
// (-1: none).
func (r *runner) downloadOptions(limit, declared int64) fetch.DownloadOptions {
	o := r.s.opts
	dl := fetch.DownloadOptions{IdleTimeout: o.StallTimeout, StallBytes: stallBytes(o.StallTimeout)}
	switch {
	case limit > 0:
		// The verifier stops the body first, and keeps what it read for
		// inspection; this bounds what a Content-Encoding brings in.
		dl.MaxBytes = limit + 1
	case o.MaxSize > 0:
		dl.MaxBytes = o.MaxSize
	}
	dl.Timeout = o.resourceTimeout(declared, dl.MaxBytes)
	return dl
}

func stallBytes(d time.Duration) int64 { return max(int64(d.Seconds()*StallRate), 2) }

// withRedirectRule holds the redirects of a resource's fetch to the
// authority rule its loc is held to: a redirect to a host the plan would not
// copy from (pathmap.Mapper.Allowed, or the loc's own host) is refused
// before any request is made there.
func (r *runner) withRedirectRule(ctx context.Context, uri string) context.Context {
	m := r.p.mapper // nil: the loc's own host only
	return fetch.WithRedirectCheck(ctx, func(from, to *url.URL) error {
		target := to.String()
		if (m != nil && m.Allowed(target)) || pathmap.SameAuthority(uri, target) {
			return nil
		}
		return &RedirectRefusedError{URI: uri, From: from.Redacted(), To: to.Redacted()}
	})
}

// RedirectRefusedError is a resource whose fetch was redirected to a host
// outside the Source's authority: the redirect was not followed.
type RedirectRefusedError struct {
	URI  string // the resource
	From string // the URL that answered with the redirect (the URI, or a hop after it)
	To   string // where it pointed
}

func (e *RedirectRefusedError) Error() string {
	by := ""
	if e.From != e.URI {
		by = " (by " + e.From + ")"
	}
	host := e.To
	if u, err := url.Parse(e.To); err == nil {
		host = u.Host
	}
	return fmt.Sprintf("redirected%s to %s, on %s, outside the Source's authority: not followed (--allow-other-hosts allows it)", by, e.To, host)
}

// limitError is a fetch a limit of the run stopped: its message names the
// limit and the flag; it wraps the fetch's own error.
type limitError struct {
	msg string
	err error
}

func (e *limitError) Error() string { return e.msg }
func (e *limitError) Unwrap() error { return e.err }

// explainLimit says which limit stopped a resource's download, and how to
// change it; other errors are returned as they are.
// declared is the resource's declared length, -1 when none.
func (r *runner) explainLimit(uri string, declared int64, err error) error {
	var (
		large *fetch.TooLargeError
		stall *fetch.IdleTimeoutError
		total *fetch.DownloadTimeoutError
	)
	o := r.s.opts
	switch {
	case errors.As(err, &large) && declared >= 0:
		return &limitError{fmt.Sprintf("GET %s: the body is longer than the %s bytes it declares: not read past %s, nothing of it kept", uri, display.Count(declared), display.Size(large.Limit)), err}
	case errors.As(err, &large):
		return &limitError{fmt.Sprintf("GET %s: the body is larger than %s, the limit for a resource that declares no length: nothing of it was kept (--max-size raises it)", uri, display.Size(large.Limit)), err}
	case errors.As(err, &total) && o.ResourceTimeout == 0:
		floor, rate := o.resourceScale()
		return &limitError{fmt.Sprintf("GET %s: not fetched within %v, the default bound of a resource%s (%v, and a second more for each %s declared; --resource-timeout sets another, 0 none)",
			uri, total.Limit.Round(time.Second), declaredWords(declared), floor, display.Size(int64(rate))), err}
	case errors.As(err, &total):
		return &limitError{fmt.Sprintf("GET %s: not fetched within %v (--resource-timeout)", uri, total.Limit), err}
	case errors.As(err, &stall):
		return &limitError{fmt.Sprintf("GET %s: stalled: less than %s of the body arrived in %v (--stall-timeout; a body must bring %s a second)", uri,
			display.Size(stallBytes(o.StallTimeout)), o.StallTimeout, display.Size(StallRate)), err}
	}
	return err
}

// answered reports a failure the Source did answer for (a redirect refused,
// a body too large): not a sign that it stopped answering.
func answered(err error) bool {
	var (
		refused *RedirectRefusedError
		large   *fetch.TooLargeError
	)
	return errors.As(err, &refused) || errors.As(err, &large)
}

// resourceScale is the floor and the rate of the default bound of a
// resource's fetch.
func (o Options) resourceScale() (time.Duration, float64) {
	floor, rate := DefaultResourceFloor, float64(DefaultResourceRate)
	if o.resourceFloor > 0 {
		floor = o.resourceFloor
	}
	if o.resourceRate > 0 {
		rate = o.resourceRate
	}
	return floor, rate
}

func declaredWords(declared int64) string {
	if declared < 0 {
		return " that declares no length"
	}
	return " of " + display.Size(declared)
}
