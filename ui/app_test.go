package ui

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image/color"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"rsx/crawl"
	"rsx/fetch"
	"rsx/model"
	"rsx/session"
	"rsx/ui/pages"
)

// Test helpers of the explorer (root model, document view, table). Names
// start with ex so that they cannot clash with the other pages' tests.

const exHost = "http://example.org"

// exTime is the fixed clock of the explorer tests.
var exTime = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

// exSite is a small ResourceSync Source, every document type once.
func exSite() map[string]string {
	ln := func(rel, href string) string { return fmt.Sprintf(`<rs:ln rel=%q href="%s%s"/>`, rel, exHost, href) }
	urlset := func(md string, links string, body string) string {
		return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
` + md + "\n" + links + "\n" + body + "</urlset>\n"
	}
	index := func(md string, links string, body string) string {
		return `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
` + md + "\n" + links + "\n" + body + "</sitemapindex>\n"
	}
	u := func(loc, inner string) string {
		return fmt.Sprintf("  <url><loc>%s%s</loc>%s</url>\n", exHost, loc, inner)
	}
	sm := func(loc, inner string) string {
		return fmt.Sprintf("  <sitemap><loc>%s%s</loc>%s</sitemap>\n", exHost, loc, inner)
	}
	// Part 1 has problems, as Sources write them: entry 12's md5 digest
	// has the 40 digits of a sha-1 (hash-length, an error), entries 3, 10,
	// 17 and 24 give a file extension for a type (type-invalid, an error)
	// and entries 20 and 27 write their digest in base64 (hash-base64, a
	// warning). Their lastmods after the snapshot are hints, not counted.
	var rl1, rl2 strings.Builder
	for i := 1; i <= 30; i++ {
		hash, typ := fmt.Sprintf("md5:%032x", i*7919), "text/html"
		switch {
		case i == 12:
			hash = fmt.Sprintf("md5:%040x", i*7919)
		case i == 20 || i == 27:
			var sum [16]byte
			binary.BigEndian.PutUint64(sum[8:], uint64(i*7919))
			hash = "md5:" + base64.StdEncoding.EncodeToString(sum[:])
		}
		if i%7 == 3 {
			typ = "html"
		}
		fmt.Fprintf(&rl1, "  <url><loc>%s/res/%03d.html</loc><lastmod>2013-01-%02dT09:00:00Z</lastmod><rs:md hash=\"%s\" length=\"%d\" type=\"%s\"/></url>\n",
			exHost, i, 1+i%28, hash, 1000+i*37%500, typ)
	}
	for i := 31; i <= 40; i++ {
		fmt.Fprintf(&rl2, "  <url><loc>%s/res/%03d.pdf</loc><lastmod>2013-02-%02dT09:00:00Z</lastmod><rs:md length=\"%d\" type=\"application/pdf\"/></url>\n",
			exHost, i, 1+i%28, 20000+i*1000)
	}
	return map[string]string{
		"/.well-known/resourcesync": urlset(`<rs:md capability="description"/>`, ln("describedby", "/about.html"),
			u("/dataset1/capabilitylist.xml", `<rs:md capability="capabilitylist"/>`+ln("describedby", "/dataset1/info.html"))),
		"/dataset1/capabilitylist.xml": urlset(`<rs:md capability="capabilitylist"/>`, ln("up", "/.well-known/resourcesync")+ln("describedby", "/dataset1/info.html"),
			u("/dataset1/resourcelist-index.xml", `<rs:md capability="resourcelist"/>`)+
				u("/dataset1/resourcedump.xml", `<rs:md capability="resourcedump"/>`)+
				u("/dataset1/changelist.xml", `<rs:md capability="changelist"/>`)+
				u("/dataset1/changedump.xml", `<rs:md capability="changedump"/>`)),
		"/dataset1/resourcelist-index.xml": index(`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z" completed="2013-01-03T09:07:00Z"/>`, ln("up", "/dataset1/capabilitylist.xml"),
			sm("/dataset1/resourcelist-1.xml", `<rs:md at="2013-01-03T09:00:00Z"/>`)+
				sm("/dataset1/resourcelist-2.xml", `<rs:md at="2013-01-03T09:03:00Z"/>`)),
		"/dataset1/resourcelist-1.xml": urlset(`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`, ln("up", "/dataset1/capabilitylist.xml")+ln("index", "/dataset1/resourcelist-index.xml"), rl1.String()),
		"/dataset1/resourcelist-2.xml": urlset(`<rs:md capability="resourcelist" at="2013-01-03T09:03:00Z"/>`, ln("up", "/dataset1/capabilitylist.xml")+ln("index", "/dataset1/resourcelist-index.xml"), rl2.String()),
		"/dataset1/changelist.xml": urlset(`<rs:md capability="changelist" from="2013-01-02T00:00:00Z" until="2013-01-03T00:00:00Z"/>`, ln("up", "/dataset1/capabilitylist.xml"),
			u("/res/001.html", `<rs:md change="updated" datetime="2013-01-02T13:00:00Z" length="1200" type="text/html" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/>`+
				`<rs:ln rel="alternate" href="`+exHost+`/res/001.pdf" type="application/pdf"/>`)+
				u("/res/007.html", `<rs:md change="deleted" datetime="2013-01-02T14:00:00Z"/>`)+
				u("/res/041.html", `<rs:md change="created" datetime="2013-01-02T15:00:00Z" length="870" type="text/html"/>`+
					`<rs:ln rel="duplicate" href="http://mirror.example.net/res/041.html" pri="1"/>`)+
				u("/res/002.html", `<rs:md change="updated" datetime="2013-01-02T18:00:00Z" length="1999" type="text/html"/>`)),
		"/dataset1/resourcedump.xml": urlset(`<rs:md capability="resourcedump" at="2013-01-03T09:00:00Z" completed="2013-01-03T09:04:00Z"/>`, ln("up", "/dataset1/capabilitylist.xml"),
			u("/dumps/part1.zip", `<rs:md type="application/zip" length="4765" at="2013-01-03T09:00:00Z" completed="2013-01-03T09:02:00Z"/>`+ln("contents", "/dumps/manifest1.xml"))+
				u("/dumps/part2.zip", `<rs:md type="application/zip" length="9875" at="2013-01-03T09:01:00Z" completed="2013-01-03T09:03:00Z"/>`+ln("contents", "/dumps/manifest2.xml"))),
		"/dumps/manifest1.xml": urlset(`<rs:md capability="resourcedump-manifest" at="2013-01-03T09:00:00Z" completed="2013-01-03T09:02:00Z"/>`, ln("up", "/dataset1/capabilitylist.xml"),
			u("/res/001.html", `<lastmod>2013-01-02T13:00:00Z</lastmod><rs:md hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="1200" type="text/html" path="/resources/res/001.html"/>`)+
				u("/res/002.html", `<lastmod>2013-01-02T18:00:00Z</lastmod><rs:md length="1999" type="text/html" path="/resources/res/002.html"/>`)),
		"/dataset1/changedump.xml": urlset(`<rs:md capability="changedump" from="2013-01-01T00:00:00Z"/>`, ln("up", "/dataset1/capabilitylist.xml"),
			u("/dumps/changes1.zip", `<rs:md type="application/zip" length="6629" from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"/>`+ln("contents", "/dumps/cmanifest1.xml"))),
		"/dumps/cmanifest1.xml": urlset(`<rs:md capability="changedump-manifest" from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"/>`, ln("up", "/dataset1/capabilitylist.xml"),
			u("/res/003.html", `<rs:md change="created" datetime="2013-01-01T09:00:00Z" length="500" type="text/html" path="/changes/res/003.html"/>`)+
				u("/res/004.html", `<rs:md change="deleted" datetime="2013-01-01T10:00:00Z" path="/changes/res/004.html"/>`)),
		"/index.html": `<!DOCTYPE html><html><head><title>x</title></head><body>hello</body></html>`,
	}
}

// exGetter serves the fixtures from memory, with an Exchange like fetch's.
type exGetter struct {
	docs map[string]string
	fail map[string]error
}

func newExGetter() *exGetter { return &exGetter{docs: exSite(), fail: map[string]error{}} }

func (g *exGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := g.fail[url]; err != nil {
		return nil, err
	}
	path := strings.TrimPrefix(url, exHost)
	body, ok := g.docs[path]
	if !ok {
		return exNotFound(url)
	}
	ex := &fetch.Exchange{Method: "GET", URL: url, FinalURL: url, Status: 200, StatusText: "OK", Bytes: int64(len(body)), Done: true}
	return &fetch.Response{URL: url, Status: 200, Header: http.Header{"Content-Length": {fmt.Sprint(len(body))}}, Body: io.NopCloser(strings.NewReader(body)), Exchange: ex}, nil
}

// exNotFound is the answer of the fixtures for a URL they do not hold.
func exNotFound(url string) (*fetch.Response, error) {
	ex := &fetch.Exchange{Method: "GET", URL: url, FinalURL: url, Status: 404, StatusText: "Not Found", Done: true}
	return &fetch.Response{URL: url, Status: 404, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("not found")), Exchange: ex},
		&fetch.StatusError{URL: url, Status: 404, StatusText: "Not Found", Tries: 1}
}

// exApp returns an explorer on the fixtures at w×h, with no spinner ticks
// and a fixed clock. target is a path on exHost.
func exApp(t testing.TB, g *exGetter, target string, w, h int) (*App, *exDriver) {
	t.Helper()
	return exAppWith(t, g, target, w, h)
}

// exAppWith is exApp on any getter.
func exAppWith(t testing.TB, g session.Getter, target string, w, h int) (*App, *exDriver) {
	t.Helper()
	return exAppOn(t, session.NewWithGetter(g, session.Options{BatchSize: 16}), exHost+target, w, h)
}

// exAppOn is exApp on any backend and target (a URL or a path).
func exAppOn(t testing.TB, b Backend, target string, w, h int) (*App, *exDriver) {
	t.Helper()
	a := New(Options{
		Target:          target,
		Backend:         b,
		Now:             func() time.Time { return exTime },
		Dark:            true,
		PartConcurrency: 1,
	})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(a.Init())
	return a, d
}

// exDriver runs the explorer's commands the way bubbletea does (each in
// its goroutine, messages back to Update one at a time) until nothing is
// left to do, so that tests see a settled screen.
type exDriver struct {
	t       testing.TB
	a       *App
	msgs    chan tea.Msg
	pending int
	quit    bool
	// idle, when set, ends run once no message came for this long, for
	// tests whose loads never end.
	idle time.Duration
}

type exNil struct{}

func (d *exDriver) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.pending++
	go func() {
		msg := cmd()
		if msg == nil {
			msg = exNil{}
		}
		d.msgs <- msg
	}()
}

// run executes cmd and every command that follows, until all are done.
func (d *exDriver) run(cmd tea.Cmd) {
	d.t.Helper()
	d.exec(cmd)
	deadline := time.After(10 * time.Second)
	var idle <-chan time.Time
	for d.pending > 0 {
		if d.idle > 0 {
			idle = time.After(d.idle)
		}
		select {
		case msg := <-d.msgs:
			d.pending--
			d.handle(msg)
		case <-idle:
			return
		case <-deadline:
			d.t.Fatalf("commands still running after 10s (%d pending)", d.pending)
			return
		}
	}
}

func (d *exDriver) handle(msg tea.Msg) {
	switch msg := msg.(type) {
	case exNil:
	case tea.BatchMsg:
		for _, c := range msg {
			d.exec(c)
		}
	case tea.QuitMsg:
		d.quit = true
	default:
		_, cmd := d.a.Update(msg)
		d.exec(cmd)
	}
}

// send delivers one message and runs what it starts.
func (d *exDriver) send(msg tea.Msg) {
	d.t.Helper()
	d.handle(msg)
	d.run(nil)
}

// keys types keys: single characters, or names such as "enter", "esc",
// "ctrl+d", separated by spaces ("space" for a space).
func (d *exDriver) keys(s string) {
	d.t.Helper()
	for _, k := range strings.Fields(s) {
		d.send(exKey(k))
	}
}

// typeText types every rune of s.
func (d *exDriver) typeText(s string) {
	d.t.Helper()
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func exKey(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	}
	if c, ok := strings.CutPrefix(k, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	msg := tea.KeyPressMsg{Code: r, Text: string(r)}
	if r >= 'A' && r <= 'Z' {
		msg.Code = r + 'a' - 'A'
		msg.ShiftedCode = r
		msg.Mod = tea.ModShift
	}
	return msg
}

// screen is the current screen without colours.
func (d *exDriver) screen() string { return ansi.Strip(d.a.View().Content) }

// exNamed gives golden.RequireEqual a file name of our choosing.
type exNamed struct {
	testing.TB
	name string
}

func (n exNamed) Name() string { return n.name }

// exGolden compares the screen with testdata/explorer_<name>.golden
// (go test -update rewrites it).
func exGolden(t *testing.T, d *exDriver, name string) {
	t.Helper()
	s := d.screen()
	for i, l := range strings.Split(s, "\n") {
		if w := ansi.StringWidth(l); w > d.a.width {
			t.Errorf("line %d is %d cells wide, more than the terminal's %d: %q", i+1, w, d.a.width, l)
		}
	}
	if n := strings.Count(s, "\n") + 1; n != d.a.height {
		t.Errorf("screen has %d lines, want %d", n, d.a.height)
	}
	golden.RequireEqual(exNamed{t, "explorer_" + name}, s)
}

var exSizes = []struct {
	w, h int
}{{120, 40}, {80, 24}}

// TestExplorerDocumentScreens draws each document type at both sizes.
func TestExplorerDocumentScreens(t *testing.T) {
	cases := []struct {
		name, target, keys string
	}{
		{"source_description", "/.well-known/resourcesync", ""},
		{"capability_list", "/dataset1/capabilitylist.xml", ""},
		{"resourcelist_index", "/dataset1/resourcelist-index.xml", ""},
		{"resourcelist", "/dataset1/resourcelist-1.xml", ""},
		{"resourcelist_all_parts", "/dataset1/resourcelist-index.xml", "a"},
		{"changelist", "/dataset1/changelist.xml", ""},
		{"resourcedump", "/dataset1/resourcedump.xml", ""},
		{"resourcedump_manifest", "/dumps/manifest1.xml", ""},
		{"changedump", "/dataset1/changedump.xml", ""},
		{"changedump_manifest", "/dumps/cmanifest1.xml", ""},
		{"document_pane", "/dataset1/changelist.xml", "d"},
		// The problems of part 1 as the checker finds them, and n twice:
		// the second entry with a problem (entry 10, a warning).
		{"resourcelist_problems", "/dataset1/resourcelist-1.xml", "p"},
		{"resourcelist_next_problem", "/dataset1/resourcelist-1.xml", "n n"},
		{"help", "/dataset1/changelist.xml", "?"},
	}
	for _, tc := range cases {
		for _, sz := range exSizes {
			name := fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h)
			t.Run(name, func(t *testing.T) {
				_, d := exApp(t, newExGetter(), tc.target, sz.w, sz.h)
				d.keys(tc.keys)
				exGolden(t, d, name)
			})
		}
	}
}

// TestExplorerFilterSortScreens shows an active filter and a sort.
func TestExplorerFilterSortScreens(t *testing.T) {
	for _, sz := range exSizes {
		t.Run(fmt.Sprintf("filter_%dx%d", sz.w, sz.h), func(t *testing.T) {
			_, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", sz.w, sz.h)
			d.keys("/")
			d.typeText("02")
			exGolden(t, d, fmt.Sprintf("filter_typing_%dx%d", sz.w, sz.h))
			d.keys("enter")
			exGolden(t, d, fmt.Sprintf("filter_applied_%dx%d", sz.w, sz.h))
		})
		t.Run(fmt.Sprintf("sorted_%dx%d", sz.w, sz.h), func(t *testing.T) {
			_, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", sz.w, sz.h)
			d.keys("s s S") // by lastmod, descending
			exGolden(t, d, fmt.Sprintf("sorted_%dx%d", sz.w, sz.h))
		})
	}
}

// exStuckBackend starts loads that never finish, so that a test can show
// the loading state with progress it sends itself.
type exStuckBackend struct{ NopBackend }

func (exStuckBackend) LoadDocument(ctx context.Context, _ string, _ session.DocSink) error {
	return nil
}

// TestExplorerLoadingAndErrorScreens shows a load in progress and a failed load.
func TestExplorerLoadingAndErrorScreens(t *testing.T) {
	for _, sz := range exSizes {
		t.Run(fmt.Sprintf("loading_%dx%d", sz.w, sz.h), func(t *testing.T) {
			a := New(Options{Target: exHost + "/big.xml", Backend: exStuckBackend{}, Now: func() time.Time { return exTime }, Dark: true})
			a.noTick = true
			d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64), idle: 50 * time.Millisecond}
			d.send(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
			d.run(a.Init())
			doc := a.doc
			d.send(loadMsg{doc: doc, gen: doc.gen, part: -1, started: &loadStarted{final: doc.url, total: 40 << 20}, progress: -1})
			d.send(loadMsg{doc: doc, gen: doc.gen, part: -1, progress: 3 << 20})
			exGolden(t, d, fmt.Sprintf("loading_%dx%d", sz.w, sz.h))
			// Entries show while the rest streams in.
			h := model.Header{Root: model.RootURLSet, RootLocal: "urlset"}
			h.MD.Present, h.MD.Capability = true, model.CapResourceList
			d.send(loadMsg{doc: doc, gen: doc.gen, part: -1, header: &h, progress: -1})
			var batch []model.Entry
			for i := range 50 {
				batch = append(batch, model.Entry{Index: i, Loc: fmt.Sprintf("%s/big/%05d.txt", exHost, i), HasLoc: true})
			}
			d.send(loadMsg{doc: doc, gen: doc.gen, part: -1, batch: batch, progress: -1})
			d.send(loadMsg{doc: doc, gen: doc.gen, part: -1, progress: 9 << 20})
			exGolden(t, d, fmt.Sprintf("streaming_%dx%d", sz.w, sz.h))
		})
		t.Run(fmt.Sprintf("error_%dx%d", sz.w, sz.h), func(t *testing.T) {
			g := newExGetter()
			g.fail[exHost+"/dataset1/changelist.xml"] = &fetch.StatusError{URL: exHost + "/dataset1/changelist.xml", Status: 503, StatusText: "Service Unavailable", Tries: 4}
			_, d := exApp(t, g, "/dataset1/changelist.xml", sz.w, sz.h)
			exGolden(t, d, fmt.Sprintf("error_%dx%d", sz.w, sz.h))
			// r retries: the Source is back.
			delete(g.fail, exHost+"/dataset1/changelist.xml")
			d.keys("r")
			if got := d.a.doc.entries.Len(); got != 4 {
				t.Fatalf("after retry: %d entries, want 4", got)
			}
		})
	}
}

// TestExplorerNavigation walks down the tree and back with the keys.
func TestExplorerNavigation(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/.well-known/resourcesync", 120, 40)
	want := func(path string, crumbs ...string) {
		t.Helper()
		if a.doc == nil || a.doc.url != exHost+path {
			got := "<none>"
			if a.doc != nil {
				got = a.doc.url
			}
			t.Fatalf("current document %s, want %s", got, exHost+path)
		}
		var labels []string
		for _, c := range a.dv.crumbs() {
			labels = append(labels, c.label)
		}
		if crumbs != nil && strings.Join(labels, " › ") != strings.Join(crumbs, " › ") {
			t.Fatalf("crumbs %q, want %q", labels, crumbs)
		}
	}
	// The breadcrumbs are the path from the Source Description, not the
	// history: a part is named by its number in its index.
	want("/.well-known/resourcesync", "Source Description")
	d.keys("enter")
	want("/dataset1/capabilitylist.xml", "Source Description", "Capability List")
	d.keys("enter")
	want("/dataset1/resourcelist-index.xml", "Source Description", "Capability List", "Resource List Index")
	d.keys("j enter")
	want("/dataset1/resourcelist-2.xml", "Source Description", "Capability List", "Resource List Index", "part 2")
	d.keys("i") // index link: back to the index, as a new visit
	want("/dataset1/resourcelist-index.xml", "Source Description", "Capability List", "Resource List Index")
	if a.dv.Selected() != 0 {
		t.Errorf("index opened by its link: selected %d, want 0", a.dv.Selected())
	}
	d.keys("[") // history back: the part again, cursor where it was
	want("/dataset1/resourcelist-2.xml")
	d.keys("esc")
	want("/dataset1/resourcelist-index.xml")
	if a.dv.Selected() != 1 {
		t.Errorf("back in the index: selected %d, want 1 (the part we came from)", a.dv.Selected())
	}
	d.keys("]")
	want("/dataset1/resourcelist-2.xml")
	d.keys("[")
	if a.dv.Selected() != 1 {
		t.Errorf("back in the index again: selected %d, want 1", a.dv.Selected())
	}
	d.keys("]")
	d.keys("u") // up link: the Capability List, a new visit
	want("/dataset1/capabilitylist.xml", "Source Description", "Capability List")
	d.keys("j enter") // a Resource Dump; M on a package opens its manifest copy (enter opens the package)
	want("/dataset1/resourcedump.xml", "Source Description", "Capability List", "Resource Dump")
	d.keys("M")
	want("/dumps/manifest1.xml", "Source Description", "Capability List", "Resource Dump", "Resource Dump Manifest")

	// Opened directly, a document's path is found through its index and up
	// links (its part number needs the index, which only headers were read
	// of); the document pane gives it too.
	a2, d2 := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, 40)
	var labels []string
	for _, c := range a2.dv.crumbs() {
		labels = append(labels, c.label)
	}
	if got := strings.Join(labels, " › "); got != "Source Description › Capability List › Resource List Index › Resource List" {
		t.Errorf("crumbs of a document opened directly: %q, want the path from the Source Description", got)
	}
	d2.keys("d")
	if s := d2.screen(); !strings.Contains(s, "Source Description › Capability List › Resource List Index › Resource List") {
		t.Errorf("the document pane does not give the path from the Source Description:\n%s", s)
	}
}

// Going back to a URL that is not a ResourceSync document shows what
// discovery found from it, as it was, without running discovery again.
func TestHistoryRestoresDiscovery(t *testing.T) {
	g := newExGetter()
	g.docs["/"] = `<!DOCTYPE html><html><head><link rel="resourcesync" href="` + exHost + `/dataset1/capabilitylist.xml"></head><body>home</body></html>`
	var discoveries int
	a := New(Options{
		Target:  exHost + "/",
		Backend: countingDiscover{Backend: session.NewWithGetter(g, session.Options{BatchSize: 16}), n: &discoveries},
		Now:     func() time.Time { return exTime },
		Dark:    true,
	})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.run(a.Init())
	if len(a.pages) != 1 || a.pages[0].Title() != "Discovery" || discoveries != 1 {
		t.Fatalf("site root: pages %d, %d discoveries; want the discovery page after one", len(a.pages), discoveries)
	}
	disc := a.pages[0].(*pages.Discovery)
	d.keys("j j")
	u := disc.Selected()
	d.keys("enter")
	if a.doc == nil || a.doc.url != u || len(a.pages) != 0 {
		t.Fatalf("enter did not open %s", u)
	}
	d.keys("[")
	if len(a.pages) != 1 || a.pages[0] != disc || disc.Selected() != u {
		t.Fatalf("[: pages %d; want the same discovery page on %s", len(a.pages), u)
	}
	if discoveries != 1 {
		t.Errorf("going back ran discovery again (%d runs)", discoveries)
	}
	d.keys("]")
	if a.doc.url != u || len(a.pages) != 0 {
		t.Errorf("] did not go forward to %s", u)
	}
}

// countingDiscover counts the discoveries run.
type countingDiscover struct {
	Backend
	n *int
}

func (c countingDiscover) Discover(ctx context.Context, url string) (*crawl.Discovery, error) {
	*c.n++
	return c.Backend.Discover(ctx, url)
}

// TestExplorerKeys checks what single keys do on the document page.
func TestExplorerKeys(t *testing.T) {
	cases := []struct {
		name  string
		keys  string
		check func(t *testing.T, a *App, d *exDriver)
	}{
		{"down moves", "j j", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 2) }},
		{"up stops at the top", "k k", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 0) }},
		{"G goes to the end", "G", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 29) }},
		{"end goes to the end", "end", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 29) }},
		{"g after G goes to the top", "G g", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 0) }},
		{"count then g jumps", "1 2 g", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 11) }},
		{"count then G jumps", "2 5 G", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 24) }},
		{"count beyond the end", "9 9 g", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 29) }},
		{"# prompt jumps", "# 7 enter", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 6) }},
		{": with a number jumps", ": 1 9 enter", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 18) }},
		{"ctrl+d half page", "ctrl+d", func(t *testing.T, a *App, _ *exDriver) {
			if s := a.dv.Selected(); s < 5 {
				t.Errorf("selected %d after ctrl+d, want a half page down", s)
			}
		}},
		{"pgdown then pgup", "pgdown pgup", func(t *testing.T, a *App, _ *exDriver) { exWantSel(t, a, 0) }},
		{"s sorts by the next column", "s", func(t *testing.T, a *App, _ *exDriver) {
			if a.dv.sortCol != 0 || a.dv.sortDesc || a.dv.order == nil {
				t.Errorf("sortCol %d desc %v", a.dv.sortCol, a.dv.sortDesc)
			}
		}},
		{"S reverses", "s S", func(t *testing.T, a *App, _ *exDriver) {
			if a.dv.sortCol != 0 || !a.dv.sortDesc {
				t.Errorf("sortCol %d desc %v", a.dv.sortCol, a.dv.sortDesc)
			}
			// Descending by loc: the last resource first; the cursor
			// stays on the entry it was on.
			if first := a.dv.tbl.Row(0); first != 29 {
				t.Errorf("first row is entry %d, want 29", first)
			}
			exWantSel(t, a, 0)
		}},
		{"filter narrows", "/ 0 0 5 . h enter", func(t *testing.T, a *App, _ *exDriver) {
			if n := a.dv.tbl.Len(); n != 1 {
				t.Errorf("%d rows match 005, want 1", n)
			}
			exWantSel(t, a, 4)
		}},
		{"sort under a filter orders the matches", "/ . h t m l enter s S", func(t *testing.T, a *App, _ *exDriver) {
			if n := a.dv.tbl.Len(); n != 30 {
				t.Fatalf("%d rows", n)
			}
			if first := a.dv.tbl.Row(0); first != 29 {
				t.Errorf("first row is entry %d, want 29 (loc descending)", first)
			}
		}},
		{"paste into the filter", "/", func(t *testing.T, a *App, d *exDriver) {
			d.send(tea.PasteMsg{Content: "010.html"})
			if n := a.dv.tbl.Len(); n != 1 {
				t.Errorf("%d rows after pasting a filter, want 1", n)
			}
		}},
		{"filter by column", "/ t y p e : p d f enter", func(t *testing.T, a *App, _ *exDriver) {
			if n := a.dv.tbl.Len(); n != 0 {
				t.Errorf("%d rows of type pdf in part 1, want 0", n)
			}
		}},
		{"esc clears the filter first", "/ 0 0 5 . h enter esc", func(t *testing.T, a *App, _ *exDriver) {
			if n := a.dv.tbl.Len(); n != 30 || a.dv.query.raw != "" {
				t.Errorf("%d rows, query %q after esc", n, a.dv.query.raw)
			}
			if a.doc.url != exHost+"/dataset1/resourcelist-1.xml" {
				t.Errorf("esc with a filter left the document")
			}
		}},
		{"keys go to the filter while typing", "/ q", func(t *testing.T, a *App, d *exDriver) {
			if d.quit {
				t.Errorf("q quit while typing a filter")
			}
			if a.dv.filterInput.Value() != "q" {
				t.Errorf("filter %q, want q", a.dv.filterInput.Value())
			}
		}},
		{"? opens help, esc closes it", "?", func(t *testing.T, a *App, d *exDriver) {
			if a.help == nil {
				t.Fatal("help not open")
			}
			d.keys("esc")
			if a.help != nil {
				t.Error("help still open after esc")
			}
		}},
		{"alt+key is esc then the key", "?", func(t *testing.T, a *App, d *exDriver) {
			d.send(tea.KeyPressMsg{Code: 'j', Mod: tea.ModAlt}) // as the terminal decoder gives it
			if a.help != nil {
				t.Fatal("help still open")
			}
			exWantSel(t, a, 1)
		}},
		{"tab focuses the detail pane", "tab", func(t *testing.T, a *App, _ *exDriver) {
			if a.dv.focus != focusDetail {
				t.Error("detail pane not focused")
			}
		}},
		{"q quits", "q", func(t *testing.T, _ *App, d *exDriver) {
			if !d.quit {
				t.Error("q did not quit")
			}
		}},
		{"ctrl+c quits from the filter", "/ ctrl+c", func(t *testing.T, _ *App, d *exDriver) {
			if !d.quit {
				t.Error("ctrl+c did not quit")
			}
		}},
		{"y copies the selected URL", "j y", func(t *testing.T, a *App, _ *exDriver) {
			if !strings.Contains(a.flash, "/res/002.html") {
				t.Errorf("flash %q", a.flash)
			}
		}},
		{": opens a URL", ": ", func(t *testing.T, a *App, d *exDriver) {
			d.typeText(exHost + "/dataset1/changelist.xml")
			d.keys("enter")
			if a.doc.url != exHost+"/dataset1/changelist.xml" {
				t.Errorf("opened %s", a.doc.url)
			}
		}},
		{"a on a list is refused", "a", func(t *testing.T, a *App, _ *exDriver) {
			if !a.flashErr {
				t.Errorf("no error for a on a Resource List: %q", a.flash)
			}
		}},
		{"x shows the raw XML", "x", func(t *testing.T, a *App, _ *exDriver) { exWantPage(t, a, "Raw XML") }},
		{"h shows the HTTP exchanges", "h", func(t *testing.T, a *App, _ *exDriver) { exWantPage(t, a, "HTTP") }},
		{"p shows the problems", "p", func(t *testing.T, a *App, _ *exDriver) { exWantPage(t, a, "Problems") }},
		{"esc closes a page", "p esc", func(t *testing.T, a *App, _ *exDriver) {
			if len(a.pages) != 0 {
				t.Errorf("pages %q after esc", a.pageTitle())
			}
		}},
		{"enter on a resource opens the resource view", "enter", func(t *testing.T, a *App, _ *exDriver) {
			exWantPage(t, a, "Resource")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, 40)
			d.keys(tc.keys)
			tc.check(t, a, d)
		})
	}
}

func exWantPage(t *testing.T, a *App, title string) {
	t.Helper()
	if a.pageTitle() != title {
		t.Fatalf("pages %q, want the %s page (flash %q)", a.pageTitle(), title, a.flash)
	}
}

func exWantSel(t *testing.T, a *App, want int) {
	t.Helper()
	if got := a.dv.Selected(); got != want {
		t.Errorf("selected entry %d, want %d", got, want)
	}
}

// TestExplorerMouse: the wheel scrolls, a click selects, a second opens.
func TestExplorerMouse(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/capabilitylist.xml", 120, 40)
	// Row 2 of the table is on screen line 2 (crumbs, title) + 1 (header) + 1.
	d.send(tea.MouseClickMsg{X: 5, Y: 4, Button: tea.MouseLeft})
	exWantSel(t, a, 1)
	if a.doc.url != exHost+"/dataset1/capabilitylist.xml" {
		t.Fatal("a first click opened the entry")
	}
	d.send(tea.MouseClickMsg{X: 5, Y: 4, Button: tea.MouseLeft})
	if a.doc.url != exHost+"/dataset1/resourcedump.xml" {
		t.Fatalf("a click on the selected row did not open it: %s", a.doc.url)
	}
	// A click on a column title sorts by it, a second one reverses.
	x := 0
	for a.dv.tbl.ColumnAt(x) != 1 {
		x++
	}
	d.send(tea.MouseClickMsg{X: x, Y: 2, Button: tea.MouseLeft})
	if a.dv.sortCol != 1 || a.dv.sortDesc {
		t.Fatalf("after a click on the header: sortCol %d desc %v", a.dv.sortCol, a.dv.sortDesc)
	}
	d.send(tea.MouseClickMsg{X: x, Y: 2, Button: tea.MouseLeft})
	if a.dv.sortCol != 1 || !a.dv.sortDesc {
		t.Fatalf("after a second click: sortCol %d desc %v", a.dv.sortCol, a.dv.sortDesc)
	}
	// A click on a breadcrumb shows that ancestor: the Capability List the
	// dump was opened from, from the history, where it was left; ] comes
	// forward again.
	first := strings.SplitN(d.screen(), "\n", 2)[0]
	x = ansi.StringWidth(first[:strings.Index(first, "Capability List")]) + 1
	d.send(tea.MouseClickMsg{X: x, Y: 0, Button: tea.MouseLeft})
	if a.doc.url != exHost+"/dataset1/capabilitylist.xml" || a.dv.Selected() != 1 {
		t.Fatalf("click on the first crumb opened %s at entry %d", a.doc.url, a.dv.Selected()+1)
	}
	d.keys("]")
	if a.doc.url != exHost+"/dataset1/resourcedump.xml" {
		t.Fatalf("] after the click opened %s", a.doc.url)
	}
}

// TestExplorerNotResourceSync: an HTML page starts discovery.
func TestExplorerNotResourceSync(t *testing.T) {
	g := newExGetter()
	a, d := exApp(t, g, "/index.html", 120, 40)
	// The discovery view shows what each method found.
	if a.pageTitle() != "Discovery" {
		t.Fatalf("no discovery page (err %v, flash %q)", a.doc.err, a.flash)
	}
	if !strings.Contains(d.screen(), "Source Description") {
		t.Errorf("discovery screen:\n%s", d.screen())
	}
	// Enter opens the Source Description found at the well-known URI.
	d.keys("enter")
	if len(a.pages) != 0 || a.doc.url != exHost+"/.well-known/resourcesync" {
		t.Fatalf("opened %s", a.doc.url)
	}
}

// TestExplorerCancel: esc cancels a load in flight and keeps the screen.
func TestExplorerCancel(t *testing.T) {
	a := New(Options{Target: exHost + "/big.xml", Backend: exStuckBackend{}, Now: func() time.Time { return exTime }})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64), idle: 50 * time.Millisecond}
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.run(a.Init())
	if !a.doc.loading {
		t.Fatal("not loading")
	}
	d.keys("esc")
	if a.doc.loading || !errors.Is(a.doc.err, errCancelled) {
		t.Fatalf("after esc: loading %v err %v", a.doc.loading, a.doc.err)
	}
	if !strings.Contains(d.screen(), "r") {
		t.Fatal("no retry hint")
	}
}

// TestExplorerLightTerminal: the styles follow the terminal's background.
func TestExplorerLightTerminal(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/changelist.xml", 80, 24)
	dark := a.View().Content
	d.send(tea.BackgroundColorMsg{Color: color.White})
	if a.c.Styles.IsDark {
		t.Fatal("styles still dark on a white background")
	}
	light := a.View().Content
	if light == dark {
		t.Error("the screen did not change colours")
	}
	if ansi.Strip(light) != ansi.Strip(dark) {
		t.Error("the text changed with the colours")
	}
}

// TestExplorerTooSmall draws a hint instead of a broken screen.
func TestExplorerTooSmall(t *testing.T) {
	_, d := exApp(t, newExGetter(), "/dataset1/changelist.xml", 30, 8)
	if !strings.Contains(d.screen(), "needs at least") {
		t.Fatalf("screen:\n%s", d.screen())
	}
}

// TestExplorerProgram runs the explorer as a real bubbletea program
// (teatest): it opens the Source Description, walks down with the keys and
// quits; the final screen is compared with a golden file.
func TestExplorerProgram(t *testing.T) {
	a := New(Options{
		Target:          exHost + "/.well-known/resourcesync",
		Backend:         session.NewWithGetter(newExGetter(), session.Options{}),
		Now:             func() time.Time { return exTime },
		Dark:            true,
		PartConcurrency: 1,
	})
	tm := teatest.NewTestModel(t, a, teatest.WithInitialTermSize(120, 40))
	waitFor := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), s) },
			teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	waitFor("/dataset1/capabilitylist.xml")
	tm.Send(exKey("enter"))
	waitFor("/dataset1/resourcedump.xml")
	tm.Send(exKey("j"))
	tm.Send(exKey("j"))
	tm.Send(exKey("enter"))
	// The first entry's link, read back from the document once it loaded
	// (a word the screen had nowhere before).
	waitFor("representation")
	tm.Send(exKey("q"))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*App)
	if final.doc == nil || final.doc.url != exHost+"/dataset1/changelist.xml" {
		t.Fatalf("final document %v", final.doc)
	}
	golden.RequireEqual(exNamed{t, "explorer_program_120x40"}, ansi.Strip(final.View().Content))
}

// TestExplorerNothingOpen: with no document, keys and the mouse do no harm.
func TestExplorerNothingOpen(t *testing.T) {
	a := New(Options{Backend: NopBackend{}, Now: func() time.Time { return exTime }})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.run(a.Init())
	d.keys("j k 5 g G / x enter esc s S tab d a y r u i [ ] # 3 enter h p x D ?")
	d.send(tea.MouseClickMsg{X: 3, Y: 3, Button: tea.MouseLeft})
	d.send(tea.MouseWheelMsg{X: 3, Y: 3, Button: tea.MouseWheelDown})
	d.keys("esc")
	if !strings.Contains(d.screen(), "Nothing open") {
		t.Fatalf("screen:\n%s", d.screen())
	}
	d.keys(": x enter") // a word, not a file: no command
	if a.doc != nil || !strings.Contains(d.screen(), "unknown command :x") {
		t.Fatalf(":x opened something, or was not said to be no command:\n%s", d.screen())
	}
	d.keys("esc :")
	d.typeText("./x.xml")
	d.keys("enter")
	if a.doc == nil || a.doc.err == nil {
		t.Fatal("opening a missing file gave no error")
	}
}

// TestExplorerKeyStorm presses keys, clicks and resizes at random on every
// document type: nothing may panic and every screen must fit the terminal.
func TestExplorerKeyStorm(t *testing.T) {
	keys := strings.Fields("j k g G enter esc s S / 0 1 a x h p d tab y u i [ ] # : ? q r pgdown pgup ctrl+d ctrl+u home end space backspace")
	targets := []string{"/.well-known/resourcesync", "/dataset1/capabilitylist.xml", "/dataset1/resourcelist-index.xml",
		"/dataset1/changelist.xml", "/dataset1/resourcedump.xml", "/dumps/cmanifest1.xml", "/index.html", "/missing.xml"}
	seed := uint32(1)
	next := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % n
	}
	for _, target := range targets {
		t.Run(strings.ReplaceAll(target, "/", "_"), func(t *testing.T) {
			a, d := exApp(t, newExGetter(), target, 100, 30)
			for range 300 {
				switch r := next(20); {
				case r == 0:
					d.send(tea.WindowSizeMsg{Width: 30 + next(140), Height: 6 + next(50)})
				case r == 1:
					d.send(tea.MouseClickMsg{X: next(a.width), Y: next(a.height), Button: tea.MouseLeft})
				case r == 2:
					d.send(tea.MouseWheelMsg{X: next(a.width), Y: next(a.height), Button: tea.MouseWheelDown})
				default:
					k := keys[next(len(keys))]
					if k == "q" {
						k = "esc" // stay in the program
					}
					d.keys(k)
				}
				s := d.screen()
				if n := strings.Count(s, "\n") + 1; n != a.height {
					t.Fatalf("%d lines on a %d-line terminal:\n%s", n, a.height, s)
				}
				for _, l := range strings.Split(s, "\n") {
					if w := ansi.StringWidth(l); w > a.width {
						t.Fatalf("a line of %d cells on a %d-cell terminal: %q", w, a.width, l)
					}
				}
			}
		})
	}
}

// TestExplorerCrossProblems: p on a Capability List checks the documents it
// lists against it.
func TestExplorerCrossProblems(t *testing.T) {
	g := newExGetter()
	cl := g.docs["/dataset1/capabilitylist.xml"]
	g.docs["/dataset1/capabilitylist.xml"] = strings.Replace(cl,
		`resourcedump.xml</loc><rs:md capability="resourcedump"/>`, `resourcedump.xml</loc><rs:md capability="changedump"/>`, 1)
	a, d := exApp(t, g, "/dataset1/capabilitylist.xml", 120, 40)
	d.keys("p")
	exWantPage(t, a, "Problems")
	if a.pages[0].Busy() {
		t.Fatal("cross-document checks still running")
	}
	if s := d.screen(); !strings.Contains(s, "changedump") {
		t.Fatalf("no cross-document problem on screen:\n%s", s)
	}
}

// TestExplorerRawLargeAndBroken: x reads a document again when it was too
// large to keep, and opens a broken one where it breaks.
func TestExplorerRawLargeAndBroken(t *testing.T) {
	g := newExGetter()
	a := New(Options{
		Target:  exHost + "/dataset1/changelist.xml",
		Backend: session.NewWithGetter(g, session.Options{MaxRaw: 100}),
		Now:     func() time.Time { return exTime },
	})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.run(a.Init())
	if a.doc.raw != nil {
		t.Fatal("raw kept beyond MaxRaw")
	}
	d.keys("x")
	exWantPage(t, a, "Raw XML")
	if s := d.screen(); !strings.Contains(s, `capability="changelist"`) {
		t.Fatalf("raw view without the document:\n%s", s)
	}

	g.docs["/broken.xml"] = strings.Replace(g.docs["/dataset1/changelist.xml"], "</url>", "</urlx>", 2)
	a2, d2 := exApp(t, g, "/broken.xml", 100, 30)
	if a2.doc.err == nil {
		t.Fatal("no error for a broken document")
	}
	d2.keys("x")
	exWantPage(t, a2, "Raw XML")
}

// TestExplorerHeaderSyntaxError: a document whose XML fails before its first
// entry (here a DOCTYPE declaring entities) shows that error and an
// xml-malformed problem, not "not a ResourceSync document" and discovery.
func TestExplorerHeaderSyntaxError(t *testing.T) {
	g := newExGetter()
	g.docs["/bomb.xml"] = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]>` +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">&b;</urlset>`
	a, d := exApp(t, g, "/bomb.xml", 100, 30)
	if len(a.pages) != 0 || a.doc == nil {
		t.Fatalf("pages %q, want the document page with its error", a.pageTitle())
	}
	if a.doc.err == nil || !strings.Contains(a.doc.err.Error(), "DOCTYPE") {
		t.Fatalf("error %v, want the DOCTYPE syntax error", a.doc.err)
	}
	if s := d.screen(); !strings.Contains(s, "DOCTYPE") || strings.Contains(s, "not a ResourceSync document") {
		t.Errorf("screen:\n%s", s)
	}
	found := false
	for _, p := range a.doc.problems {
		found = found || p.Rule == "xml-malformed"
	}
	if !found {
		t.Errorf("problems %v lack xml-malformed", a.doc.problems)
	}
}
