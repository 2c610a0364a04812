package ui

import (
	"slices"
	"sort"

	"rsx/model"
)

// One truth about validity: a document's problems are those its load found
// and, for a document that lists others (a Source Description, a Capability
// List, an index), those found across documents, which the root checks in
// the background once the load is done. The status bar's counts, the
// table's marks and the problems page all read them from the document.

// crossState is where the cross-document checks of a document stand.
type crossState uint8

const (
	crossNone     crossState = iota // not a document that lists others, or not checked
	crossChecking                   // running
	crossDone                       // done: cross holds what they found
	crossFailed                     // could not be done: crossErr says why
)

// Marks of entries with problems, the worst first.
const (
	markNoProblem uint8 = iota
	markHasWarning
	markHasError
)

// crossCheckedMsg carries the cross-document problems of a document: about
// its entries, or (listed) about the document as its parent lists it.
type crossCheckedMsg struct {
	doc      *document
	gen      int // document.crossGen when the check started
	listed   bool
	problems []model.Problem
	err      error
}

// docProblemsMsg tells the open pages that a document's problems changed
// (the cross-document checks ended).
type docProblemsMsg struct{ doc *document }

// problemCounts counts errors and warnings: the load's exact counts plus
// the cross-document problems.
func (d *document) problemCounts() (errs, warns int) {
	errs, warns = model.CountProblems(d.cross)
	return d.nErrors + errs, d.nWarns + warns
}

// wantsCrossCheck tells whether the document lists other documents that
// the cross-document checks load (not for local files: their links are
// not followed from here).
func (d *document) wantsCrossCheck() bool {
	return !d.loading && d.err == nil && d.header != nil && d.parts == nil && d.entriesAreDocuments() && !model.IsLocal(d.url)
}

// wantsListedCheck tells whether the document has a parent that lists it
// (the last of its crumbs: the document it was opened from, or its index or
// up link), against which the cross-document checks judge it.
func (d *document) wantsListedCheck() bool {
	return !d.loading && d.err == nil && d.header != nil && d.parts == nil && len(d.crumbs) > 0 && !model.IsLocal(d.url)
}

// crossChecking tells whether a cross-document check of the document runs.
func (d *document) crossChecking() bool {
	return d.crossState == crossChecking || d.upState == crossChecking
}

// joinCross sets cross from the problems of both checks.
func (d *document) joinCross() {
	d.cross = append(slices.Clip(d.crossDown), d.crossUp...)
}

// buildMarks records which entries have problems, from the problems stored
// by the load and the cross-document ones.
func (d *document) buildMarks() {
	d.marks, d.byEntry = nil, nil
	n := d.entries.Len()
	for _, ps := range [][]model.Problem{d.problems, d.cross} {
		for _, p := range ps {
			if p.Entry < 0 || p.Entry >= n {
				continue
			}
			if d.marks == nil {
				d.marks = make([]uint8, n)
			}
			m := markHasWarning
			if p.Severity == model.SeverityError {
				m = markHasError
			}
			d.marks[p.Entry] = max(d.marks[p.Entry], m)
			if d.byEntry == nil {
				d.byEntry = map[int32][]model.Problem{}
			}
			d.byEntry[int32(p.Entry)] = append(d.byEntry[int32(p.Entry)], p)
		}
	}
	for _, ps := range d.byEntry {
		sort.SliceStable(ps, func(i, j int) bool { return severityRank(ps[i].Severity) < severityRank(ps[j].Severity) })
	}
}

// problemsOf returns entry i's problems, the load's and those across
// documents, errors first: what the problems page lists for it.
func (d *document) problemsOf(i int) []model.Problem { return d.byEntry[int32(i)] }

// markOf is entry i's mark.
func (d *document) markOf(i int) uint8 {
	if i < 0 || i >= len(d.marks) {
		return markNoProblem
	}
	return d.marks[i]
}

// problemsStoredAll tells whether every problem counted is stored (the
// checker stores the first ones of a very faulty document only).
func (d *document) problemsStoredAll() bool {
	return len(d.problems) >= d.nErrors+d.nWarns
}

// stopCrossCheck cancels the cross-document checks in flight.
func (d *document) stopCrossCheck() {
	if d.crossCancel != nil {
		d.crossCancel()
		d.crossCancel = nil
		if d.crossState == crossChecking {
			d.crossState = crossNone
		}
	}
	if d.upCancel != nil {
		d.upCancel()
		d.upCancel = nil
		if d.upState == crossChecking {
			d.upState = crossNone
		}
	}
}
