package ui

import (
	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/pages"

	tea "charm.land/bubbletea/v2"
)

// The problems page (rsx/ui/pages) reads a document's problems through
// docProblems; the root tells it when they change (broadcast turns
// docProblemsMsg into pages.ProblemsChangedMsg).

// docProblems is document d as the problems page reads it
// (pages.ProblemSource). Two of them are equal when their documents are.
type docProblems struct{ d *document }

// Problems are the load's problems and the cross-document ones.
func (s docProblems) Problems() (doc, cross []model.Problem) { return s.d.problems, s.d.cross }

// Counts are the exact counts of errors and warnings.
func (s docProblems) Counts() (errs, warns int) { return s.d.problemCounts() }

// StoredAll tells that every problem counted is stored.
func (s docProblems) StoredAll() bool { return s.d.problemsStoredAll() }

// Checking tells that the cross-document checks run.
func (s docProblems) Checking() bool { return s.d.crossChecking() }

// CrossErr is why the cross-document checks failed.
func (s docProblems) CrossErr() error { return s.d.crossErr }

// HasRaw tells that the document's XML is kept.
func (s docProblems) HasRaw() bool { return s.d.raw != nil }

// EntryURL is entry i's loc, resolved against the document's URL.
func (s docProblems) EntryURL(i int) (string, bool) {
	if i < 0 || i >= s.d.entries.Len() {
		return "", false
	}
	return model.ResolveHref(s.d.base(), s.d.entries.Loc(i)), true
}

// severityRank orders severities, errors first (the problems page's order).
func severityRank(s model.Severity) int { return pages.SeverityRank(s) }

// severityMark and withoutEntryPrefix are the problems page's, for the
// document page's detail pane.
func severityMark(st *common.Styles, s model.Severity) (string, string) {
	return pages.SeverityMark(st, s)
}

func withoutEntryPrefix(p *model.Problem) string { return pages.WithoutEntryPrefix(p) }

// forPages is the message the pages get for the root's msg: the pages of
// rsx/ui/pages know a document's problems changing as
// pages.ProblemsChangedMsg.
func forPages(msg tea.Msg) tea.Msg {
	if m, ok := msg.(docProblemsMsg); ok {
		return pages.ProblemsChangedMsg{Source: docProblems{m.doc}}
	}
	return msg
}
