package fetch

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Exchange records one request made through a Client (Get, Head or
// Download), across its redirects and retries, for an HTTP view.
//
// The Exchange a Response points to is updated while the body is read (its
// Bytes, then Done, Duration and Err when the body ends), possibly on
// another goroutine: Open decompresses a gzip body ahead of its reader. Read
// its fields after closing the body, or take a copy with Snapshot (or
// Client.Exchanges) at any time.
type Exchange struct {
	Method   string
	URL      string // as asked for, password redacted
	FinalURL string // after redirects

	// RequestHeader is the last request's header as sent, with credentials
	// redacted ("Basic …(redacted)").
	RequestHeader  http.Header
	Redirects      []Redirect
	Status         int // of the last response; 304 when revalidated from cache
	StatusText     string
	ResponseHeader http.Header
	Tries          int // tries of the last hop (1 without retries)

	Started  time.Time
	TTFB     time.Duration // from Started to the final response's headers
	Duration time.Duration // from Started to the end of the body (or the failure)

	// Bytes counts body bytes read: as received on the wire (before any
	// gzip decoding), or read from the cache when FromCache.
	Bytes int64

	FromCache   bool // the body came from the on-disk cache
	Revalidated bool // the server answered 304 to a conditional request
	Done        bool // the body is finished (read to the end, closed or failed)
	Err         string

	// WaitingUntil is set while the exchange waits to try again: when the
	// next try starts. WaitReason says why ("Retry-After", "back-off").
	WaitingUntil time.Time
	WaitReason   string

	// guard is the mutex of the client's record, under which the client
	// updates this exchange; nil for an exchange nothing updates (a copy).
	guard *sync.Mutex
}

// Snapshot returns a copy of e as it is now, which nothing updates. It is
// safe to call while e's body is read on another goroutine.
func (e *Exchange) Snapshot() *Exchange {
	if e == nil {
		return nil
	}
	if g := e.guard; g != nil {
		g.Lock()
		defer g.Unlock()
	}
	return e.clone()
}

// Wait is a wait between two tries of a request (Options.OnWait).
type Wait struct {
	URL      string        // the URL being fetched
	Status   int           // the status that is retried; 0 after a connection error
	Reason   string        // "Retry-After" (the server asked) or "back-off"
	Duration time.Duration // how long rsx waits
	// Asked is what a Retry-After header asked for; more than Duration
	// when Options.MaxRetryWait capped it.
	Asked time.Duration
	Try   int // the try that failed (1 for the first)
}

// String says the wait in words: "waiting 1m0s before trying
// http://… again (503; Retry-After asked 1h0m0s, capped)".
func (w Wait) String() string {
	why := w.Reason
	if w.Status != 0 {
		why = strconv.Itoa(w.Status) + "; " + why
	}
	if w.Asked > w.Duration {
		why += " asked " + w.Asked.String() + ", capped"
	}
	return fmt.Sprintf("waiting %v before trying %s again (%s)", w.Duration.Round(time.Millisecond), w.URL, why)
}

// Redirect is one hop of a redirect chain.
type Redirect struct {
	URL      string // the URL that answered with a redirect
	Status   int
	Location string // the Location header as sent
	To       string // Location resolved against URL
}

// clone returns a deep copy, safe to hand out while the original is
// updated; the caller holds e's guard.
func (e *Exchange) clone() *Exchange {
	c := *e
	c.guard = nil
	c.RequestHeader = e.RequestHeader.Clone()
	c.ResponseHeader = e.ResponseHeader.Clone()
	c.Redirects = append([]Redirect(nil), e.Redirects...)
	return &c
}

// exchangeLog is a bounded ring of the latest exchanges. Its mutex also
// guards every field of the exchanges it holds.
type exchangeLog struct {
	mu    sync.Mutex
	max   int
	ring  []*Exchange
	next  int // where the next one goes once the ring is full
	hooks []func(*Exchange)
}

// add records e; from then on e is changed only under the log's mutex
// (update, finish), which Exchange.Snapshot takes too.
func (l *exchangeLog) add(e *Exchange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e.guard = &l.mu
	if len(l.ring) < l.max {
		l.ring = append(l.ring, e)
		return
	}
	l.ring[l.next] = e
	l.next = (l.next + 1) % l.max
}

// update changes e under the lock.
func (l *exchangeLog) update(e *Exchange, f func(*Exchange)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(e)
}

// finish marks e done, under the lock, and tells the hooks.
func (l *exchangeLog) finish(e *Exchange, f func(*Exchange)) {
	l.mu.Lock()
	if e.Done {
		l.mu.Unlock()
		return
	}
	if f != nil {
		f(e)
	}
	e.Done = true
	e.Duration = time.Since(e.Started)
	hooks := slices.Clone(l.hooks)
	snap := e.clone()
	l.mu.Unlock()
	for _, h := range hooks {
		h(snap)
	}
}

func (l *exchangeLog) snapshot() []*Exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*Exchange, 0, len(l.ring))
	for i := range l.ring {
		out = append(out, l.ring[(l.next+i)%len(l.ring)].clone())
	}
	return out
}

func (l *exchangeLog) onExchange(f func(*Exchange)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hooks = append(l.hooks, f)
}

// sensitiveHeaders have their values redacted in records.
var sensitiveHeaders = [...]string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"}

// redactHeader copies h with credentials replaced: an auth scheme keeps its
// name ("Bearer …(redacted)"), other values become "…(redacted)". Headers
// named like a token or key are redacted too.
func redactHeader(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	for name, vals := range out {
		if !isSensitiveHeader(name) {
			continue
		}
		red := make([]string, len(vals))
		for i, v := range vals {
			red[i] = redactValue(name, v)
		}
		out[name] = red
	}
	return out
}

func isSensitiveHeader(name string) bool {
	for _, s := range sensitiveHeaders {
		if strings.EqualFold(name, s) {
			return true
		}
	}
	l := strings.ToLower(name)
	return strings.Contains(l, "token") || strings.Contains(l, "api-key") ||
		strings.Contains(l, "apikey") || strings.Contains(l, "secret") || strings.Contains(l, "password")
}

func redactValue(name, v string) string {
	if strings.HasSuffix(strings.ToLower(name), "authorization") {
		if scheme, _, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
			return scheme + " …(redacted)"
		}
	}
	return "…(redacted)"
}

// redactURL hides a password in u's user info.
func redactURL(u *url.URL) string { return u.Redacted() }
