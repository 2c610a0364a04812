package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"rsx/ui/nav"
)

// The stack of pages over the document page: which one is active, showing
// one over another, closing them, and setting them aside while the user
// looks at an entry (park).

// active is the page that has the keyboard: the top of the stack, else the
// document page; nil when nothing is open.
func (a *App) active() Page {
	if n := len(a.pages); n > 0 {
		return a.pages[n-1]
	}
	if a.dv != nil {
		return a.dv
	}
	return nil
}

// onDocument tells that the document page is the active page.
func (a *App) onDocument() bool { return len(a.pages) == 0 && a.dv != nil }

// pushPage shows p over the active page.
func (a *App) pushPage(p Page) tea.Cmd {
	p.SetSize(a.width, max(a.height-pageChrome, 1))
	a.pages = append(a.pages, p)
	return tea.Batch(p.Init(), a.tick())
}

// showPage shows p over the document page, in place of any other page
// (over the page of the place shown, when it is a page: the fleet page).
func (a *App) showPage(p Page) tea.Cmd {
	a.closeOverPlace()
	return a.pushPage(p)
}

// popPage closes the active page over the document.
func (a *App) popPage() {
	if n := len(a.pages); n > 0 {
		a.pages[n-1].Close()
		a.pages[n-1] = nil
		a.pages = a.pages[:n-1]
	}
}

// placePage is the page of the place shown when that place is a page (the
// fleet page) and it is the first page over the document; nil otherwise.
func (a *App) placePage() Page {
	cur, ok := a.hist.current()
	if !ok || cur.page == nil || len(a.pages) == 0 || a.pages[0] != Page(cur.page) {
		return nil
	}
	return a.pages[0]
}

// closeOverPlace closes the pages over the page of the place shown (every
// page, when the place is a document), and those set aside.
func (a *App) closeOverPlace() {
	keep := 0
	if a.placePage() != nil {
		keep = 1
	}
	for len(a.pages) > keep {
		a.popPage()
	}
	a.dropParked()
}

// popOrLeave closes the active page; the page of the place shown (the
// fleet page) is left as a document is: back in the history.
func (a *App) popOrLeave() tea.Cmd {
	if len(a.pages) == 1 && a.placePage() != nil {
		if !a.hist.canBack() {
			a.flashInfo("at the start of the history — q quits")
			return nil
		}
		return a.goBack()
	}
	a.popPage()
	return a.returned()
}

// returned tells the page shown again, once the page over it closed, that
// it is shown again (nav.Returner).
func (a *App) returned() tea.Cmd {
	if r, ok := a.active().(nav.Returner); ok && len(a.pages) > 0 {
		return r.Returned()
	}
	return nil
}

// openPlacePage shows the page of p, a place that is a page, over the
// document of p: recorded in the history (record), or moved to in it. It is
// shown again as it was left, and started again (Init).
func (a *App) openPlacePage(p place, record bool) tea.Cmd {
	if record {
		a.saveSelection()
		a.hist.visit(p)
	}
	a.dropLeft()
	a.closePages()
	var cmd tea.Cmd
	if under := p.under(); under.url != "" && (a.doc == nil || docKey(a.doc.url, a.doc.parts != nil) != under.docKey()) {
		cmd = a.open(under, false)
		a.closePages() // (a discovery kept on the document under it)
	}
	return tea.Batch(cmd, a.pushPage(p.page))
}

// showPlace opens pg, a page that is a place of its own (the fleet page),
// over the document shown, as a new place of the history.
func (a *App) showPlace(pg nav.Place) tea.Cmd {
	p := place{selected: -1, page: pg}
	if d := a.doc; d != nil {
		p.url, p.combined, p.crumbs = d.url, d.parts != nil, d.crumbs
		if a.dv != nil {
			p.selected = a.dv.Selected()
		}
	}
	return a.open(p, true)
}

// closePages closes every page over the document, and those set aside.
func (a *App) closePages() {
	for len(a.pages) > 0 {
		a.popPage()
	}
	a.dropParked()
}

// park sets the pages over the document aside (the document page shows
// the way back to them).
func (a *App) park() {
	a.dropParked()
	a.parked, a.pages = a.pages, nil
	if a.dv != nil && len(a.parked) > 0 {
		a.dv.returnTo = a.parked[len(a.parked)-1].Title()
	}
}

// unpark shows the pages set aside again, as they were.
func (a *App) unpark() {
	a.pages, a.parked = a.parked, nil
	if a.dv != nil {
		a.dv.returnTo = ""
	}
	for _, p := range a.pages {
		p.SetSize(a.width, max(a.height-pageChrome, 1))
	}
}

// dropParked closes the pages set aside: the way back to them is gone.
func (a *App) dropParked() {
	for _, p := range a.parked {
		p.Close()
	}
	a.parked = nil
	if a.dv != nil {
		a.dv.returnTo = ""
	}
}

// pageTitle names the pages over the document ("Package › Resource").
func (a *App) pageTitle() string {
	titles := make([]string, len(a.pages))
	for i, p := range a.pages {
		titles[i] = p.Title()
	}
	return strings.Join(titles, crumbSep)
}
