package ui

import (
	"time"

	"rsx/fetch"
	"rsx/ui/components"
)

// The wait before a request tries again is components.RetryWait; the root
// and the document page use it under these names.

// retryWait is a wait before a request tries again.
type retryWait struct{ components.RetryWait }

// waiting tells whether there is a wait.
func (w retryWait) waiting() bool { return w.Waiting() }

// text says the wait at now: "waiting 42s to try again (Retry-After)".
func (w retryWait) text(now time.Time) string { return w.Text(now) }

// waitOf finds, newest first, an exchange of a URL that ours accepts which
// waits to try again.
func waitOf(exs []*fetch.Exchange, ours func(url string) bool) retryWait {
	return retryWait{components.WaitOf(exs, ours)}
}
