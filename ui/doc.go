// Package ui is the bubbletea program of rsx: the explorer that walks a
// ResourceSync Source, and the pages that inspect what it finds.
//
// It does no I/O and holds no protocol logic of its own: it reads its live
// data (package session) and the judgement of resources (package claims)
// through the small interfaces of backend.go, and runs every blocking call
// in a tea.Cmd, so that Update never waits.
//
// # Shape
//
// App (app.go) is the root model. It owns the documents, the history and a
// stack of pages, and routes every message: global keys (ctrl+c, ?, q, :,
// [, ], esc) first, then the active page (the top of the stack, or the
// document page under it); input goes to the active page only, results of
// background work go to every open page, each dropping what is not its own.
// On tea.WindowSizeMsg, and when the theme changes, the root sizes every page
// once through SetSize. The root also holds the subscription to the open
// Source's notifications (notifications.go), which outlives the page that
// shows them: the status bar's indicator and the stale marks of documents
// come from it.
//
// The root's methods are in the app*.go files, one concern each: app.go
// (the model and the routing of Update), app_keys.go (keys, esc, the mouse,
// quitting), app_view.go (drawing the screen), app_pages.go (the stack of
// pages), app_open.go (opening pages over the document), app_navigate.go
// (documents and the history), app_load.go (loads, discovery, cross-checks),
// app_prompt.go (the ":" prompt and its commands), app_dest.go (syncs and
// audits), app_local.go (the local copy attached) and app_notify.go (the
// notification feed). A page's file holds only that page
// (TestAppMethodsInAppFiles keeps it so).
//
// Every page implements nav.Page. Package rsx/ui/nav is the contract
// between the root and the pages: that interface, and the messages a page
// sends to ask the root to act (the root's own requests, which only the
// document page sends, are in msgs.go). Every page but the document's is in
// rsx/ui/pages, which never imports this package (arch_test.go keeps it
// so): each is built from values and small interfaces of its own, which
// the root's Backend and types satisfy (the notifications page reads the
// root's feed, notifyFeed, through pages.NotificationFeed; the problems page
// a document through pages.ProblemSource, problems.go). The root opens them
// through openers.go, which reads the document shown and passes on what
// each page needs, and gives the sync, audit and spot check pages its
// resource opener as a function (pages.ResourceOpener).
//
// # The page still here
//
// The document page (page_document*.go) is the root's own view of a
// document: the root reads and sets its selection, filter and marks
// (dv.Selected, dv.chosenRows, dv.query, dv.returnTo), and it draws the
// document model (document.go, columns.go, sortfilter.go, marks.go,
// validity.go). It stays here with them. It shares with the pages of
// rsx/ui/pages only what they export: the retry wait (components.RetryWait,
// wait.go), and the problems page's severity marks and order (problems.go).
//
// What pages share is in rsx/ui/common: one KeyMap (all bindings; the help screen and the footers
// are drawn from it), one Styles (built once per theme) and the Common that
// carries them. Widgets are in rsx/ui/components: the list state every page
// moves with, the virtual table, the text input, the progress bar and the
// text helpers. Text a Source wrote (values, URLs, headers, member names,
// error messages quoting them) is drawn through components.Escape (or
// EscapeLine for a line of a text body), which is display.Escape, the one
// escaper of rsx; the table escapes its cells itself.
//
// # Adding a page
//
// A new page is one new file, <name>.go in rsx/ui/pages, holding its model
// (a pointer type implementing nav.Page) and a constructor, plus one line
// of registration:
//
//   - opened by a key over the document: {k.Name, openNamePage} in
//     pageOpeners (app_open.go), where openNamePage(pageContext) (in
//     openers.go) builds the page for the document shown, from what it
//     reads of it, or says why it cannot; a new key is a field and a line
//     in common.DefaultKeyMap, listed in a group of KeyMap.Groups
//     (TestHelpListsEveryKey fails otherwise);
//   - opened from another page: that page returns nav.Push(NewName(…));
//   - opened by the root for a message of its own: a case in App.request.
//
// A page reads keys from common.KeyMap with key.Matches, moves with a
// components.List (or Table), draws with common.Styles, runs every blocking
// call in a tea.Cmd whose result message carries the page (or a session
// pointer) so that the page drops results not its own, and asks the root to
// navigate with the messages of rsx/ui/nav.
package ui
