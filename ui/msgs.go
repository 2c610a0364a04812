package ui

// Messages that views send to the root model. A view returns them from a
// tea.Cmd (func() tea.Msg { return openURLMsg{URL: u} }); the root model acts
// on them and the view never navigates by itself.

// openURLMsg asks to open a URL (or a local file path) as a document: the
// root model loads it, pushes it on the history and shows the document view,
// or the discovery view when it is not a ResourceSync document.
type openURLMsg struct {
	URL string
}

// openResourceMsg asks to show the resource view for URL. Entry is the
// document entry that points at it (-1 when none, e.g. a mirror link).
// openPackageMsg asks the root to open the selected dump entry's package
// (the package view), the same thing Enter does on a dump entry.
type openPackageMsg struct{}

type openResourceMsg struct {
	URL   string
	Entry int
}

// jumpToEntryMsg asks to show the current document with entry Index (0-based
// position in the document) selected, e.g. from a problem in the problems view.
type jumpToEntryMsg struct {
	Index int
}

// closeViewMsg asks to close the current inspector page and go back to the
// page under it (usually the document view).
type closeViewMsg struct{}

// flashMsg shows a short message in the status bar until the next key.
// Err marks it as an error.
type flashMsg struct {
	Text string
	Err  bool
}

// copyMsg asks to copy Text to the clipboard (OSC 52) and to tell the user
// that What ("URL", "hash") was copied.
type copyMsg struct {
	Text string
	What string
}

// openBrowserMsg asks to open URL in the user's web browser.
type openBrowserMsg struct {
	URL string
}
