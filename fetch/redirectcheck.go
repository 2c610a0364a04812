package fetch

import (
	"context"
	"net/url"
)

// RedirectCheck decides, for one request, whether a redirect is followed:
// it is given the URL that answered with the redirect and the URL the
// redirect points to, before any request is made to the latter. A non-nil
// error refuses the redirect: the request fails with that error (wrapped,
// so that errors.As finds it), and the other URL is never asked.
type RedirectCheck func(from, to *url.URL) error

type redirectCheckKey struct{}

// WithRedirectCheck returns a context whose requests (Get, Head, Download)
// follow a redirect only when check allows it. The client's own rules (http
// and https only, no loops, at most MaxRedirects) apply first.
func WithRedirectCheck(ctx context.Context, check RedirectCheck) context.Context {
	return context.WithValue(ctx, redirectCheckKey{}, check)
}

// redirectCheckOf is the check a request's context carries, or nil.
func redirectCheckOf(ctx context.Context) RedirectCheck {
	check, _ := ctx.Value(redirectCheckKey{}).(RedirectCheck)
	return check
}
