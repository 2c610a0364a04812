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
// a body that drips by the stall timeout, and, when asked, the whole fetch
// by Options.ResourceTimeout. Each failure names its limit and the flag of
// rsx sync that sets it.
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
)

// downloadOptions are the bounds of one resource's download: limit is what
// the verifier accepts (0: none).
func (r *runner) downloadOptions(limit int64) fetch.DownloadOptions {
	o := r.s.opts
	dl := fetch.DownloadOptions{IdleTimeout: o.StallTimeout, StallBytes: stallBytes(o.StallTimeout), Timeout: o.ResourceTimeout}
	switch {
	case limit > 0:
		// The verifier stops the body first, and keeps what it read for
		// inspection; this bounds what a Content-Encoding brings in.
		dl.MaxBytes = limit + 1
	case o.MaxSize > 0:
		dl.MaxBytes = o.MaxSize
	}
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
