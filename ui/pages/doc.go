// Package pages holds the pages of the explorer, all but the document page
// (the root's own view of a document, in rsx/ui): the raw XML (with its
// lexer, search and pretty-printing), the HTTP exchanges, the discovery of
// a Source, the coverage of its change history, a resource held to its
// claims (the resource page, with the versions of the resource and the diff
// of a version, and the links between them), a dump package downloaded and
// verified, a local copy synced, audited or spot-checked, the notifications
// of the Source and the problems of a document.
//
// Each is a pointer type implementing nav.Page, built by a constructor from
// plain values (the Common, model and fetch values) and small interfaces
// of its own (a part of the backend, ResourceOpener, NotificationFeed, the
// ProblemSource of a document), which rsx/ui's Backend and types satisfy;
// it asks the root to act with the messages of rsx/ui/nav and never imports
// rsx/ui (arch_test.go keeps it so). The root (rsx/ui) opens them: its
// openers (openers.go) read the document shown and pass on what the page
// needs.
//
// The tests run each page as a whole program (harness_test.go); their
// fakes shared with rsx/ui's tests are in rsx/ui/internal/uitest.
package pages
