package ui

import (
	"rsx/ui/nav"
)

// Messages that pages send to the root model. A page returns them from a
// tea.Cmd (msgCmd(openURLMsg{URL: u})); the root model acts on them and a
// page never navigates by itself.

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

// closeViewMsg asks to close the active page and go back to the one under it.
type closeViewMsg struct{}

// crumbGoMsg asks to show the ancestor Index of the current document (its
// crumbs), as a click on a breadcrumb does.
type crumbGoMsg struct {
	Index int
}

// The requests a page of rsx/ui/pages may send too are declared in
// rsx/ui/nav; the pages still in this package use these names for them.
type (
	openURLMsg     = nav.OpenURLMsg
	discoverMsg    = nav.DiscoverMsg
	copyMsg        = nav.CopyMsg
	openBrowserMsg = nav.OpenBrowserMsg
	showRawLineMsg = nav.ShowRawLineMsg
	pushPageMsg    = nav.PushMsg
	flashMsg       = nav.FlashMsg
	syncDiffsMsg   = nav.SyncDiffsMsg
	copyChangedMsg = nav.CopyChangedMsg
	jumpToEntryMsg = nav.JumpToEntryMsg
)
