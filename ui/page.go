package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/nav"
	"rsx/ui/pages"
)

// Page is a screen of the explorer (nav.Page): the pages still in this
// package use the short name until they move to rsx/ui/pages.
type Page = nav.Page

// pageContext is what opening a page may read: the shared Common, the
// backend and the document shown (nil when none).
type pageContext struct {
	c        *common.Common
	backend  Backend
	doc      *document
	view     *docPage // the document's page (its filter, sort and marks), nil when none
	selected int      // the entry under the cursor, -1 when none
	notes    *notifyFeed
	// notesHint is Options.NotificationsHint.
	notesHint string
}

// pageOpener opens a page over the document when its key is pressed.
// open builds the page for the document shown, or returns the command that
// leads to it, or an error that says why it cannot (shown in the status bar).
type pageOpener struct {
	key  key.Binding
	open func(pageContext) (Page, tea.Cmd, error)
	// ready says why open would refuse the document shown, without
	// building anything: the help lists only the keys that work (nil:
	// open refuses only when nothing is open).
	ready func(pageContext) error
}

// pushPage is the command that shows p over the page that returns it.
func pushPage(p Page) tea.Cmd { return nav.Push(p) }

// msgCmd wraps a message in a command.
func msgCmd(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// flashCmd shows text in the status bar until the next key.
func flashCmd(text string, isErr bool) tea.Cmd { return nav.Flash(text, isErr) }

// guardedPage is a page whose work leaving it would stop (a sync running):
// the root neither navigates away nor quits while it says why not.
type guardedPage interface {
	LeaveGuard() string
}

// resourceOpener opens a resource's view over the page that asks, held to
// the claims of its entry in the document (when it has one).
type resourceOpener struct {
	c      *common.Common
	b      pages.ResourceBackend
	origin string
	entry  func(uri string) model.Entry
}

// open shows uri's resource view; esc comes back.
func (o resourceOpener) open(uri string) tea.Cmd {
	if o.b == nil || uri == "" {
		return nil
	}
	e := model.Entry{Loc: uri, HasLoc: true}
	if o.entry != nil {
		e = o.entry(uri)
	}
	origin := o.origin
	if origin == "" {
		origin = uri
	}
	return pushPage(pages.NewResource(o.c, o.b, origin, e))
}
