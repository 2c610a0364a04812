package ui

import (
	"context"
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/crawl"
	"rsx/fetch"
	"rsx/model"
	"rsx/session"
	"rsx/ui/pages"
)

// Loading: the backend streams a document's header, entries and progress
// through a channel that a re-armed tea.Cmd listens on; handleLoad applies
// each event on the UI goroutine. A generation number drops the events of a
// load abandoned for a newer one.

// loadMsg is one event of a document load, sent from the backend's
// goroutine through a channel; next listens for the following one.
type loadMsg struct {
	doc  *document
	gen  int
	part int // index part for a combined view, -1 otherwise

	started  *loadStarted
	header   *model.Header
	batch    []model.Entry
	rows     *model.EntryTable // a part's rows so far (view of all parts)
	progress int64             // bytes read, -1 when not a progress event
	done     *session.LoadResult

	next tea.Cmd
}

type loadStarted struct {
	final string
	total int64
}

// chanSink forwards a load's events to the program through ch.
type chanSink struct {
	ctx  context.Context
	ch   chan<- loadMsg
	doc  *document
	gen  int
	part int
}

func (s *chanSink) send(m loadMsg) {
	m.doc, m.gen, m.part = s.doc, s.gen, s.part
	select {
	case s.ch <- m:
	case <-s.ctx.Done():
	}
}

func (s *chanSink) Started(final string, total int64, _ *fetch.Exchange) {
	s.send(loadMsg{started: &loadStarted{final: final, total: total}, progress: -1})
}
func (s *chanSink) Header(h model.Header) { s.send(loadMsg{header: &h, progress: -1}) }
func (s *chanSink) Entries(b []model.Entry) {
	s.send(loadMsg{batch: b, progress: -1})
}
func (s *chanSink) Progress(done int64)       { s.send(loadMsg{progress: max(done, 0)}) }
func (s *chanSink) Done(r session.LoadResult) { s.send(loadMsg{done: &r, progress: -1}) }

// listen waits for the next event of a load.
func listen(ctx context.Context, ch <-chan loadMsg) tea.Cmd {
	var self tea.Cmd
	self = func() tea.Msg {
		select {
		case m := <-ch:
			m.next = self
			return m
		case <-ctx.Done():
			return nil
		}
	}
	return self
}

// startLoad begins loading d (a single document).
func (a *App) startLoad(d *document) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel, d.loading, d.started = cancel, true, a.c.Clock()
	ch := make(chan loadMsg, 4)
	sink := &chanSink{ctx: ctx, ch: ch, doc: d, gen: d.gen, part: -1}
	b, url := a.backend, d.url
	run := func() tea.Msg {
		_ = b.LoadDocument(ctx, url, sink)
		return nil
	}
	return tea.Batch(run, listen(ctx, ch), a.tick())
}

// handleLoad applies one load event to its document.
func (a *App) handleLoad(m loadMsg) tea.Cmd {
	d := m.doc
	if d == nil || d.gen != m.gen || !d.loading {
		return nil
	}
	if m.part >= 0 {
		return a.handlePart(m)
	}
	current := d == a.doc
	var cmds []tea.Cmd
	switch {
	case m.started != nil:
		d.final = m.started.final
		d.total = m.started.total
	case m.header != nil:
		d.header = m.header
		if current {
			a.dv.refreshColumns()
		}
		if !d.isResourceSync() && d.header.Root == model.RootUnknown {
			// Not a Sitemap at all (HTML, a resource …): look for ResourceSync
			// from it instead.
			d.cancelLoad()
			d.loading = false
			d.err = fmt.Errorf("%s is not a ResourceSync document (its root element is <%s>)", d.base(), d.header.RootLocal)
			if !model.IsLocal(d.url) {
				return a.discover(d.url)
			}
			return nil
		}
		if current && d.crumbs == nil {
			cmds = append(cmds, a.findAncestors(d))
		}
		if current {
			a.setTrail() // a ResourceSync document: the path above it
		}
	case m.batch != nil:
		from := d.entries.Len()
		for i := range m.batch {
			d.entries.Append(&m.batch[i])
		}
		d.markCarried(from)
		if current {
			a.dv.entriesChanged(from)
			a.dv.showPicks()
		}
	case m.progress >= 0 && m.done == nil:
		d.bytes = m.progress
	case m.done != nil:
		r := m.done
		d.final = r.FinalURL
		if r.Header != nil {
			d.header = r.Header
		}
		d.bytes = r.Bytes
		d.raw = r.Raw
		d.exchange = r.Exchange
		d.problems = r.Problems
		d.nErrors, d.nWarns = r.Errors, r.Warnings
		d.err = r.Err
		return a.loadFinished(d)
	}
	cmds = append(cmds, m.next)
	return tea.Batch(cmds...)
}

// loadFinished ends d's load: its marks, its checks across documents, and
// on the page the sort and filter that waited for every row.
func (a *App) loadFinished(d *document) tea.Cmd {
	current := d == a.doc
	d.loading = false
	d.wait = retryWait{}
	d.cancelLoad()
	d.buildMarks()
	cmds := []tea.Cmd{a.startCrossCheck(d), a.startListedCheck(d)}
	if text := d.carriedText(); text != "" && current {
		a.flashInfo(text)
	}
	if current {
		cmds = append(cmds, a.dv.loadDone(), a.startLocal(d))
		if d.header != nil && d.crumbs == nil && d.parts == nil {
			cmds = append(cmds, a.findAncestors(d))
		}
		a.setTrail()
	}
	return tea.Batch(cmds...)
}

// crumbsMsg carries the ancestors of a document.
type crumbsMsg struct {
	doc    *document
	crumbs []Crumb
	err    error
}

// findAncestors looks for the document's path from the Source Description.
func (a *App) findAncestors(d *document) tea.Cmd {
	if d.header == nil || d.crumbs != nil {
		return nil
	}
	d.crumbs = []Crumb{} // looked for: not again
	b, base, h := a.backend, d.base(), d.header
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := b.Ancestors(ctx, base, h)
		return crumbsMsg{doc: d, crumbs: cs, err: err}
	}
}

// discoveryMsg carries the outcome of discovery from a URL.
type discoveryMsg struct {
	input string
	disc  *crawl.Discovery
	err   error
}

// discover runs discovery from url in a Cmd.
func (a *App) discover(url string) tea.Cmd {
	b := a.backend
	a.flashInfo("looking for ResourceSync from " + url + " … (esc cancels)")
	if a.discoverCancel != nil {
		a.discoverCancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	a.discoverCancel = cancel
	return tea.Batch(func() tea.Msg {
		defer cancel()
		d, err := b.Discover(ctx, url)
		if ctx.Err() == context.Canceled {
			return nil // esc: nobody waits for it any more
		}
		return discoveryMsg{input: url, disc: d, err: err}
	}, a.tick())
}

// discovered shows the outcome of discovery.
func (a *App) discovered(m discoveryMsg) tea.Cmd {
	a.flash = ""
	a.discoverCancel = nil
	if m.err != nil {
		a.flashError("discovery from " + m.input + " failed: " + m.err.Error())
		return nil
	}
	p := pages.NewDiscovery(a.c, m.disc)
	if d := a.doc; d != nil && d.url == m.input && !d.isResourceSync() {
		// Kept with the document, so that the history comes back to it.
		d.discoveryPage = p
	}
	return a.showPage(p)
}

// startCrossCheck checks the documents d lists against it, in the
// background.
func (a *App) startCrossCheck(d *document) tea.Cmd {
	if !d.wantsCrossCheck() || d.crossState != crossNone {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	d.crossState, d.crossCancel = crossChecking, cancel
	d.crossGen++
	d.crossCrumbs = len(d.crumbs) > 0
	b, url, above, gen := a.backend, d.base(), slices.Clone(d.crumbs), d.crossGen
	return tea.Batch(func() tea.Msg {
		defer cancel()
		ps, err := b.CrossCheck(ctx, url, above)
		return crossCheckedMsg{doc: d, gen: gen, problems: ps, err: err}
	}, a.tick())
}

// crumbsArrived starts the checks that wait for the documents above d: the
// check of d against them, and again the check of its entries when it ran
// without them (some checks need the Capability List above an index).
func (a *App) crumbsArrived(d *document) tea.Cmd {
	var again tea.Cmd
	if len(d.crumbs) > 0 && !d.crossCrumbs && d.crossState != crossNone {
		if d.crossCancel != nil {
			d.crossCancel()
			d.crossCancel = nil
		}
		d.crossState = crossNone
		again = a.startCrossCheck(d)
	}
	return tea.Batch(again, a.startListedCheck(d))
}

// startListedCheck checks d against the document that lists it (its last
// crumb), in the background: what rsx validate --recursive from there
// reports under d.
func (a *App) startListedCheck(d *document) tea.Cmd {
	if !d.wantsListedCheck() || d.upState != crossNone {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	d.upState, d.upCancel = crossChecking, cancel
	b, url, above := a.backend, d.base(), slices.Clone(d.crumbs)
	return tea.Batch(func() tea.Msg {
		defer cancel()
		ps, err := b.CrossCheckListed(ctx, url, above)
		return crossCheckedMsg{doc: d, listed: true, problems: ps, err: err}
	}, a.tick())
}

// crossChecked records the cross-document problems of a document and tells
// the pages.
func (a *App) crossChecked(m crossCheckedMsg) tea.Cmd {
	d := m.doc
	if d == nil {
		return nil
	}
	if m.listed {
		if d.upState != crossChecking {
			return nil
		}
		d.upCancel = nil
		d.upState = crossDone
		d.crossUp = m.problems
		if m.err != nil && len(m.problems) == 0 {
			d.upState = crossFailed
		}
	} else {
		if d.crossState != crossChecking || m.gen != d.crossGen {
			return nil
		}
		d.crossCancel = nil
		d.crossDown = m.problems
		d.crossErr = m.err
		d.crossState = crossDone
		if m.err != nil && len(m.problems) == 0 {
			d.crossState = crossFailed
		}
	}
	d.joinCross()
	d.buildMarks()
	return a.broadcast(docProblemsMsg{doc: d})
}

// checkWait looks for a wait of the document loading.
func (a *App) checkWait() {
	d := a.doc
	if d == nil {
		return
	}
	if !d.loading {
		d.wait = retryWait{}
		return
	}
	parts := map[string]bool{d.url: true}
	for _, p := range d.parts {
		parts[p] = true
	}
	d.wait = waitOf(a.backend.Exchanges(), func(u string) bool { return parts[u] })
}
