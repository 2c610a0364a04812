package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/model"
	"rsx/ui/common"
)

// Page is a screen of the explorer: the document page, or a page shown over
// it (raw XML, HTTP, problems, resource, versions, diff, discovery,
// package). Pages are pointer types; Update returns the page itself.
type Page interface {
	// Init returns the page's first command (a load, a download), or nil.
	Init() tea.Cmd
	// Update handles keys and the mouse when the page is active, and the
	// results of its own commands at any time.
	Update(tea.Msg) (Page, tea.Cmd)
	// View draws the page in the size SetSize gave.
	View() string
	// SetSize lays the page out for w×h cells. The root calls it when the
	// page opens, when the terminal is resized and when the theme changes.
	SetSize(w, h int)
	// KeyBindings are the page's own bindings, for its help group and
	// footer (the key map's global ones are always listed).
	KeyBindings() []key.Binding
	// Title names the page in the tab line.
	Title() string
	// InputActive tells that a text input has the keyboard: every key but
	// ctrl+c then goes to the page.
	InputActive() bool
	// Busy tells that background work runs (the spinner turns).
	Busy() bool
	// Back is esc: the page cancels its work or clears its state and
	// reports true, or reports false and is closed.
	Back() (handled bool, cmd tea.Cmd)
	// Close stops the page's background work; the page is not used again.
	Close()
}

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
}

// pushPageMsg asks the root to show Page over the active page (esc comes
// back to it).
type pushPageMsg struct{ Page Page }

// pushPage is the command that shows p over the page that returns it.
func pushPage(p Page) tea.Cmd { return msgCmd(pushPageMsg{Page: p}) }

// msgCmd wraps a message in a command.
func msgCmd(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// flashCmd shows text in the status bar until the next key.
func flashCmd(text string, isErr bool) tea.Cmd { return msgCmd(flashMsg{Text: text, Err: isErr}) }

// guardedPage is a page whose work leaving it would stop (a sync running):
// the root neither navigates away nor quits while it says why not.
type guardedPage interface {
	LeaveGuard() string
}

// resourceOpener opens a resource's view over the page that asks, held to
// the claims of its entry in the document (when it has one).
type resourceOpener struct {
	c      *common.Common
	b      resourceBackend
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
	return pushPage(newResourcePage(o.c, o.b, origin, e))
}
