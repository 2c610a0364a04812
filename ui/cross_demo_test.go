package ui

import (
	"io"
	"log"
	"rsx/ui/pages"
	"strings"
	"testing"

	"rsx/demo"
)

// TestBrokenDemoIndexShowsCrossProblems: in the broken demo, part 3 of
// dataset 1's Resource List Index is a Resource Dump, whose archives link
// points to the Resource List Archive. rsx validate --recursive reports
// index-child-capability and archives-link-capability (under the part);
// the explorer shows them on the index's row 3 (a mark), counts them in the
// status bar and lists them on the problems page, and the part shows them
// when opened, from the index or by its URL.
func TestBrokenDemoIndexShowsCrossProblems(t *testing.T) {
	prev := log.Writer()
	log.SetOutput(io.Discard)
	t.Cleanup(func() { log.SetOutput(prev) })
	base := shDemo(t, "", demo.Options{Broken: true})
	index := base + "/dataset1/resourcelist.xml"
	part := base + "/dataset1/resourcelist-0003.xml"

	a, d := shApp(t, index)
	if a.doc == nil || a.doc.crossState != crossDone {
		t.Fatalf("the index's cross-document checks did not end: %+v", a.doc)
	}
	if a.doc.markOf(2) != markHasError {
		t.Errorf("row 3 (the Resource Dump) has mark %d, want an error; cross %+v", a.doc.markOf(2), a.doc.cross)
	}
	errs, _ := a.doc.problemCounts()
	if errs != 3 {
		t.Errorf("%d errors counted, want the 404, index-child-capability and archives-link-capability; cross %+v", errs, a.doc.cross)
	}
	lines := strings.Split(d.screen(), "\n")
	if status := lines[len(lines)-2]; !strings.Contains(status, "✗ 3 errors") {
		t.Errorf("status bar %q", status)
	}
	d.keys("p")
	if s := d.screen(); !strings.Contains(s, "index-child-capability") || !strings.Contains(s, "this is a Resource Dump") || !strings.Contains(s, "archives-link-capability") {
		t.Errorf("the problems page does not list index-child-capability and archives-link-capability:\n%s", s)
	}
	d.keys("esc")

	// Opened from the index's row 3.
	a.dv.selectEntry(2)
	d.keys("enter")
	if a.doc == nil || a.doc.base() != part {
		t.Fatalf("enter on row 3 opened %v", a.doc)
	}
	checkPartShowsCross(t, a, d)

	// Opened by its URL: its index link leads to the index.
	a, d = shApp(t, part)
	checkPartShowsCross(t, a, d)
}

// checkPartShowsCross checks that the current document, part 3, counts and
// lists index-child-capability and archives-link-capability.
func checkPartShowsCross(t *testing.T, a *App, d *exDriver) {
	t.Helper()
	if a.doc.upState != crossDone {
		t.Fatalf("the part was not checked against its index (state %d, crumbs %+v)", a.doc.upState, a.doc.crumbs)
	}
	if errs, _ := a.doc.problemCounts(); errs != 2 {
		t.Errorf("the part counts %d errors, want 2 (index-child-capability, archives-link-capability); cross %+v", errs, a.doc.cross)
	}
	lines := strings.Split(d.screen(), "\n")
	if status := lines[len(lines)-2]; !strings.Contains(status, "✗ 2 errors") {
		t.Errorf("status bar %q", status)
	}
	d.keys("p")
	if s := d.screen(); !strings.Contains(s, "index-child-capability") || !strings.Contains(s, "archives-link-capability") {
		t.Errorf("the part's problems page does not list index-child-capability and archives-link-capability:\n%s", s)
	}
	d.keys("esc")
}

// TestProblemsPageKeepsItsPlaceWhenChecksEnd: the problems page of a
// document follows its problems as the cross-document checks end (each
// gives new copies of them); the problem selected stays selected.
func TestProblemsPageKeepsItsPlaceWhenChecksEnd(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, 40)
	d.keys("p")
	p, ok := a.active().(*pages.Problems)
	if !ok {
		t.Fatalf("not the problems page: %T", a.active())
	}
	d.keys("j j")
	want := p.Selected()
	if want == nil {
		t.Fatal("fixture: no problem selected after j j")
	}
	a.doc.crossUp = append(a.doc.crossUp[:0:0], a.doc.crossUp...)
	a.doc.joinCross()
	d.handle(docProblemsMsg{doc: a.doc})
	if got := p.Selected(); got == nil || *got != *want {
		t.Errorf("after the checks ended, %+v is selected, want %+v", got, want)
	}
}
