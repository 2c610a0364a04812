package ui

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/crawl"
	"rsx/dump"
	"rsx/memento"
	"rsx/model"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/internal/uitest"
	"rsx/ui/pages"
)

// exFakePage records what the root gives it.
type exFakePage struct {
	title   string
	got     []tea.Msg
	keys    []string
	closed  bool
	w, h    int
	backErr bool // Back handles esc once
}

type exPing struct{ n int }

func (p *exFakePage) Init() tea.Cmd { return nil }
func (p *exFakePage) Update(msg tea.Msg) (Page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		p.keys = append(p.keys, msg.String())
	case exPing:
		p.got = append(p.got, msg)
	}
	return p, nil
}
func (p *exFakePage) View() string               { return p.title }
func (p *exFakePage) SetSize(w, h int)           { p.w, p.h = w, h }
func (p *exFakePage) KeyBindings() []key.Binding { return nil }
func (p *exFakePage) Title() string              { return p.title }
func (p *exFakePage) InputActive() bool          { return false }
func (p *exFakePage) Busy() bool                 { return false }
func (p *exFakePage) Back() (bool, tea.Cmd) {
	if p.backErr {
		p.backErr = false
		return true, nil
	}
	return false, nil
}
func (p *exFakePage) Close() { p.closed = true }

// TestAppRoutesToPages: keys go to the active page only, results of
// background work to every open page; esc asks the active page first, then
// closes it; a page is sized below the tab line, and again on resize.
func TestAppRoutesToPages(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/changelist.xml", 100, 30)
	under := &exFakePage{title: "Under"}
	top := &exFakePage{title: "Top", backErr: true}
	d.send(pushPageMsg{Page: under})
	d.send(pushPageMsg{Page: top})
	if got := a.pageTitle(); got != "Under › Top" {
		t.Fatalf("pages %q", got)
	}
	if top.w != 100 || top.h != 30-pageChrome {
		t.Errorf("top page sized %d×%d, want 100×%d", top.w, top.h, 30-pageChrome)
	}
	d.keys("j")
	d.send(exPing{1})
	if !slices.Equal(top.keys, []string{"j"}) || len(under.keys) != 0 {
		t.Errorf("keys: top %v, under %v", top.keys, under.keys)
	}
	if len(top.got) != 1 || len(under.got) != 1 {
		t.Errorf("a result reached top %d times, under %d times; want once each", len(top.got), len(under.got))
	}
	if s := d.screen(); !strings.HasPrefix(s, "Change List › Under › Top") {
		t.Errorf("tab line:\n%s", s)
	}
	d.send(tea.WindowSizeMsg{Width: 90, Height: 20})
	if under.w != 90 || under.h != 20-pageChrome {
		t.Errorf("after resize the page under is %d×%d", under.w, under.h)
	}
	d.keys("esc") // handled by the page
	if top.closed || len(a.pages) != 2 {
		t.Fatal("esc closed a page that handled it")
	}
	d.keys("esc")
	if !top.closed || a.pageTitle() != "Under" {
		t.Fatalf("esc did not close the top page: %q", a.pageTitle())
	}
	// A document opened from a page sets the page aside: going back shows
	// it again, as it was; moving on elsewhere closes it.
	d.send(openURLMsg{URL: exHost + "/dataset1/resourcelist-1.xml"})
	if under.closed || len(a.pages) != 0 {
		t.Fatalf("opening a document from a page: closed %v, %d pages over the new one", under.closed, len(a.pages))
	}
	d.keys("esc")
	if under.closed || a.pageTitle() != "Under" {
		t.Fatalf("back, the page is not shown again: %q", a.pageTitle())
	}
	d.keys("]")
	if !under.closed || len(a.pages) != 0 {
		t.Error("forward again: the page was not closed")
	}
}

// TestHelpListsEveryKey: every binding of the key map is on the help screen,
// in the key map's groups or in the group of a page that uses it, so that
// help cannot leave out a key that works. Only the keys of a text input and
// the digits of a count are left to the footers.
func TestHelpListsEveryKey(t *testing.T) {
	c := common.New(true, func() time.Time { return exTime })
	k := c.Keys
	shown := map[string]bool{}
	add := func(bs []key.Binding) {
		for _, b := range bs {
			shown[strings.Join(b.Keys(), " ")] = true
		}
	}
	for _, g := range k.Groups() {
		add(g.Bindings)
	}
	pages := []Page{
		pages.NewRaw(c, "x", []byte("<a/>")),
		pages.NewHTTP(c, nil),
		pages.NewProblems(c, nil, nil),
		pages.NewResource(c, NopBackend{}, "", model.Entry{Loc: "http://example.org/r"}),
		pages.NewDiscovery(c, &crawl.Discovery{}),
		pages.NewVersions(c, NopBackend{}, "", pages.VersionRefs{Original: "http://example.org/r", TimeMap: "http://example.org/tm"}),
		pages.NewDiff(c, NopBackend{}, memento.Memento{URL: "http://example.org/v1"}, "http://example.org/r"),
		pages.NewPackage(c, NopBackend{}, dump.PackageRef{URL: "http://example.org/p.zip", Contents: "http://example.org/m.xml"}, true, dump.Options{}),
		pages.NewSync(c, &uitest.SyncJob{}, "the entries", nil),
		pages.NewAudit(c, NopBackend{}, session.AuditRequest{}, "the entries", nil),
		pages.NewSpot(c, NopBackend{}, session.SpotRequest{}, "the entries", nil),
		pages.NewFleet(c, nil, "fleet.toml", nil, nil),
	}
	for _, p := range pages {
		add(p.KeyBindings())
	}
	// The keys of the ":" prompt are listed together, as PromptKeys.
	unlisted := map[string]bool{"Submit": true, "Cancel": true, "Count": true, "PrevPane": true, "PromptPrev": true, "PromptNext": true, "Complete": true}
	v := reflect.ValueOf(k)
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		b, ok := v.Field(i).Interface().(key.Binding)
		if !ok || unlisted[name] {
			continue
		}
		if !shown[strings.Join(b.Keys(), " ")] {
			t.Errorf("KeyMap.%s (%v) is on no help screen", name, b.Keys())
		}
	}
	// Every key a page opener answers to is in the document's groups.
	a := New(Options{Backend: NopBackend{}})
	for _, o := range a.pageOpeners() {
		if !shown[strings.Join(o.key.Keys(), " ")] {
			t.Errorf("the page opened by %v is not in the help", o.key.Keys())
		}
	}
}

// TestHelpOverPageShowsItsKeysFirst: the help opened over a page starts
// with that page's own keys, so that on an 80×24 terminal they are in view
// without scrolling past the document's.
func TestHelpOverPageShowsItsKeysFirst(t *testing.T) {
	c := common.New(true, func() time.Time { return exTime })
	p := pages.NewResource(c, NopBackend{}, "", model.Entry{Loc: "http://example.org/r"})
	hs := newHelpScreen(c, c.Keys.PageHelp("Resource", p.KeyBindings()), false, 80, 24)
	screen := ansi.Strip(hs.View())
	if !strings.Contains(screen, "Resource") || !strings.Contains(screen, "fetch and compare mirrors") {
		t.Errorf("the resource page's keys are not in view at 80×24:\n%s", screen)
	}
	if i, j := strings.Index(screen, "fetch and compare mirrors"), strings.Index(screen, "first entry"); j >= 0 && i > j {
		t.Errorf("the page's keys come after the document's:\n%s", screen)
	}
}

// TestMissingFileThatLooksLikeAHost: ":example.org", typed as in a browser,
// is no file here; the error says to give the scheme. A file name is not
// taken for a host.
func TestMissingFileThatLooksLikeAHost(t *testing.T) {
	for _, tc := range []struct {
		target string
		hint   bool
	}{
		{"example.org", true},
		{"example.org/.well-known/resourcesync", true},
		{"missing-resourcelist.xml", false},
	} {
		_, d := exAppOn(t, session.NewWithGetter(newExGetter(), session.Options{}), tc.target, 120, 40)
		// The box's text, its lines joined.
		screen := strings.Join(strings.Fields(strings.ReplaceAll(d.screen(), "│", " ")), " ")
		if !strings.Contains(screen, "Could not load this document") {
			t.Fatalf("%s:\n%s", tc.target, screen)
		}
		if got := strings.Contains(screen, "give the scheme: https://"+tc.target+")"); got != tc.hint {
			t.Errorf("%s: hint shown %v, want %v:\n%s", tc.target, got, tc.hint, screen)
		}
	}
}

// v on an entry with version links opens its versions; from the resource
// view, enter on the timemap link opens them over it, and esc comes back.
func TestVersionsFromTheExplorer(t *testing.T) {
	g := newExGetter()
	g.docs["/dataset9/resourcelist.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2026-01-06T00:00:00Z"/>
<url><loc>http://example.com/res1.txt</loc>
<rs:ln rel="memento" href="http://example.com/versions/v2/res1.txt" modified="2026-01-05T06:00:00Z"/>
<rs:ln rel="timegate" href="http://example.com/timegate/res1.txt"/>
<rs:ln rel="timemap" href="` + exHost + `/timemap/res1.txt" type="application/link-format"/>
</url>
<url><loc>http://example.com/res2.txt</loc></url>
</urlset>
`
	g.docs["/timemap/res1.txt"] = uitest.TimeMap
	a, d := exApp(t, g, "/dataset9/resourcelist.xml", 120, 40)
	d.keys("v")
	if len(a.pages) != 1 || a.pages[0].Title() != "Versions" {
		t.Fatalf("v opened %q (flash %q)", a.pageTitle(), a.flash)
	}
	// The TimeMap's three versions (the header counts them).
	if s := d.screen(); !strings.Contains(s, "3 mementos") || !strings.Contains(s, "versions/v1/res1.txt") {
		t.Errorf("the versions page does not list the TimeMap's 3 versions:\n%s", s)
	}
	d.keys("esc j v")
	if len(a.pages) != 0 || !strings.Contains(a.flash, "links to no versions") {
		t.Errorf("v on an entry without version links: pages %q, flash %q", a.pageTitle(), a.flash)
	}
	// From the resource view: the timemap link is the third.
	d.keys("k enter")
	if a.pageTitle() != "Resource" {
		t.Fatalf("enter opened %q", a.pageTitle())
	}
	d.keys("j j enter")
	if a.pageTitle() != "Resource › Versions" {
		t.Fatalf("enter on the timemap link opened %q", a.pageTitle())
	}
	d.keys("esc")
	if a.pageTitle() != "Resource" {
		t.Errorf("esc from the versions went to %q", a.pageTitle())
	}
}

// the entry's first problem, and esc comes back to the entry.
func TestDetailListsEntryProblems(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, 40)
	d.keys("1 2 g") // md5 with the 40 digits of a sha-1: hash-length, an error
	s := d.screen()
	for _, want := range []string{"Problems 1 error · P: on the problems page", "✗ hash-length  error · §7 · line 16", "md5 digest has 40 hex digits, expected 32", "loc "} {
		if !strings.Contains(s, want) {
			t.Errorf("entry 12's detail lacks %q:\n%s", want, s)
		}
	}
	if ps := a.doc.problemsOf(11); len(ps) != 1 || ps[0].Rule != "hash-length" {
		t.Fatalf("problemsOf(11) = %+v", ps)
	}
	d.keys("P")
	v, ok := a.active().(*pages.Problems)
	if !ok {
		t.Fatalf("P opened %T", a.active())
	}
	if p := v.Selected(); p == nil || p.Entry != 11 || p.Rule != "hash-length" {
		t.Errorf("P selected %+v, want entry 12's hash-length", p)
	}
	d.keys("esc")
	if a.active() != Page(a.dv) || a.dv.Selected() != 11 {
		t.Errorf("esc: %T, entry %d", a.active(), a.dv.Selected()+1)
	}

	// Entry 20's warning is in a group that is not the first.
	a, d = exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 80, 24)
	d.keys("2 0 g P")
	v = a.active().(*pages.Problems)
	if p := v.Selected(); p == nil || p.Entry != 19 || p.Rule != "hash-base64" {
		t.Errorf("P on entry 20 selected %+v", p)
	}
	d.keys("esc 1 g")
	if s := d.screen(); strings.Contains(s, "Problems ") {
		t.Errorf("entry 1 has no problems, yet the detail lists some:\n%s", s)
	}
	d.keys("P")
	if _, ok := a.active().(*pages.Problems); ok || !strings.Contains(a.flash, "entry 1 has no problems") {
		t.Errorf("P on entry 1: %T, flash %q", a.active(), a.flash)
	}
}
