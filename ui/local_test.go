package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rsx/session"
)

// Local files: the explorer reads them only when the user opened one
// (typed its path, or gave it on the command line), and a document from
// the network never leads to one, whatever the user opened before.

// exLocalList writes a Resource List with the given document-level links
// (rel, href pairs) to dir/name and returns its path.
func exLocalList(t *testing.T, dir, name string, links ...string) string {
	t.Helper()
	var ln strings.Builder
	for i := 0; i+1 < len(links); i += 2 {
		ln.WriteString(`<rs:ln rel="` + links[i] + `" href="` + links[i+1] + `"/>` + "\n")
	}
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
` + ln.String() + `<url><loc>` + exHost + `/res/1.html</loc></url>
</urlset>
`
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A session started on a URL reads a local file once the user types its
// path at the prompt.
func TestTypedLocalPathOpens(t *testing.T) {
	dir := t.TempDir()
	local := exLocalList(t, dir, "list.xml")
	for _, typed := range []string{local, "file://" + local} {
		a, d := exApp(t, newExGetter(), "/dataset1/changelist.xml", 120, 40)
		d.keys(":")
		d.typeText(typed)
		d.keys("enter")
		if a.doc == nil || a.doc.err != nil || a.doc.entries.Len() != 1 {
			t.Fatalf("typed %s: document %v, error %v; screen:\n%s", typed, a.doc != nil, a.doc.err, d.screen())
		}
	}
}

// Once the user opened a local file, links from a document from the
// network still never lead to one (Backend.FollowLink): enter on an entry, u, i, M, a package,
// and a resource's link all refuse, and say why. Links from the local
// document the user opened may lead to local files.
func TestLinksFromTheNetworkDoNotOpenLocalFiles(t *testing.T) {
	dir := t.TempDir()
	secret := "file://" + exLocalList(t, dir, "secret.xml")
	sibling := exLocalList(t, dir, "sibling.xml")
	mine := exLocalList(t, dir, "mine.xml", "up", sibling)

	g := newExGetter()
	urlset := func(md, body string) string {
		return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
` + md + "\n" + body + "</urlset>\n"
	}
	g.docs["/net/cl.xml"] = urlset(`<rs:md capability="capabilitylist"/><rs:ln rel="up" href="`+exHost+`/.well-known/resourcesync"/>`,
		`<url><loc>`+secret+`</loc><rs:md capability="resourcelist"/></url>`)
	g.docs["/net/rl.xml"] = urlset(`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/><rs:ln rel="up" href="`+secret+`"/><rs:ln rel="index" href="`+secret+`"/>`,
		// A resource that is itself a local file, linking to another.
		`<url><loc>file://`+filepath.Join(dir, "res.xml")+`</loc><rs:ln rel="index" href="`+secret+`"/></url>`)
	g.docs["/net/rd.xml"] = urlset(`<rs:md capability="resourcedump" at="2013-01-03T09:00:00Z"/><rs:ln rel="up" href="`+exHost+`/dataset1/capabilitylist.xml"/>`,
		`<url><loc>`+exHost+`/dumps/p.zip</loc><rs:md type="application/zip"/><rs:ln rel="contents" href="`+secret+`"/></url>`+
			`<url><loc>`+secret+`.zip</loc><rs:md type="application/zip"/></url>`)

	cases := []struct {
		name, doc, keys string
		pages           int // pages over the document once refused
	}{
		{"enter on a listed document", "/net/cl.xml", "enter", 0},
		{"u", "/net/rl.xml", "u", 0},
		{"i", "/net/rl.xml", "i", 0},
		{"M on a dump entry", "/net/rd.xml", "M", 0},
		{"enter on a package", "/net/rd.xml", "j enter", 0},
		{"a resource's link", "/net/rl.xml", "enter enter", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// rsx started on a local file: local files may be read.
			a, d := exAppOn(t, session.NewWithGetter(g, session.Options{LocalFiles: true}), mine, 120, 40)
			if a.doc.err != nil {
				t.Fatalf("the user's own file: %v", a.doc.err)
			}
			d.keys(":")
			d.typeText(exHost + tc.doc)
			d.keys("enter")
			if a.doc.err != nil {
				t.Fatalf("%s: %v", tc.doc, a.doc.err)
			}
			d.keys(tc.keys)
			if a.doc.url != exHost+tc.doc || len(a.pages) != tc.pages {
				t.Fatalf("%s on %s opened %s (pages %q)", tc.keys, tc.doc, a.doc.url, a.pageTitle())
			}
			if !a.flashErr || !strings.Contains(a.flash, "local files are read only when you open one yourself") {
				t.Errorf("the refusal is not said: flash %q", a.flash)
			}
		})
	}

	// From the local file the user opened (typed, in a session started on
	// a URL), its up link to a local file is followed.
	a, d := exApp(t, g, "/dataset1/changelist.xml", 120, 40)
	d.keys(":")
	d.typeText(mine)
	d.keys("enter u")
	if a.doc == nil || a.doc.url != sibling || a.doc.err != nil {
		t.Fatalf("u from the user's own file: %+v", a.doc)
	}
}

// a (all parts) follows the index's links to its parts: a part that is a
// local file, listed by an index from the network, fails and is not read.
func TestAllPartsDoNotOpenLocalFiles(t *testing.T) {
	dir := t.TempDir()
	mine := exLocalList(t, dir, "mine.xml")
	secret := "file://" + exLocalList(t, dir, "secret.xml")
	g := newExGetter()
	g.docs["/net/index.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<rs:ln rel="up" href="` + exHost + `/dataset1/capabilitylist.xml"/>
<sitemap><loc>` + exHost + `/dataset1/resourcelist-2.xml</loc></sitemap>
<sitemap><loc>` + secret + `</loc></sitemap>
</sitemapindex>
`
	a, d := exAppOn(t, session.NewWithGetter(g, session.Options{LocalFiles: true}), mine, 120, 40)
	d.keys(":")
	d.typeText(exHost + "/net/index.xml")
	d.keys("enter a")
	if a.doc.parts == nil || a.doc.loading {
		t.Fatalf("not the combined view, or still loading: parts %v", a.doc.parts)
	}
	if n := a.doc.entries.Len(); n != 10 {
		t.Errorf("%d entries, want the 10 of the http part only", n)
	}
	if len(a.doc.partErrs) != 1 || !strings.Contains(a.doc.partErrs[0], "local files are read only when you open one yourself") {
		t.Errorf("part errors %q, want the local part refused", a.doc.partErrs)
	}
}
