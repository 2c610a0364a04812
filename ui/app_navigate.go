package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"rsx/crawl"
	"rsx/model"
)

// Navigation: opening documents (from the cache or loading them), the
// history, and links followed from the document shown.

// open shows the document of p: from the cache when it is there, else
// loading it. record adds it to the history.
func (a *App) open(p place, record bool) tea.Cmd {
	p.url = strings.TrimSpace(p.url)
	if p.page != nil {
		return a.openPlacePage(p, record)
	}
	if p.url == "" {
		return nil
	}
	a.leavePages(p, record)
	if record {
		// (Moves in the history saved the selection before moving.)
		a.saveSelection()
		a.hist.visit(p)
	}
	key := p.docKey()
	if d := a.cache.get(key); d != nil && (d.loading || d.err == nil || d.discoveryPage != nil) {
		a.show(d, p.selected)
		if d.discoveryPage != nil && !d.isResourceSync() {
			// Not a ResourceSync document: what discovery found from it, as
			// it was left.
			return a.pushPage(d.discoveryPage)
		}
		if p.crumbs != nil && len(d.crumbs) == 0 {
			d.crumbs = p.crumbs
			a.setTrail()
		}
		cmd := tea.Batch(a.findAncestors(d), a.startCrossCheck(d), a.startListedCheck(d), a.startLocal(d))
		if d.loading {
			return tea.Batch(cmd, a.tick())
		}
		return cmd
	}
	return a.load(p)
}

// load fetches p's document afresh.
func (a *App) load(p place) tea.Cmd {
	delete(a.stale, p.docKey()) // loaded afresh
	a.gen++
	d := newDocument(p.url, a.gen)
	if a.wholeTables {
		d.entries = model.NewEntryTable()
	}
	d.crumbs = p.crumbs
	if p.combined {
		idx := a.cache.get(docKey(p.url, false))
		if idx == nil || idx.header == nil {
			// The index is not at hand: open it first.
			p.combined = false
			return a.load(p)
		}
		d.header = idx.header
		d.final = idx.final
		d.exchange = idx.exchange
		d.crumbs = append(append([]Crumb(nil), idx.crumbs...), Crumb{URL: idx.base(), Capability: idx.capability(), Root: idx.root()})
		n := idx.entries.Len()
		d.parts = make([]string, n)
		for i := range n {
			d.parts[i] = model.ResolveHref(idx.base(), idx.entries.Loc(i))
		}
		a.cache.put(p.docKey(), d)
		a.show(d, p.selected)
		return a.startCombinedLoad(d)
	}
	a.cache.put(p.docKey(), d)
	a.show(d, p.selected)
	return a.startLoad(d)
}

// show makes d the current document, selected the entry under the cursor
// (-1: the first).
func (a *App) show(d *document, selected int) {
	if a.dv != nil {
		a.dv.Close()
	}
	a.doc = d
	a.dv = newDocPage(a.c, d)
	a.dv.notes = a.notes
	a.dv.keys = a.keysNow
	a.setTrail()
	a.dv.SetSize(a.width, a.height)
	a.dv.entriesChanged(0)
	if selected >= 0 {
		a.dv.selectEntry(selected)
	}
}

// setTrail gives the document page its breadcrumbs: the path from the
// Source Description down to the document, through the index and up links
// as far as they were found (findAncestors; a document opened from its
// parent inherits the parent's path), each named by its document type, and
// a part of an index by its number when the index is at hand. Ancestors
// that could not be found are marked, never left out silently.
func (a *App) setTrail() {
	if a.dv == nil || a.doc == nil {
		return
	}
	d := a.doc
	a.dv.path, a.dv.selfLabel = nil, ""
	if d.header == nil || !d.isResourceSync() {
		return // a document still loading, failed, or no ResourceSync: only its own name
	}
	var path []trailCrumb
	switch top := a.pathTop(d); {
	case top == pathLooking:
		path = append(path, trailCrumb{label: "…", pos: -1, unknown: true})
	case top == pathUnreachable:
		path = append(path, trailCrumb{label: "? unreachable", pos: -1, unknown: true})
	case top == pathUnknown:
		path = append(path, trailCrumb{label: "? unknown", pos: -1, unknown: true})
	}
	for i, c := range d.crumbs {
		label := crumbLabel(c)
		if a.stale[docKey(c.URL, false)] {
			label += staleMark
		}
		path = append(path, trailCrumb{label: label, pos: i})
	}
	a.dv.path = path
	if n := len(d.crumbs); n > 0 && d.parts == nil && d.crumbs[n-1].Root == model.RootSitemapIndex {
		if part := a.partNumber(d.crumbs[n-1].URL, d); part > 0 {
			a.dv.selfLabel = fmt.Sprintf("part %d", part)
		}
	}
}

// pathState says how the path above a document begins.
type pathState int

const (
	pathComplete    pathState = iota // at the Source Description
	pathLooking                      // the links are being followed
	pathUnknown                      // no link leads further up (or may not be followed)
	pathUnreachable                  // a document on the way could not be read
)

// pathTop tells whether d's crumbs reach its Source Description.
func (a *App) pathTop(d *document) pathState {
	top := d.capability()
	if len(d.crumbs) > 0 {
		top = d.crumbs[0].Capability
	}
	switch {
	case top == model.CapDescription:
		return pathComplete
	case len(d.crumbs) == 0 && !d.ancestorsDone:
		return pathLooking
	case d.ancestorsErr != nil:
		return pathUnreachable
	case len(d.crumbs) > 0 && !d.ancestorsDone:
		// A path handed down from the parent: it stops where the parent's
		// did, for the parent's reason.
		if top := a.cache.docs[docKey(d.crumbs[0].URL, false)]; top != nil && top.ancestorsErr != nil {
			return pathUnreachable
		}
	}
	return pathUnknown
}

// partNumber is the 1-based position of d among the parts of the index at
// indexURL, when that index is at hand; 0 when it is not, or does not list d.
func (a *App) partNumber(indexURL string, d *document) int {
	idx := a.cache.docs[docKey(indexURL, false)]
	if idx == nil {
		return 0
	}
	want := map[string]bool{crawl.NormalizeURL(d.url): true, crawl.NormalizeURL(d.base()): true}
	for i := range idx.entries.Len() {
		if want[crawl.NormalizeURL(model.ResolveHref(idx.base(), idx.entries.Loc(i)))] {
			return i + 1
		}
	}
	return 0
}

// goToCrumb shows ancestor i of the current document (a click on its
// breadcrumb): back in the history when it is there, where it was left,
// else opened as a new visit with the path above it.
func (a *App) goToCrumb(i int) tea.Cmd {
	d := a.doc
	if d == nil || i < 0 || i >= len(d.crumbs) {
		return nil
	}
	c := d.crumbs[i]
	key := docKey(c.URL, false)
	for pos := a.hist.pos - 1; pos >= 0; pos-- {
		if a.hist.places[pos].key() == key {
			return a.goTo(pos)
		}
	}
	return a.open(place{url: c.URL, crumbs: append([]Crumb{}, d.crumbs[:i]...), selected: -1}, true)
}

// goTo moves to position pos of the history (a click on a breadcrumb).
func (a *App) goTo(pos int) tea.Cmd {
	if pos < 0 || pos >= len(a.hist.places) || pos == a.hist.pos {
		return nil
	}
	a.saveSelection()
	a.hist.pos = pos
	return a.open(a.hist.places[pos], false)
}

// saveSelection remembers where the cursor is in the current document.
func (a *App) saveSelection() {
	if a.doc != nil {
		a.hist.remember(a.dv.Selected())
	}
}

// reload loads the current document again, bypassing the document cache.
func (a *App) reload() tea.Cmd {
	if a.doc == nil {
		return nil
	}
	d := a.doc
	d.cancelLoad()
	p := place{url: d.url, combined: d.parts != nil, crumbs: d.crumbs, selected: a.dv.Selected()}
	a.cache.remove(p.docKey())
	if d.parts == nil { // (the parts of a combined view are reloaded, keeping the index)
		a.hist.visit(p)
	}
	cmd := a.load(p)
	if a.doc != d {
		a.doc.carryMarks(d)
	}
	return cmd
}

// goBack moves back in the history.
func (a *App) goBack() tea.Cmd {
	a.saveSelection()
	p, ok := a.hist.back()
	if !ok {
		a.flashInfo("at the start of the history")
		return nil
	}
	left := a.left
	a.left = nil
	cmd := a.open(p, false)
	if left != nil && left.key == p.key() && a.doc != nil {
		// Back where a page opened the document from: the pages, as they
		// were. (What open pushed is the discovery of a URL that is no
		// ResourceSync document, kept on its document: nothing to close.)
		a.pages = left.pages
		for _, pg := range a.pages {
			pg.SetSize(a.width, max(a.height-pageChrome, 1))
		}
		return tea.Batch(cmd, a.returned())
	}
	if left != nil {
		left.close()
	}
	return cmd
}

// leftPages are pages set aside when a document was opened from them, with
// the key of the place they were over.
type leftPages struct {
	key   string
	pages []Page
}

func (l *leftPages) close() {
	for _, p := range l.pages {
		p.Close()
	}
}

// leavePages closes the pages over the document before another place is
// shown, or, when a new document is visited from one of them (record: not
// a move in the history), sets them aside, so that going back shows them
// again: esc after M on the package page comes back to the package.
func (a *App) leavePages(to place, record bool) {
	a.dropLeft()
	cur, ok := a.hist.current()
	// (A page that is a place of its own is left as any place is: going
	// back to it shows it again, the pages over it gone.)
	if record && ok && len(a.pages) > 0 && cur.key() != to.key() && cur.page == nil {
		a.left = &leftPages{key: cur.key(), pages: a.pages}
		a.pages = nil
		a.dropParked()
		return
	}
	a.closePages()
}

// dropLeft closes the pages set aside by leavePages.
func (a *App) dropLeft() {
	if a.left != nil {
		a.left.close()
		a.left = nil
	}
}

func (a *App) goForward() tea.Cmd {
	a.saveSelection()
	p, ok := a.hist.forward()
	if !ok {
		a.flashInfo("at the end of the history")
		return nil
	}
	return a.open(p, false)
}

// childCrumbs are the crumbs of a document opened from the current one.
func (a *App) childCrumbs() []Crumb {
	d := a.doc
	if d == nil {
		return nil
	}
	if d.parts != nil {
		return append([]Crumb(nil), d.crumbs...)
	}
	return append(append([]Crumb(nil), d.crumbs...), Crumb{URL: d.base(), Capability: d.capability(), Root: d.root()})
}

// followLink opens the document-level link rel of the current document,
// with the crumbs above it when it is one of the ancestors.
func (a *App) followLink(rel string) tea.Cmd {
	d := a.doc
	if d == nil || d.header == nil {
		return nil
	}
	u := d.link(rel)
	if u == "" {
		a.flashError("this document has no " + rel + " link")
		return nil
	}
	if !a.mayFollow(d.base(), u) {
		return nil
	}
	p := place{url: u, selected: -1}
	for i, c := range d.crumbs {
		if crawl.NormalizeURL(c.URL) == crawl.NormalizeURL(u) {
			p.crumbs = append([]Crumb{}, d.crumbs[:i]...)
			break
		}
	}
	return a.open(p, true)
}

// childCrumbsFor gives the crumbs for a URL opened from the page shown:
// below the current document when it is one of its entries' targets.
func (a *App) childCrumbsFor(u string) []Crumb {
	if a.doc == nil || a.doc.header == nil {
		return nil
	}
	for i, c := range a.doc.crumbs {
		if crawl.NormalizeURL(c.URL) == crawl.NormalizeURL(u) {
			return append([]Crumb{}, a.doc.crumbs[:i]...)
		}
	}
	if len(a.pages) == 0 && (a.doc.entriesAreDocuments() || a.doc.entriesArePackages()) {
		return a.childCrumbs()
	}
	return nil
}
