package components

import (
	"time"

	"rsx/fetch"
)

// A request that waits to try again (a 503 or 429 with Retry-After, or a
// back-off after a failure) says so on its exchange (fetch.Exchange's
// WaitingUntil and WaitReason) and nowhere else: the explorer reads the
// exchanges on each spinner tick while a document or a package loads, and
// the loading screen, the status bar and the package page say how long the
// wait still is. esc cancels the load, the wait with it.

// RetryWait is a wait before a request tries again.
type RetryWait struct {
	until  time.Time
	reason string // "Retry-After", "back-off"
}

// Waiting tells whether there is a wait.
func (w RetryWait) Waiting() bool { return !w.until.IsZero() }

// WaitOf finds, newest first, an exchange of a URL that ours accepts which
// waits to try again.
func WaitOf(exs []*fetch.Exchange, ours func(url string) bool) RetryWait {
	for i := len(exs) - 1; i >= 0; i-- {
		e := exs[i]
		if e != nil && !e.Done && !e.WaitingUntil.IsZero() && ours(e.URL) {
			return RetryWait{until: e.WaitingUntil, reason: e.WaitReason}
		}
	}
	return RetryWait{}
}

// Text says the wait at now: "waiting 42s to try again (Retry-After)".
func (w RetryWait) Text(now time.Time) string {
	s := "trying again"
	if left := w.until.Sub(now); left > 0 {
		s = "waiting " + left.Round(time.Second).String() + " to try again"
		if left < time.Second {
			s = "waiting 1s to try again"
		}
	}
	if w.reason != "" {
		s += " (" + Escape(w.reason) + ")"
	}
	return s
}
