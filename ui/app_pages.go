package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
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

// showPage shows p over the document page, in place of any other page.
func (a *App) showPage(p Page) tea.Cmd {
	a.closePages()
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
