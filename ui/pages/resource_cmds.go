package pages

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"rsx/claims"
	"rsx/session"
)

// resourceFetchKey names one download of a resource page: the page, the
// target (0 the primary resource, then mirrors) and the generation (a
// refetch makes earlier results stale).
type resourceFetchKey struct {
	session *resourceSession
	target  int
	gen     int
}

// resourceProgressMsg reports a download's progress; next waits for the
// following report.
type resourceProgressMsg struct {
	key         resourceFetchKey
	done, total int64
	next        tea.Cmd
}

// resourceDoneMsg reports a finished (or failed, or cancelled) check.
type resourceDoneMsg struct {
	key    resourceFetchKey
	result session.Inspection
}

// checkResourceCmd fetches target t and judges it against its claims
// through r. Progress comes back as resourceProgressMsg (the latest one
// wins when the UI is slower than the network), the end as resourceDoneMsg.
func checkResourceCmd(ctx context.Context, r Inspector, k resourceFetchKey, t claims.Target) tea.Cmd {
	progress := make(chan resourceProgressMsg, 1)
	done := make(chan resourceDoneMsg, 1)
	var wait tea.Cmd
	wait = func() tea.Msg {
		select {
		case m := <-done:
			return m
		case p := <-progress:
			p.next = wait
			return p
		}
	}
	return func() tea.Msg {
		go func() {
			report := func(n, total int64) {
				m := resourceProgressMsg{key: k, done: n, total: total}
				select {
				case progress <- m:
				default: // replace the report the UI has not taken yet
					select {
					case <-progress:
					default:
					}
					select {
					case progress <- m:
					default:
					}
				}
			}
			done <- resourceDoneMsg{key: k, result: r.InspectResource(ctx, t, report)}
		}()
		return wait()
	}
}
