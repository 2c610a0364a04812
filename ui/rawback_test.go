package ui

import (
	"strings"
	"testing"
)

// In the explorer, esc on the raw view with a search active clears the
// search and stays; the next esc goes back to the document.
func TestRawEscClearsSearchFirst(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, 30)
	d.keys("x / l o c enter")
	if got := a.pageTitle(); !strings.HasSuffix(got, "Raw XML") || !strings.Contains(d.screen(), `"loc" 1/`) {
		t.Fatalf("search in the raw view: page %q\n%s", got, d.screen())
	}
	d.keys("esc")
	if got := a.pageTitle(); !strings.HasSuffix(got, "Raw XML") {
		t.Fatalf("esc with a search left the raw view: page %q", got)
	}
	if strings.Contains(d.screen(), `"loc"`) {
		t.Errorf("esc did not clear the search:\n%s", d.screen())
	}
	d.keys("esc")
	if !a.onDocument() {
		t.Errorf("the second esc did not go back to the document: %q", a.pageTitle())
	}
}
