package fetch

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"rsx/display"
	"strings"
	"time"
)

// StatusError reports a final response that is not 2xx. Get returns it
// together with the Response, whose body still holds the error page.
type StatusError struct {
	Method     string // "GET" when empty
	URL        string
	Status     int
	StatusText string // e.g. "Service Unavailable"
	Tries      int
	// Hint says what the status means when that is clear: a 400 of a TLS
	// server to plain http names the https:// URL to try.
	Hint string
}

func (e *StatusError) Error() string {
	m := e.Method
	if m == "" {
		m = http.MethodGet
	}
	text := e.StatusText
	if text == "" {
		text = http.StatusText(e.Status)
	}
	s := fmt.Sprintf("%s %s: %d %s", m, e.URL, e.Status, text)
	if e.Tries > 1 {
		s += fmt.Sprintf(" (after %d tries)", e.Tries)
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// TooLargeError reports a body longer than the limit.
type TooLargeError struct {
	URL   string
	Limit int64
}

// Error says that the size limit was reached, which limit (the
// --max-bytes of the command line, which Options.MaxBytes and LimitReader
// take) and how to raise it. Every command and the explorer show this text
// for a document cut short by the limit (issue 27).
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: the size limit was reached: the document is larger than %s (%d bytes), the limit of --max-bytes; raise it, e.g. --max-bytes %s, or --max-bytes -1 for no limit",
		e.URL, display.Size(e.Limit), e.Limit, strings.ReplaceAll(display.Size(2*e.Limit), " ", ""))
}

// LimitReader reads r, and fails with a *TooLargeError naming name once r
// would give more than limit bytes (limit ≤ 0: no bound). It is the bound
// Get puts on a body, for a document that does not come from Get: a local
// file, standard input.
func LimitReader(r io.Reader, limit int64, name string) io.Reader {
	if limit <= 0 {
		return r
	}
	return &limitReader{r: r, left: limit, err: &TooLargeError{URL: name, Limit: limit}}
}

type limitReader struct {
	r    io.Reader
	left int64 // bytes that may still be given
	err  *TooLargeError
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, l.err
	}
	// Read one byte more than allowed, to tell a body of exactly the limit
	// from a longer one.
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	if int64(n) > l.left {
		n = int(l.left)
		l.left = -1
		return n, l.err
	}
	l.left -= int64(n)
	return n, err
}

// Sentinels wrapped by *RedirectError.
var (
	ErrRedirectLoop     = errors.New("redirect loop")
	ErrTooManyRedirects = errors.New("too many redirects")
)

// RedirectError reports a redirect chain that was not followed to its end.
// errors.Is matches ErrRedirectLoop or ErrTooManyRedirects.
type RedirectError struct {
	Chain []string // the URLs visited, then the one that was refused
	Err   error    // ErrRedirectLoop or ErrTooManyRedirects
	Limit int      // MaxRedirects, for ErrTooManyRedirects
}

func (e *RedirectError) Error() string {
	chain := strings.Join(e.Chain, " → ")
	if errors.Is(e.Err, ErrTooManyRedirects) {
		return fmt.Sprintf("more than %d redirects: %s", e.Limit, chain)
	}
	return fmt.Sprintf("%v: %s", e.Err, chain)
}

func (e *RedirectError) Unwrap() error { return e.Err }

// IdleTimeoutError reports a download that received no byte for Idle, or,
// when Min is more than 1, fewer than Min bytes in a stretch of Idle (it
// stalled: DownloadOptions.StallBytes).
type IdleTimeoutError struct {
	URL  string
	Idle time.Duration
	Min  int64
}

func (e *IdleTimeoutError) Error() string {
	if e.Min > 1 {
		return fmt.Sprintf("%s: stalled: less than %s of the body arrived in %v", e.URL, display.Size(e.Min), e.Idle)
	}
	return fmt.Sprintf("%s: no data received for %v", e.URL, e.Idle)
}

// Timeout lets net.Error-style checks see it as a timeout.
func (e *IdleTimeoutError) Timeout() bool { return true }

// DownloadTimeoutError reports a download not done within its Timeout
// (DownloadOptions.Timeout).
type DownloadTimeoutError struct {
	URL   string
	Limit time.Duration
}

func (e *DownloadTimeoutError) Error() string {
	return fmt.Sprintf("%s: not downloaded within %v", e.URL, e.Limit)
}

// Timeout lets net.Error-style checks see it as a timeout.
func (e *DownloadTimeoutError) Timeout() bool { return true }
