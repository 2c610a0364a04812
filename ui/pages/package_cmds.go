package pages

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"rsx/dump"
	"rsx/model"
	"rsx/session"
)

// The commands of the package page: each runs a blocking call of the
// session's package load (download, verification, the manifest copy) in a
// goroutine and reports its progress and end as messages; Update only reads
// the messages. The load's temporary file is the session's to remove.

// packageRun is one verification of a loaded package: esc cancels it
// without closing the package, and r starts another.
type packageRun struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// packageProgressMsg reports the bytes of a download or of a verification;
// next waits for the following report.
type packageProgressMsg struct {
	load        *session.PackageLoad
	run         *packageRun // the verification reporting, nil for the download
	done, total int64
	next        tea.Cmd
}

// packageFetchedMsg ends a download: the package (held by the load) or why
// there is none, and how the bytes compare with the dump entry.
type packageFetchedMsg struct {
	load *session.PackageLoad
	session.PackageFetched
}

// packageVerifiedMsg ends a verification.
type packageVerifiedMsg struct {
	load *session.PackageLoad
	run  *packageRun
	res  *dump.Result
	err  error
}

// packageContentsMsg carries the comparison with the manifest copy.
type packageContentsMsg struct {
	load  *session.PackageLoad
	diffs []string
	err   error
}

// progressRelay delivers the latest progress report to the UI: a report
// the UI has not taken yet is replaced by a newer one.
type progressRelay struct {
	ch chan packageProgressMsg
}

func newProgressRelay() progressRelay { return progressRelay{ch: make(chan packageProgressMsg, 1)} }

func (r progressRelay) report(m packageProgressMsg) {
	for range 2 {
		select {
		case r.ch <- m:
			return
		default:
			select {
			case <-r.ch:
			default:
			}
		}
	}
}

// waitPackage waits for the next progress report or the end, whichever comes
// first. The work always ends with a message (cancelled work too), so the
// waiting ends with it.
func waitPackage(relay progressRelay, done <-chan tea.Msg) tea.Cmd {
	var wait tea.Cmd
	wait = func() tea.Msg {
		select {
		case m := <-done:
			return m
		case p := <-relay.ch:
			p.next = wait
			return p
		}
	}
	return wait
}

// fetchPackageCmd downloads the package of load l and opens it. A
// cancelled or closed load leaves nothing behind.
func fetchPackageCmd(l *session.PackageLoad) tea.Cmd {
	relay := newProgressRelay()
	done := make(chan tea.Msg, 1)
	run := func() tea.Msg {
		go func() {
			f := l.Download(func(n, total int64) {
				relay.report(packageProgressMsg{load: l, done: n, total: total})
			})
			done <- packageFetchedMsg{load: l, PackageFetched: f}
		}()
		return nil
	}
	return tea.Batch(run, waitPackage(relay, done))
}

// verifyPackageCmd verifies every bitstream of l's package, reporting
// progress.
func verifyPackageCmd(l *session.PackageLoad, r *packageRun) tea.Cmd {
	relay := newProgressRelay()
	done := make(chan tea.Msg, 1)
	run := func() tea.Msg {
		go func() {
			res, err := l.Verify(r.ctx, func(n, total int64) {
				relay.report(packageProgressMsg{load: l, run: r, done: n, total: total})
			})
			done <- packageVerifiedMsg{load: l, run: r, res: res, err: err}
		}()
		return nil
	}
	return tea.Batch(run, waitPackage(relay, done))
}

// contentsCmd fetches the manifest copy a dump entry's contents link points
// at and compares it with the manifest in l's package.
func contentsCmd(l *session.PackageLoad, url string) tea.Cmd {
	return func() tea.Msg {
		diffs, err := l.CompareContents(url)
		return packageContentsMsg{load: l, diffs: diffs, err: err}
	}
}

// LooksLikePackage tells whether a target typed at the prompt names a ZIP
// package rather than a document.
func LooksLikePackage(target string) bool {
	t := strings.ToLower(strings.TrimSpace(target))
	if i := strings.IndexAny(t, "?#"); i >= 0 && !model.IsLocal(target) {
		t = t[:i]
	}
	return strings.HasSuffix(t, ".zip")
}
