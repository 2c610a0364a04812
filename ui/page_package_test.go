package ui

import (
	"archive/zip"
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"rsx/fetch"
	"rsx/session"
	"rsx/ui/pages"
)

// Tests of the package view. Packages are built here, served by an
// httptest server and fetched through the real fetch client; a transport
// sends every request for pkHost to the server, so that screens name a
// fixed host and goldens do not depend on the server's port.

const pkHost = "http://pkg.example.org"

type pkMember struct{ name, body string }

// pkZip builds a ZIP package: manifest.xml first, then the members, all
// stored (not deflated) so that sizes do not depend on the compressor.
func pkZip(t testing.TB, manifest string, members ...pkMember) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, body string) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatalf("zip %s: %v", name, err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	add("manifest.xml", manifest)
	for _, m := range members {
		add(m.name, m.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pkMD5(b []byte) string { h := md5.Sum(b); return hex.EncodeToString(h[:]) }

// pkManifest writes a manifest of capability c with the given <url> bodies.
func pkManifest(c, md string, urls ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="` + c + `" ` + md + `/>
`)
	for _, u := range urls {
		b.WriteString("<url>" + u + "</url>\n")
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

// pkRes is a manifest entry for body at path.
func pkRes(loc, path, body, extra string) string {
	return fmt.Sprintf(`<loc>%s%s</loc><rs:md hash="md5:%s" length="%d" type="text/plain" path="%s" %s/>`,
		pkHost, loc, pkMD5([]byte(body)), len(body), path, extra)
}

// pkSite is the served Source: a Resource Dump, a Change Dump, their
// packages and manifest copies, and a package that downloads slowly.
type pkSite struct {
	files   map[string][]byte
	release chan struct{}
}

func newPKSite(t testing.TB) *pkSite {
	const a, b, c = "alpha\n", "bravo bravo\n", `{"c": 3}` + "\n"
	goodManifest := pkManifest("resourcedump-manifest", `at="2013-01-03T09:00:00Z" completed="2013-01-03T09:02:00Z"`,
		pkRes("/res/a.txt", "/resources/a.txt", a, ""),
		pkRes("/res/b.txt", "/resources/b.txt", b, ""),
		pkRes("/res/c.json", "/resources/c.json", c, ""))
	good := pkZip(t, goodManifest, pkMember{"resources/a.txt", a}, pkMember{"resources/b.txt", b}, pkMember{"resources/c.json", c})

	// b.txt differs from what the manifest declares, d.txt is missing and
	// extra.txt is not in the manifest.
	badManifest := pkManifest("resourcedump-manifest", `at="2013-01-03T09:00:00Z"`,
		pkRes("/res/a.txt", "/resources/a.txt", a, ""),
		pkRes("/res/b.txt", "/resources/b.txt", b, ""),
		pkRes("/res/d.txt", "/resources/d.txt", "delta\n", ""))
	bad := pkZip(t, badManifest, pkMember{"resources/a.txt", a}, pkMember{"resources/b.txt", "bravo TAMPERED\n"}, pkMember{"extra.txt", "x"})

	// A manifest path and a member that climb out of the package; the
	// contents copy declares another length for a.txt.
	travManifest := pkManifest("resourcedump-manifest", `at="2013-01-03T09:00:00Z"`,
		pkRes("/res/a.txt", "/resources/a.txt", a, ""),
		pkRes("/res/passwd", "/../../etc/passwd", "root\n", ""))
	trav := pkZip(t, travManifest, pkMember{"resources/a.txt", a}, pkMember{"../../evil.txt", "evil\n"})
	travCopy := strings.Replace(travManifest, fmt.Sprintf(`length="%d"`, len(a)), `length="999"`, 1)

	cdManifest := pkManifest("changedump-manifest", `from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"`,
		pkRes("/res/a.txt", "/changes/a.txt", a, `change="created" datetime="2013-01-01T09:00:00Z"`),
		`<loc>`+pkHost+`/res/old.txt</loc><rs:md change="deleted" datetime="2013-01-01T10:00:00Z"/>`)
	cd := pkZip(t, cdManifest, pkMember{"changes/a.txt", a})

	entry := func(loc string, z []byte, length int, contents string) string {
		s := fmt.Sprintf(`<loc>%s%s</loc><rs:md type="application/zip" length="%d" hash="md5:%s" at="2013-01-03T09:00:00Z" completed="2013-01-03T09:02:00Z"/>`,
			pkHost, loc, length, pkMD5(z))
		if contents != "" {
			s += `<rs:ln rel="contents" type="application/xml" href="` + pkHost + contents + `"/>`
		}
		return s
	}
	dumpDoc := pkManifest("resourcedump", `at="2013-01-03T09:00:00Z" completed="2013-01-03T09:04:00Z"`,
		entry("/dumps/good.zip", good, len(good), "/dumps/good-manifest.xml"),
		// The package is as its entry declares (one that is not is refused
		// whole before it is opened: session's tests); its bitstreams are not
		// all as its manifest declares.
		entry("/dumps/bad.zip", bad, len(bad), ""),
		entry("/dumps/trav.zip", trav, len(trav), "/dumps/trav-manifest.xml"),
		`<loc>`+pkHost+`/dumps/slow.zip</loc><rs:md type="application/zip" length="100000"/>`)
	changeDump := pkManifest("changedump", `from="2013-01-01T00:00:00Z"`,
		entry("/dumps/cd.zip", cd, len(cd), ""))
	return &pkSite{
		release: make(chan struct{}),
		files: map[string][]byte{
			"/resourcedump.xml":        []byte(dumpDoc),
			"/changedump.xml":          []byte(changeDump),
			"/dumps/good.zip":          good,
			"/dumps/good-manifest.xml": []byte(goodManifest),
			"/dumps/bad.zip":           bad,
			"/dumps/trav.zip":          trav,
			"/dumps/trav-manifest.xml": []byte(travCopy),
			"/dumps/cd.zip":            cd,
			"/res/a.txt":               []byte(a),
			"/dumps/not-a-package.zip": []byte("this is not a ZIP file"),
		},
	}
}

func (s *pkSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/dumps/slow.zip" {
		// Some bytes, then nothing until the client gives up.
		w.Header().Set("Content-Length", "100000")
		w.Write(bytes.Repeat([]byte("P"), 1000))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
		return
	}
	body, ok := s.files[r.URL.Path]
	if !ok || body == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.Write(body)
}

// pkTransport sends every request to the test server.
type pkTransport struct{ to *url.URL }

func (p pkTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = p.to.Scheme, p.to.Host
	return http.DefaultTransport.RoundTrip(r)
}

// pkApp starts the explorer on target (a path on pkHost) with the
// temporary files of packages in a directory of the test's own, which it
// returns.
func pkApp(t *testing.T, target string, w, h int) (*App, *exDriver, string) {
	t.Helper()
	return pkAppSite(t, newPKSite(t), target, w, h)
}

// pkAppSite is pkApp on a site of the test's own.
func pkAppSite(t *testing.T, site *pkSite, target string, w, h int) (*App, *exDriver, string) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // dump.Options{}.TempDir is os.TempDir()
	srv := httptest.NewServer(site)
	t.Cleanup(func() {
		close(site.release)
		srv.Close()
	})
	to, _ := url.Parse(srv.URL)
	client, err := fetch.NewClient(fetch.Options{NoCache: true, Retries: -1, Transport: pkTransport{to}, IdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{
		Target:  pkHost + target,
		Backend: session.New(client, session.Options{}),
		Now:     func() time.Time { return exTime },
		Dark:    true,
	})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(a.Init())
	return a, d, tmp
}

// pkPage is the package view shown, or fails the test.
func pkPage(t *testing.T, a *App) *pages.Package {
	t.Helper()
	var p *pages.Package
	if len(a.pages) > 0 {
		p, _ = a.pages[0].(*pages.Package)
	}
	if p == nil {
		t.Fatalf("the package page is not shown (pages %v); screen:\n%s", a.pageTitle(), ansi.Strip(a.View().Content))
	}
	return p
}

// pkLine is the line of the screen that starts with label ("Verify",
// "Download"), "" when none does.
func pkLine(s, label string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, label+" ") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// pkVerified fails the test unless the package page is done and says the
// package was verified (its Verify line tallies the bitstreams).
func pkVerified(t *testing.T, v *pages.Package, d *exDriver) {
	t.Helper()
	s := d.screen()
	if v.Busy() || !strings.Contains(pkLine(s, "Verify"), " verified") {
		t.Fatalf("the package is not verified (busy %v); screen:\n%s", v.Busy(), s)
	}
}

// pkRows are the rows of the package's table as the screen shows them,
// from the header line to the first blank line.
func pkRows(s string) []string {
	var rows []string
	in := false
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " ")
		switch {
		case strings.HasPrefix(l, "#   path"):
			in = true
		case in && l == "":
			return rows
		case in:
			rows = append(rows, l)
		}
	}
	return rows
}

// pkTempDirs lists the folders in the temporary directory, each
// download's.
func pkTempDirs(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// pkTempFiles lists what is left in the temporary directory.
func pkTempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if p != dir && err == nil {
			out = append(out, strings.TrimPrefix(p, dir))
		}
		return nil
	})
	return out
}

func pkGolden(t *testing.T, a *App, name string) {
	t.Helper()
	s := ansi.Strip(a.View().Content)
	for i, l := range strings.Split(s, "\n") {
		if w := ansi.StringWidth(l); w > a.width {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, w, a.width, l)
		}
	}
	if n := strings.Count(s, "\n") + 1; n != a.height {
		t.Errorf("screen has %d lines, want %d", n, a.height)
	}
	golden.RequireEqual(exNamed{t, "view_package_" + name}, s)
}

// TestPackageViewScreens opens each package from the dump and draws it
// once downloaded, verified and compared with its manifest copy.
func TestPackageViewScreens(t *testing.T) {
	cases := []struct {
		name, doc, keys string
		want            []string
	}{
		{"good", "/resourcedump.xml", "enter", []string{
			"type application/zip ✓", "✓ contents copy matches", "✓ every bitstream matches the manifest", "✓ 3 verified",
			// The manifest's own problems, as rsx dump's manifest_problems.
			"Problems  ✗ manifest.xml does not conform: 1 error, 0 warnings", "✗ up-link-missing: no <rs:ln rel=\"up\"> link"}},
		{"mismatch", "/resourcedump.xml", "j enter", []string{
			"✗ length, md5 differ", "? missing member", "+ unlisted member", "no contents link"}},
		{"broken", "/resourcedump.xml", "j j enter", []string{
			"✗ contents copy differs (1 difference)", "length 6 in the package, 999 in the copy",
			`✗ refused: path has a ".." seg`, "../../evil.txt"}},
		{"changedump", "/changedump.xml", "enter", []string{
			"Change Dump Manifest · from 2013-01-01T00:00:00Z · until 2013-01-02T00:00:00Z", "created", "– deleted"}},
	}
	for _, tc := range cases {
		for _, sz := range exSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h), func(t *testing.T) {
				a, d, tmp := pkApp(t, tc.doc, sz.w, sz.h)
				d.keys(tc.keys)
				pkVerified(t, pkPage(t, a), d)
				if sz.w == 120 {
					s := d.screen()
					for _, w := range tc.want {
						if !strings.Contains(s, w) {
							t.Errorf("screen lacks %q:\n%s", w, s)
						}
					}
				}
				pkGolden(t, a, fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h))
				if len(pkTempFiles(t, tmp)) == 0 {
					t.Error("no temporary package file while the view is open")
				}
				d.keys("esc") // back to the dump: the file goes
				if len(a.pages) != 0 {
					t.Fatalf("esc did not leave the package view")
				}
				if left := pkTempFiles(t, tmp); len(left) > 0 {
					t.Errorf("temporary files left after esc: %v", left)
				}
			})
		}
	}
}

// TestPackageViewVerdicts checks the verdict of each row of the broken
// packages, beyond what fits on a screen.
func TestPackageViewVerdicts(t *testing.T) {
	a, d, _ := pkApp(t, "/resourcedump.xml", 120, 40)
	d.keys("j enter")
	pkVerified(t, pkPage(t, a), d)
	got := pkRows(d.screen())
	want := []string{"✓ verified", "✗ length, md5 differ", "? missing member", "+ unlisted member"}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %q", len(got), len(want), got)
	}
	for i, w := range want {
		if !strings.HasSuffix(got[i], w) {
			t.Errorf("row %d %q, want the verdict %q", i+1, got[i], w)
		}
	}
	if s := d.screen(); pkLine(s, "Refused") != "" || pkLine(s, "Declared") == "" || strings.Contains(pkLine(s, "Declared"), "✗") {
		t.Errorf("the package is said to differ from its dump entry:\n%s", s)
	}

	// The traversal package: its refused member is one of the bad rows
	// (pages' TestRowMark holds every refusal to the ✗ of an error).
	d.keys("esc j enter")
	pkVerified(t, pkPage(t, a), d)
	got = pkRows(d.screen())
	if len(got) != 3 || !strings.HasSuffix(got[0], "✓ verified") || !strings.Contains(got[1], `✗ refused: path has a ".." seg`) || !strings.Contains(got[2], "unlisted member") {
		t.Errorf("verdicts of the traversal package: %q", got)
	}
}

// TestPackageViewCancel: esc during a slow download cancels it and removes
// the temporary file; r downloads again; a newer download and quitting
// remove the file of the one before.
func TestPackageViewCancel(t *testing.T) {
	a, d, tmp := pkApp(t, "/resourcedump.xml", 120, 40)
	d.idle = 300 * time.Millisecond // the slow download never ends by itself
	d.keys("G enter")
	v := pkPage(t, a)
	if !v.Busy() || !strings.Contains(pkLine(d.screen(), "Download"), "esc cancels") {
		t.Fatalf("the package is not downloading:\n%s", d.screen())
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(pkTempFiles(t, tmp)) < 2 && time.Now().Before(deadline) { // the directory and the file
		d.run(nil)
	}
	if files := pkTempFiles(t, tmp); len(files) < 2 {
		t.Fatalf("no temporary file during the download: %v", files)
	}
	if !strings.Contains(d.screen(), "esc cancels") {
		t.Errorf("no progress line:\n%s", d.screen())
	}
	d.keys("esc")
	if v.Busy() || !strings.Contains(pkLine(d.screen(), "Download"), "cancelled after") {
		t.Fatalf("not cancelled after esc:\n%s", d.screen())
	}
	d.run(nil)
	if left := pkTempFiles(t, tmp); len(left) > 0 {
		t.Errorf("temporary files left after esc: %v", left)
	}
	if s := d.screen(); !strings.Contains(s, "cancelled after") || !strings.Contains(s, "r downloads again") {
		t.Errorf("cancelled screen:\n%s", s)
	}

	// r starts again; r once more supersedes that download.
	d.keys("r")
	if !v.Busy() {
		t.Fatalf("not downloading after r:\n%s", d.screen())
	}
	deadline = time.Now().Add(5 * time.Second)
	for len(pkTempDirs(t, tmp)) == 0 && time.Now().Before(deadline) {
		d.run(nil)
	}
	first := pkTempDirs(t, tmp)
	if len(first) != 1 {
		t.Fatalf("the download's temporary folders: %v, want one", first)
	}
	d.keys("r")
	d.run(nil)
	if slices.Contains(pkTempDirs(t, tmp), first[0]) {
		t.Errorf("a newer download did not close the one before: %s is left", first[0])
	}

	// Quitting removes the file of the download in flight.
	d.send(exKey("q"))
	d.run(nil)
	if left := pkTempFiles(t, tmp); len(left) > 0 {
		t.Errorf("temporary files left after quitting: %v", left)
	}
}

// TestPackageViewNavigation: enter on a Resource Dump entry opens the
// package view; enter on a manifest entry shows its resource over it, x
// the manifest's XML; esc comes back each time; M opens the manifest copy.
func TestPackageViewNavigation(t *testing.T) {
	a, d, tmp := pkApp(t, "/resourcedump.xml", 120, 40)
	d.keys("enter")
	pkPage(t, a)
	if got := a.pageTitle(); got != "Package" {
		t.Errorf("title %q", got)
	}
	d.keys("enter")
	if got := a.pageTitle(); got != "Package › Resource" {
		t.Fatalf("after enter on an entry: title %q", got)
	}
	if s := d.screen(); !strings.Contains(s, "Resource  "+pkHost+"/res/a.txt") {
		t.Errorf("resource view:\n%s", s)
	}
	d.keys("esc")
	if got := a.pageTitle(); got != "Package" {
		t.Fatalf("esc from the resource: title %q", got)
	}
	d.keys("x")
	if got := a.pageTitle(); got != "Package › Raw XML" {
		t.Fatalf("after x: title %q", got)
	}
	if s := d.screen(); !strings.Contains(s, `capability="resourcedump-manifest"`) {
		t.Errorf("raw manifest:\n%s", s)
	}
	d.keys("esc")
	if len(a.pages) != 1 || a.pageTitle() != "Package" {
		t.Fatal("esc from the raw view did not come back to the package")
	}
	d.keys("M")
	if len(a.pages) != 0 || a.doc == nil || a.doc.url != pkHost+"/dumps/good-manifest.xml" {
		t.Fatalf("M did not open the manifest copy")
	}
	// esc comes back to the package view as it was (not downloaded again);
	// esc there closes it, and its temporary files go.
	d.keys("esc")
	if a.doc.url != pkHost+"/resourcedump.xml" || a.pageTitle() != "Package" {
		t.Fatalf("back from the manifest copy: %s, pages %q", a.doc.url, a.pageTitle())
	}
	pkVerified(t, pkPage(t, a), d)
	d.keys("esc")
	if len(a.pages) != 0 {
		t.Fatalf("esc did not close the package view: %q", a.pageTitle())
	}
	if left := pkTempFiles(t, tmp); len(left) > 0 {
		t.Errorf("temporary files left after leaving the view: %v", left)
	}

	// M on the dump's entry opens the copy without downloading.
	d.keys("M")
	if len(a.pages) != 0 || a.doc.url != pkHost+"/dumps/good-manifest.xml" {
		t.Fatal("M on the dump entry did not open the manifest copy")
	}
}

// TestPackageViewPrompt: a .zip typed at the prompt opens in the package
// view, without a dump entry's declarations; a file that is not a ZIP is
// an error r retries.
func TestPackageViewPrompt(t *testing.T) {
	a, d, _ := pkApp(t, "/resourcedump.xml", 120, 40)
	d.keys(":")
	d.typeText(pkHost + "/dumps/good.zip")
	d.keys("enter")
	pkVerified(t, pkPage(t, a), d)
	// Not from a dump entry: nothing declared to compare with.
	if s := d.screen(); strings.Contains(s, "Declared") || !strings.Contains(s, "✓ 3 verified") {
		t.Errorf("screen:\n%s", s)
	}
	d.keys(":")
	d.typeText(pkHost + "/dumps/not-a-package.zip")
	d.keys("enter")
	if v := pkPage(t, a); v.Busy() || pkLine(d.screen(), "Verify") != "" {
		t.Fatalf("the package did not fail:\n%s", d.screen())
	}
	if s := d.screen(); !strings.Contains(s, "not a readable ZIP file") || !strings.Contains(s, "r downloads again") {
		t.Errorf("error screen:\n%s", s)
	}
}

// TestPackageViewMouse: a click on the selected dump entry opens its package,
// as Enter does (not the manifest copy, which is M's).
func TestPackageViewMouse(t *testing.T) {
	a, d, _ := pkApp(t, "/resourcedump.xml", 120, 40)
	// The first entry's row: crumbs, title, table header, then row 1 on line 3.
	d.send(tea.MouseClickMsg{X: 5, Y: 3, Button: tea.MouseLeft})
	d.send(tea.MouseClickMsg{X: 5, Y: 3, Button: tea.MouseLeft})
	pkPage(t, a)
	if got := a.pageTitle(); got != "Package" {
		t.Errorf("a click on the selected dump entry opened %q, want the package view", got)
	}
}

// A bitstream whose manifest entry declares neither a hash nor a length is
// read but cannot be verified: its row says "unverifiable", the tally
// counts it apart from the verified ones, and the package is not said to
// match its manifest throughout.
func TestPackageViewUnverifiable(t *testing.T) {
	const a, b = "alpha\n", "bravo\n"
	manifest := pkManifest("resourcedump-manifest", `at="2013-01-03T09:00:00Z"`,
		pkRes("/res/a.txt", "/resources/a.txt", a, ""),
		`<loc>`+pkHost+`/res/b.txt</loc><rs:md type="text/plain" path="/resources/b.txt"/>`)
	z := pkZip(t, manifest, pkMember{"resources/a.txt", a}, pkMember{"resources/b.txt", b})
	site := newPKSite(t)
	site.files["/dumps/u.zip"] = z
	site.files["/u.xml"] = []byte(pkManifest("resourcedump", `at="2013-01-03T09:00:00Z"`,
		fmt.Sprintf(`<loc>%s/dumps/u.zip</loc><rs:md type="application/zip" length="%d"/>`, pkHost, len(z))))
	app, d, _ := pkAppSite(t, site, "/u.xml", 120, 40)
	d.keys("enter")
	pkVerified(t, pkPage(t, app), d)
	rows := pkRows(d.screen())
	if len(rows) != 2 {
		t.Fatalf("%d rows; screen:\n%s", len(rows), d.screen())
	}
	// Drawn as judged (pages' TestRowMark), with its own symbol.
	if got := rows[1]; !strings.HasPrefix(got, "2 ~ ") || !strings.HasSuffix(got, "~ unverifiable") {
		t.Errorf("row of the entry without hash or length: %q, want ~ unverifiable", got)
	}
	s := d.screen()
	for _, want := range []string{"✓ 1 verified · ~ 1 unverifiable", "~ unverifiable"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "every bitstream matches") {
		t.Errorf("a package with an unverifiable bitstream is said to match throughout:\n%s", s)
	}
	d.keys("j")
	if s := d.screen(); !strings.Contains(s, "result   unverifiable: the entry declares neither a length nor a hash") {
		t.Errorf("the detail does not say why:\n%s", s)
	}
}

// A package that differs from its dump entry is refused whole: the page
// says so, gives each difference with the declared and the received value
// whole, shows no manifest or verification, and keeps no file.
func TestPackageViewRefused(t *testing.T) {
	const a = "alpha\n"
	z := pkZip(t, pkManifest("resourcedump-manifest", `at="2013-01-03T09:00:00Z"`, pkRes("/res/a.txt", "/resources/a.txt", a, "")),
		pkMember{"resources/a.txt", a})
	const wrongMD5 = "0123456789abcdef0123456789abcdef"
	for _, sz := range exSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			site := newPKSite(t)
			site.files["/dumps/r.zip"] = z
			site.files["/r.xml"] = []byte(pkManifest("resourcedump", `at="2013-01-03T09:00:00Z"`,
				fmt.Sprintf(`<loc>%s/dumps/r.zip</loc><rs:md type="application/zip" length="%d" hash="md5:%s"/>`, pkHost, len(z)+1, wrongMD5)))
			app, d, tmp := pkAppSite(t, site, "/r.xml", sz.w, sz.h)
			d.keys("enter")
			v := pkPage(t, app)
			s := d.screen()
			if v.Busy() || pkLine(s, "Refused") == "" {
				t.Fatalf("the package is not refused; screen:\n%s", s)
			}
			for _, want := range []string{
				"Refused   ✗ the package differs from its dump entry, so nothing of it is used",
				fmt.Sprintf("length  declared %d", len(z)+1), fmt.Sprintf("received %d", len(z)),
				"md5     declared " + wrongMD5, "received " + pkMD5(z),
				"r downloads again",
			} {
				if !strings.Contains(s, want) {
					t.Errorf("screen lacks %q:\n%s", want, s)
				}
			}
			if strings.Contains(s, "Manifest") || strings.Contains(s, "Verify") {
				t.Errorf("a refused package shows its manifest or a verification:\n%s", s)
			}
			if left := pkTempFiles(t, tmp); len(left) > 0 {
				t.Errorf("a refused package left files: %v", left)
			}
			pkGolden(t, app, fmt.Sprintf("refused_%dx%d", sz.w, sz.h))
		})
	}
}
