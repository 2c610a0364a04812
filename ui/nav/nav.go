// Package nav is the contract between the explorer's root model (rsx/ui)
// and the pages of rsx/ui/pages: the Page interface the root drives, and
// the messages a page sends to ask the root to act (open a URL, run
// discovery, show a page over it, copy, open a browser, flash a message,
// sync what an audit found).
// A page never navigates by itself.
package nav

import (
	"errors"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/session"
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
	// Close stops the page's background work; the page is not used again,
	// unless it is a Place: then leaving it closes it, and coming back to
	// it shows it again and calls Init again.
	Close()
}

// Place is a page that is a place of the explorer's history of its own, as
// a document is (the fleet page): opening a document from it pushes that
// document, esc there comes back to the page as it was left (its selection
// and scroll), and [ and ] move to it and from it. It is shown over the
// document that was open when it opened.
type Place interface {
	Page
	// PlaceKey names the place: a page of the same key opened again takes
	// the place of the one before it in the history.
	PlaceKey() string
}

// Returner is a page told that it is shown again, the page over it closed
// (esc): it may bring what it shows up to date (the audit page compares
// again when a sync over it changed the copy).
type Returner interface {
	Returned() tea.Cmd
}

// KeyHelper is a page whose help (?) lists more than its footer has room
// for: HelpBindings are every key of its own that works just now (movement
// too), KeyBindings the footer's choice of them. The help of a page that is
// no KeyHelper lists its KeyBindings.
type KeyHelper interface {
	HelpBindings() []key.Binding
}

// OpenURLMsg asks to open a URL (or a local file path) as a document: the
// root model loads it, pushes it on the history and shows the document page,
// or the discovery page when it is not a ResourceSync document.
//
// From is the document (or resource) whose link URL is: the root opens it
// only when Backend.FollowLink(From, URL) allows, so that a document from
// the network cannot make rsx read a local file. Every link followed sets
// it; "" is for a URL the user asked for themselves.
type OpenURLMsg struct {
	URL  string
	From string
}

// DiscoverMsg asks to run discovery from URL and show what it finds.
type DiscoverMsg struct {
	URL string
}

// CopyMsg asks to copy Text to the clipboard (OSC 52) and to tell the user
// that What ("URL", "entry URL") was copied.
type CopyMsg struct {
	Text string
	What string
}

// OpenBrowserMsg asks to open URL in the user's web browser.
type OpenBrowserMsg struct {
	URL string
}

// ShowRawLineMsg asks to show the raw XML page, over the page that asks, at
// Line (1-based), or at entry Entry's start tag when it is known (>= 0): the
// byte offset of the entry holds in the pretty-printed view too, and in a
// document written on one line.
type ShowRawLineMsg struct {
	Line  int
	Entry int
}

// PushMsg asks the root to show Page over the active page: esc comes back
// to the page that sent it.
type PushMsg struct{ Page Page }

// Push is the command that shows p over the page that returns it.
func Push(p Page) tea.Cmd { return Cmd(PushMsg{Page: p}) }

// FlashMsg shows a short message in the status bar until the next key.
// Err marks it as an error.
type FlashMsg struct {
	Text string
	Err  bool
}

// Flash is the command that shows text in the status bar until the next
// key.
func Flash(text string, isErr bool) tea.Cmd { return Cmd(FlashMsg{Text: text, Err: isErr}) }

// JumpToEntryMsg asks to show the current document with entry Index
// (0-based position in the document) selected, e.g. from a problem in the
// problems page. Return keeps the pages shown over the document aside: esc
// on the document page brings them back as they were.
type JumpToEntryMsg struct {
	Index  int
	Return bool
}

// SyncDiffsMsg asks to plan a sync of what an audit found different (Req
// names them, What says which in words); the plan page opens over the page
// that asks, and esc comes back to it.
type SyncDiffsMsg struct {
	Req  session.SyncRequest
	What string
}

// OpenSourceMsg asks to open a Source's Capability List (URL) with the
// local copy in Dest attached (the fleet page's enter).
type OpenSourceMsg struct {
	URL  string
	Dest string
}

// CopyChangedMsg tells that a sync ran into Dest: the states of the copy
// attached are computed again.
type CopyChangedMsg struct{ Dest string }

// ErrCancelled is the error of work the user cancelled (esc): a load of
// the root, or of a page.
var ErrCancelled = errors.New("cancelled (r reloads)")

// Cmd is the command that sends msg: a page returns Cmd(OpenURLMsg{URL: u})
// from Update.
func Cmd(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }
