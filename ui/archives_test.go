package ui

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"rsx/model"
	"rsx/ui/pages"
)

// exArchiveSite is exSite with a third dataset that keeps its history: a
// Change List Index whose archives link leads to a Change List Archive, and
// a Resource List Archive. Its periods leave a hole and an overlap:
//
//	archive  a1  01-01 – 01-02
//	archive  a2  01-02 – 01-03T12
//	(hole)       01-03T12 – 01-04
//	live     l1  01-04 – 01-05
//	live     l2  01-04T18 – 01-06   (overlaps l1 until 01-05)
//	live     l3  01-06 – open
func exArchiveSite() map[string]string {
	docs := exSite()
	ln := func(rel, href string) string { return fmt.Sprintf(`<rs:ln rel=%q href="%s%s"/>`, rel, exHost, href) }
	up := ln("up", "/dataset3/capabilitylist.xml")
	doc := func(root, md, links, body string) string {
		return `<?xml version="1.0" encoding="UTF-8"?>
<` + root + ` xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
` + md + "\n" + links + "\n" + body + "</" + root + ">\n"
	}
	entry := func(tag, loc, md string) string {
		return fmt.Sprintf("  <%s><loc>%s%s</loc><rs:md %s/></%s>\n", tag, exHost, loc, md, tag)
	}
	period := func(from, until string) string {
		s := fmt.Sprintf(`from="2013-01-%sZ"`, from)
		if until != "" {
			s += fmt.Sprintf(` until="2013-01-%sZ"`, until)
		}
		return s
	}
	docs["/dataset3/capabilitylist.xml"] = doc("urlset", `<rs:md capability="capabilitylist"/>`, ln("up", "/.well-known/resourcesync"),
		entry("url", "/dataset3/changelist.xml", `capability="changelist"`)+
			entry("url", "/dataset3/changelist-archive.xml", `capability="changelist-archive"`)+
			entry("url", "/dataset3/resourcelist-archive.xml", `capability="resourcelist-archive"`))
	docs["/dataset3/changelist.xml"] = doc("sitemapindex", `<rs:md capability="changelist" from="2013-01-04T00:00:00Z"/>`, up+ln("archives", "/dataset3/changelist-archive.xml"),
		entry("sitemap", "/dataset3/changes/l1.xml", period("04T00:00:00", "05T00:00:00"))+
			entry("sitemap", "/dataset3/changes/l2.xml", period("04T18:00:00", "06T00:00:00"))+
			entry("sitemap", "/dataset3/changes/l3.xml", period("06T00:00:00", "")))
	docs["/dataset3/changelist-archive.xml"] = doc("urlset", `<rs:md capability="changelist-archive"/>`, up,
		entry("url", "/dataset3/changes/a1.xml", period("01T00:00:00", "02T00:00:00"))+
			entry("url", "/dataset3/changes/a2.xml", period("02T00:00:00", "03T12:00:00")))
	docs["/dataset3/resourcelist-archive.xml"] = doc("urlset", `<rs:md capability="resourcelist-archive"/>`, up,
		entry("url", "/dataset3/resourcelists/2013-01-01.xml", `at="2013-01-01T00:00:00Z" completed="2013-01-01T00:04:10Z"`)+
			entry("url", "/dataset3/resourcelists/2013-01-02.xml", `at="2013-01-02T00:00:00Z"`)+
			entry("url", "/dataset3/resourcelists/2013-01-03.xml", `at="2013-01-03T00:00:00Z"`))
	docs["/dataset3/changes/a1.xml"] = doc("urlset", `<rs:md capability="changelist" from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"/>`,
		up+ln("archives", "/dataset3/changelist-archive.xml"),
		fmt.Sprintf("  <url><loc>%s/res/001.html</loc><rs:md change=\"updated\" datetime=\"2013-01-01T10:00:00Z\"/></url>\n", exHost))
	return docs
}

// TestExplorerArchiveScreens draws a Change List Archive and a Resource List
// Archive as documents, at both sizes: their entries with from and until, or
// at.
func TestExplorerArchiveScreens(t *testing.T) {
	for _, tc := range []struct{ name, target string }{
		{"changelist_archive", "/dataset3/changelist-archive.xml"},
		{"resourcelist_archive", "/dataset3/resourcelist-archive.xml"},
	} {
		for _, sz := range exSizes {
			name := fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h)
			t.Run(name, func(t *testing.T) {
				_, d := exApp(t, &exGetter{docs: exArchiveSite(), fail: map[string]error{}}, tc.target, sz.w, sz.h)
				exGolden(t, d, name)
			})
		}
	}
}

// TestExplorerArchiveNavigation: enter on an archive's entry opens the
// archived list; A follows a document's archives link, and says so when
// there is none.
func TestExplorerArchiveNavigation(t *testing.T) {
	g := &exGetter{docs: exArchiveSite(), fail: map[string]error{}}
	a, d := exApp(t, g, "/dataset3/changelist-archive.xml", 120, 40)
	if cols := columnsFor(a.doc.capability(), a.doc.root(), false); fmt.Sprint(cols) != fmt.Sprint([]colKind{colLoc, colFrom, colUntil}) {
		t.Errorf("columns of a Change List Archive: %v", cols)
	}
	d.keys("enter")
	if a.doc.base() != exHost+"/dataset3/changes/a1.xml" || a.doc.title() != "Change List" {
		t.Fatalf("enter on the archive's first entry opened %s (%s)", a.doc.base(), a.doc.title())
	}
	d.keys("A")
	if a.doc.base() != exHost+"/dataset3/changelist-archive.xml" {
		t.Fatalf("A on the archived list opened %s, not its archive", a.doc.base())
	}
	a, d = exApp(t, g, "/dataset1/changelist.xml", 120, 40)
	d.keys("A")
	if !strings.Contains(d.screen(), "this document has no archives link") || a.doc.base() != exHost+"/dataset1/changelist.xml" {
		t.Errorf("A without an archives link:\n%s", d.screen())
	}
	// The combined view of an archive index lists documents too.
	ad := newDocument(exHost+"/x.xml", 1)
	ad.header = &model.Header{Root: model.RootSitemapIndex}
	ad.header.MD.Capability = model.CapResourceListArchive
	ad.parts = []string{exHost + "/p1.xml"}
	if !ad.entriesAreDocuments() || ad.entriesArePackages() {
		t.Error("the entries of an archive's parts, in one list, are not documents")
	}
}

// TestCoverageScreens draws the coverage page of dataset3's history, at both
// sizes, and with the cursor on the second live list.
func TestCoverageScreens(t *testing.T) {
	for _, sz := range exSizes {
		name := fmt.Sprintf("coverage_%dx%d", sz.w, sz.h)
		t.Run(name, func(t *testing.T) {
			_, d := exApp(t, &exGetter{docs: exArchiveSite(), fail: map[string]error{}}, "/dataset3/changelist.xml", sz.w, sz.h)
			d.keys("C j j j")
			exGolden(t, d, name)
		})
	}
}

// TestCoveragePage checks what the page finds in a history: the holes, the
// overlaps, the lists in time order, the bars; enter opens a list; and the
// documents it refuses.
func TestCoveragePage(t *testing.T) {
	g := &exGetter{docs: exArchiveSite(), fail: map[string]error{}}
	for _, target := range []string{"/dataset3/changelist.xml", "/dataset3/changelist-archive.xml"} {
		a, d := exApp(t, g, target, 120, 40)
		d.keys("C")
		p, ok := a.active().(*pages.Coverage)
		if !ok {
			t.Fatalf("%s: C opened %T", target, a.active())
		}
		var names []string
		for _, pr := range p.Periods() {
			names = append(names, path.Base(pr.URL))
		}
		if got := strings.Join(names, " "); got != "a1.xml a2.xml l1.xml l2.xml l3.xml" {
			t.Errorf("%s: lists in order %s", target, got)
		}
		var issues []string
		for _, s := range p.Segments() {
			switch {
			case s.Hole():
				issues = append(issues, "hole "+s.From.Format("02T15")+"–"+s.Until.Format("02T15"))
			case s.Overlap():
				issues = append(issues, "overlap "+s.From.Format("02T15")+"–"+s.Until.Format("02T15"))
			}
		}
		if got := strings.Join(issues, ", "); got != "hole 03T12–04T00, overlap 04T18–05T00" {
			t.Errorf("%s: %s", target, got)
		}
		screen := d.screen()
		for _, want := range []string{"5 lists: 2 archived, 3 live", "✗ 1 hole", "! 1 overlap", "between a2.xml and l1.xml", "l1.xml, l2.xml"} {
			if !strings.Contains(screen, want) {
				t.Errorf("%s: the page does not say %q:\n%s", target, want, screen)
			}
		}
		d.keys("enter") // the first list, a1 in the archive
		if a.doc.base() != exHost+"/dataset3/changes/a1.xml" {
			t.Errorf("%s: enter opened %s", target, a.doc.base())
		}
	}
	// The reason is said whole, also at 80 columns.
	a, d := exApp(t, g, "/dataset1/resourcelist-1.xml", 80, 24)
	d.keys("C")
	if _, ok := a.active().(*pages.Coverage); ok || !strings.Contains(d.screen(), "C is for Change Lists, Change Dumps and archives; this is a Resource List") {
		t.Errorf("C on a Resource List:\n%s", d.screen())
	}
}
