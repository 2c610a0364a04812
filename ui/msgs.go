package ui

import "rsx/session"

// Messages that pages send to the root model. A page returns them from a
// tea.Cmd (msgCmd(openURLMsg{URL: u})); the root model acts on them and a
// page never navigates by itself.

// openURLMsg asks to open a URL (or a local file path) as a document: the
// root model loads it, pushes it on the history and shows the document page,
// or the discovery page when it is not a ResourceSync document.
//
// From is the document (or resource) whose link URL is: the root opens it
// only when Backend.FollowLink(From, URL) allows, so that a document from
// the network cannot make rsx read a local file. Every link followed sets
// it; "" is for a URL the user asked for themselves.
type openURLMsg struct {
	URL  string
	From string
}

// openResourceMsg asks to show the resource page for URL. Entry is the
// document entry that points at it (-1 when none, e.g. a mirror link).
type openResourceMsg struct {
	URL   string
	Entry int
}

// openPackageMsg asks to open the selected dump entry's package (the
// package page), as Enter does on a dump entry.
type openPackageMsg struct{}

// openManifestMsg asks to open the selected dump entry's manifest copy (its
// contents link) as a document, without downloading the package.
type openManifestMsg struct{}

// openAllPartsMsg asks to open every part of the index shown as one list.
type openAllPartsMsg struct{}

// followLinkMsg asks to open the document-level link Rel ("up", "index")
// of the document shown.
type followLinkMsg struct {
	Rel string
}

// reloadMsg asks to load the document shown again.
type reloadMsg struct{}

// discoverMsg asks to run discovery from URL and show what it finds.
type discoverMsg struct {
	URL string
}

// jumpToEntryMsg asks to show the current document with entry Index (0-based
// position in the document) selected, e.g. from a problem in the problems page.
// Return keeps the pages shown over the document aside: esc on the document
// page brings them back as they were.
type jumpToEntryMsg struct {
	Index  int
	Return bool
}

// showRawLineMsg asks to show the raw XML page, over the page that asks, at
// Line (1-based), or at entry Entry's start tag when it is known (>= 0): the
// byte offset of the entry holds in the pretty-printed view too, and in a
// document written on one line.
type showRawLineMsg struct {
	Line  int
	Entry int
}

// closeViewMsg asks to close the active page and go back to the one under it.
type closeViewMsg struct{}

// flashMsg shows a short message in the status bar until the next key.
// Err marks it as an error.
type flashMsg struct {
	Text string
	Err  bool
}

// copyMsg asks to copy Text to the clipboard (OSC 52) and to tell the user
// that What ("URL", "entry URL") was copied.
type copyMsg struct {
	Text string
	What string
}

// openBrowserMsg asks to open URL in the user's web browser.
type openBrowserMsg struct {
	URL string
}

// historyGoMsg asks to go back (or forward) in the history to position Pos,
// as a click on a breadcrumb does.
type historyGoMsg struct {
	Pos int
}

// syncDiffsMsg asks to plan a sync of what an audit found different; the
// plan page opens over the audit page, and esc comes back to it.
type syncDiffsMsg struct {
	req  session.SyncRequest
	what string
}

// copyChangedMsg tells that a sync ran into Dest: the states of the copy
// attached are computed again.
type copyChangedMsg struct{ Dest string }
