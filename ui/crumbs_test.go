package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestBreadcrumbsPathFromSourceDescription: the breadcrumbs are the path
// from the Source Description down to the document, found through its
// index and up links however it was opened; ancestors that cannot be found
// are marked as such (no link further up, or a document on the way that
// could not be read), never left out silently.
func TestBreadcrumbsPathFromSourceDescription(t *testing.T) {
	urlset := func(md, links string) string {
		return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
` + md + links + `<url><loc>` + exHost + `/res/1.html</loc></url></urlset>`
	}
	ln := func(rel, href string) string { return fmt.Sprintf(`<rs:ln rel=%q href="%s%s"/>`, rel, exHost, href) }
	g := newExGetter()
	g.docs["/orphan.xml"] = urlset(`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`, "")
	g.docs["/lost.xml"] = urlset(`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`, ln("up", "/gone.xml"))
	g.docs["/dataset2/index.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>` + ln("up", "/gone.xml") + `
<sitemap><loc>` + exHost + `/dataset2/rl-1.xml</loc></sitemap></sitemapindex>`
	g.docs["/dataset2/rl-1.xml"] = urlset(`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`, ln("index", "/dataset2/index.xml"))

	for _, tc := range []struct {
		target, keys, want string
	}{
		{"/.well-known/resourcesync", "", "Source Description"},
		{"/dataset1/changelist.xml", "", "Source Description › Capability List › Change List"},
		{"/dataset1/resourcelist-2.xml", "", "Source Description › Capability List › Resource List Index › Resource List"},
		{"/dataset1/resourcelist-index.xml", "j enter", "Source Description › Capability List › Resource List Index › part 2"},
		// The path, not the way here: the index's link goes back up.
		{"/dataset1/resourcelist-2.xml", "i", "Source Description › Capability List › Resource List Index"},
		{"/dumps/manifest1.xml", "", "Source Description › Capability List › Resource Dump Manifest"},
		{"/orphan.xml", "", "? unknown › Resource List"},
		{"/lost.xml", "", "? unreachable › Resource List"},
		{"/dataset2/rl-1.xml", "", "? unreachable › Resource List Index › Resource List"},
		{"/dataset2/index.xml", "enter", "? unreachable › Resource List Index › part 1"},
	} {
		t.Run(tc.target+" "+tc.keys, func(t *testing.T) {
			_, d := exApp(t, g, tc.target, 120, 40)
			d.keys(tc.keys)
			line := strings.SplitN(d.screen(), "\n", 2)[0]
			if got := strings.TrimRight(line, " "); got != tc.want {
				t.Errorf("breadcrumbs %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBreadcrumbClickOpensAncestor: a click on an ancestor opened directly
// (not in the history) opens it, with the path above it; the mark of
// unknown ancestors opens nothing.
func TestBreadcrumbClickOpensAncestor(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, 40)
	line := strings.SplitN(d.screen(), "\n", 2)[0]
	x := strings.Index(line, "Capability List") // ASCII before it
	d.send(exClick(x+1, 0))
	if a.doc.url != exHost+"/dataset1/capabilitylist.xml" {
		t.Fatalf("click on the Capability List crumb shows %s", a.doc.url)
	}
	if got := strings.TrimRight(strings.SplitN(d.screen(), "\n", 2)[0], " "); got != "Source Description › Capability List" {
		t.Errorf("breadcrumbs of the ancestor opened: %q", got)
	}
	d.keys("[")
	if a.doc.url != exHost+"/dataset1/resourcelist-1.xml" {
		t.Errorf("[ after the click shows %s, want the part again", a.doc.url)
	}

	g := newExGetter()
	g.docs["/orphan.xml"] = strings.Replace(g.docs["/dataset1/resourcelist-2.xml"], `<rs:ln rel="up"`, `<rs:ln rel="describedby"`, 1)
	g.docs["/orphan.xml"] = strings.Replace(g.docs["/orphan.xml"], `<rs:ln rel="index"`, `<rs:ln rel="describedby"`, 1)
	a, d = exApp(t, g, "/orphan.xml", 120, 40)
	d.send(exClick(1, 0))
	if a.doc.url != exHost+"/orphan.xml" || len(a.pages) != 0 {
		t.Errorf("a click on the unknown mark opened %s", a.doc.url)
	}
}

// exClick is a left click at column x of line y.
func exClick(x, y int) tea.MouseClickMsg {
	return tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft}
}
