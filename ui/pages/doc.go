// Package pages holds the pages of the explorer that need nothing of its
// root model but what they are given: the raw XML (with its lexer, search
// and pretty-printing), the HTTP exchanges, the discovery of a Source, the
// coverage of its change history, and a resource held to its claims (the
// resource page, with the versions of the resource and the diff of a
// version, and the links between them), a dump package downloaded and
// verified, and a local copy synced, audited or spot-checked (the sync,
// audit and spot check pages, which open a resource through the
// ResourceOpener the root gives them), and the notifications of the Source
// (read from the root's subscription through NotificationFeed).
//
// Each is a pointer type implementing nav.Page, built by a constructor from
// plain values (the Common, model and fetch values, a small interface of
// the backend); it asks the root to act with the messages of rsx/ui/nav and
// never imports rsx/ui. The root (rsx/ui) opens them: its openers
// (openers.go) read the document shown and pass on what the page needs.
//
// The other pages are still in rsx/ui, because they read its document or
// share unexported parts with pages that do (the package comment of rsx/ui
// says which, and what moving them needs).
package pages
