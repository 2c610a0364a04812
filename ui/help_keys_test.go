package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/fetch"
	"rsx/session"
	"rsx/ui/internal/uitest"
)

// helpBackend is the session of the fixtures with a browser that only
// records what it was asked to open.
type helpBackend struct {
	*session.Session
	mu     sync.Mutex
	opened []string
	gets   *countingGetter
}

// countingGetter counts the requests made through it; once failing, every
// URL answers 404.
type countingGetter struct {
	*exGetter
	mu      sync.Mutex
	n       int
	failing bool
}

func (g *countingGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	g.mu.Lock()
	g.n++
	failing := g.failing
	g.mu.Unlock()
	if failing {
		return exNotFound(url)
	}
	return g.exGetter.Get(ctx, url)
}

// failFromNow makes every later request fail.
func (g *countingGetter) failFromNow() {
	g.mu.Lock()
	g.failing = true
	g.mu.Unlock()
}

func (g *countingGetter) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

func (b *helpBackend) OpenBrowser(url string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.opened = append(b.opened, url)
	return nil
}

// helpPlace is a page of the explorer, reached from a fresh explorer on
// target (a path on exHost) by keys, then a command typed at ":" (DIR in
// it is a new empty folder).
type helpPlace struct {
	name   string
	target string
	keys   string
	prompt string
	title  string // the active page's title ("" the document page)
	// failed: the place as it is when its loads fail: every request fails
	// from the start on a document page, else once the document and the
	// first failAfter keys are in (the page's own loads fail).
	failed    bool
	failAfter int
}

// helpPlaces are every page of the explorer over the fixtures.
var helpPlaces = []helpPlace{
	{name: "document (change list)", target: "/dataset1/changelist.xml"},
	{name: "document (resource list part)", target: "/dataset1/resourcelist-1.xml"},
	{name: "document (index)", target: "/dataset1/resourcelist-index.xml"},
	{name: "document (resource dump)", target: "/dataset1/resourcedump.xml"},
	{name: "document (source description)", target: "/.well-known/resourcesync"},
	{name: "raw", target: "/dataset1/changelist.xml", keys: "x", title: "Raw XML"},
	{name: "http", target: "/dataset1/changelist.xml", keys: "h", title: "HTTP"},
	{name: "problems", target: "/dataset1/resourcelist-1.xml", keys: "p", title: "Problems"},
	{name: "discovery", target: "/dataset1/changelist.xml", keys: "D", title: "Discovery"},
	{name: "coverage", target: "/dataset1/changelist.xml", keys: "C", title: "Coverage"},
	{name: "resource", target: "/dataset1/changelist.xml", keys: "enter", title: "Resource"},
	{name: "package", target: "/dataset1/resourcedump.xml", keys: "enter", title: "Package"},
	{name: "spot check", target: "/dataset1/resourcelist-2.xml", keys: "K", title: "Spot check"},
	{name: "notifications", target: "/dataset1/changelist.xml", keys: "w", title: "Notifications"},
	{name: "sync plan", target: "/dataset1/resourcelist-2.xml", prompt: "sync DIR", title: "Sync"},
	{name: "audit", target: "/dataset1/resourcelist-2.xml", prompt: "audit DIR", title: "Audit"},
	{name: "versions", target: "/dataset9/resourcelist.xml", keys: "v", title: "Versions"},
	{name: "diff", target: "/dataset9/resourcelist.xml", keys: "v c", title: "Versions › Diff"},
}

// helpVersions is a Resource List whose first entry links to its versions
// (a TimeMap of three).
const helpVersions = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2026-01-06T00:00:00Z"/>
<url><loc>http://example.com/res1.txt</loc>
<rs:ln rel="memento" href="http://example.com/versions/v2/res1.txt" modified="2026-01-05T06:00:00Z"/>
<rs:ln rel="timemap" href="` + exHost + `/timemap/res1.txt" type="application/link-format"/>
</url>
<url><loc>http://example.com/res2.txt</loc></url>
</urlset>
`

// reach opens the place in a fresh explorer.
func (p helpPlace) reach(t *testing.T) (*App, *exDriver, *helpBackend) {
	t.Helper()
	g := &countingGetter{exGetter: newExGetter()}
	g.docs["/dataset9/resourcelist.xml"] = helpVersions
	g.docs["/timemap/res1.txt"] = uitest.TimeMap
	b := &helpBackend{Session: session.NewWithGetter(g, session.Options{BatchSize: 16}), gets: g}
	onDocument := p.keys == "" && p.prompt == ""
	if p.failed && onDocument {
		g.failFromNow()
	}
	a, d := exAppOn(t, b, exHost+p.target, 80, 16)
	for i, k := range strings.Fields(p.keys) {
		if p.failed && i == p.failAfter {
			g.failFromNow()
		}
		d.send(helpKey(k))
	}
	if p.failed && p.keys == "" {
		g.failFromNow()
	}
	if p.prompt != "" {
		d.keys(":")
		d.typeText(strings.ReplaceAll(p.prompt, "DIR", t.TempDir()))
		d.keys("enter")
	}
	title := ""
	if len(a.pages) > 0 {
		title = a.pageTitle()
	}
	if !strings.HasPrefix(title, p.title) || (p.title == "") != (title == "") {
		t.Fatalf("%s: the page shown is %q, want %q\n%s", p.name, title, p.title, d.screen())
	}
	return a, d, b
}

// helpKey is the key press of a key name as key.Binding spells it.
func helpKey(k string) tea.KeyPressMsg {
	switch k {
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case " ":
		return exKey("space")
	}
	return exKey(k)
}

// listedKeys are the enabled bindings of the help over the active page.
func listedKeys(t *testing.T, a *App, d *exDriver) []key.Binding {
	t.Helper()
	d.keys("?")
	if a.help == nil {
		t.Fatal("? opened no help")
	}
	var out []key.Binding
	for _, g := range a.help.groups() {
		for _, b := range g.Bindings {
			if b.Enabled() {
				out = append(out, b)
			}
		}
	}
	d.keys("esc")
	return out
}

// promptCommand tells a binding typed at the ":" prompt (":sync", ":q"),
// which no key press matches.
func promptCommand(b key.Binding) bool {
	ks := b.Keys()
	return len(ks) > 0 && strings.HasPrefix(ks[0], ":") && len(ks[0]) > 1
}

// helpPrep is what a movement key needs first to have somewhere to go
// (a page may start at either end).
var helpPrep = map[string]string{
	"up": "end", "k": "end", "pgup": "end", "ctrl+b": "end", "ctrl+u": "end", "home": "end", "g": "end",
	"down": "home", "j": "home", "pgdown": "home", "ctrl+f": "home", "ctrl+d": "home", "end": "home", "G": "home",
	"left": "right",
}

// TestHelpKeysWorkOnEveryPage: on every page, ? lists no key twice, and
// every key it lists does something there: pressed in a fresh explorer on
// that page, it changes the screen, opens a page or quits, and is not
// refused with an error. The help is drawn from the key map that the
// pages match keys against, so a rebound key is tested as rebound
// (TestHelpShowsReboundKeys).
func TestHelpKeysWorkOnEveryPage(t *testing.T) {
	for _, p := range helpPlaces {
		t.Run(p.name, func(t *testing.T) {
			a, d, _ := p.reach(t)
			listed := listedKeys(t, a, d)
			seen := map[string]string{}
			for _, b := range listed {
				for _, k := range b.Keys() {
					if prev, ok := seen[k]; ok {
						t.Errorf("%s is listed twice: %q and %q", k, prev, b.Help().Desc)
					}
					seen[k] = b.Help().Desc
				}
			}
			for _, b := range listed {
				if promptCommand(b) {
					testPromptBinding(t, p, b)
					continue
				}
				for _, k := range b.Keys() {
					if why := keyDoesSomething(t, p, k); why != "" {
						t.Errorf("%s (%q) is listed but %s", k, b.Help().Desc, why)
					}
				}
			}
		})
	}
}

// TestFooterKeysWorkOnEveryPage: on every page of
// TestHelpKeysWorkOnEveryPage, loaded and with its loads failed (the
// document, or what the page over it fetches), the footer lists only keys
// that ? lists there too, and each does something when pressed: the
// footer is drawn from the key map the help reads, in the page's state.
func TestFooterKeysWorkOnEveryPage(t *testing.T) {
	for _, failed := range []bool{false, true} {
		for _, p := range helpPlaces {
			p.failed = failed
			if failed {
				p.name += ", failed"
				p.failAfter = helpFailAfter[p.name]
			}
			t.Run(p.name, func(t *testing.T) {
				a, d, _ := p.reach(t)
				if failed && p.keys == "" && p.prompt == "" && !a.dv.failed() {
					t.Fatalf("the document did not fail:\n%s", d.screen())
				}
				footer := a.footerBindings()
				listed := listedKeys(t, a, d)
				for _, b := range footer {
					if !b.Enabled() {
						continue
					}
					for _, k := range b.Keys() {
						if !slices.ContainsFunc(listed, func(h key.Binding) bool { return slices.Contains(h.Keys(), k) }) {
							t.Errorf("the footer lists %s (%q), which ? does not", k, b.Help().Desc)
							continue
						}
						if why := keyDoesSomething(t, p, k); why != "" {
							t.Errorf("the footer lists %s (%q) but %s\n%s", k, b.Help().Desc, why, d.screen())
						}
					}
				}
			})
		}
	}
}

// helpFailAfter is how many of a failed place's keys are pressed before
// the loads fail (the page is reached by a page that loads).
var helpFailAfter = map[string]int{"diff, failed": 1}

// keyDoesSomething presses k on a fresh place; "" when it did something,
// else what happened instead.
func keyDoesSomething(t *testing.T, p helpPlace, k string) string {
	t.Helper()
	try := func(prep string) (string, bool) {
		a, d, b := p.reach(t)
		if prep != "" {
			d.send(helpKey(prep))
		}
		// The screen with its colours: a pane's focus shows in them.
		before, pages, flash, gets := a.View().Content, len(a.pages), a.flash, b.gets.count()
		_, cmd := a.Update(helpKey(k))
		d.exec(cmd)
		d.run(nil)
		switch {
		case a.flashErr && a.flash != "":
			return "refused: " + a.flash, true
		case d.quit, len(a.pages) != pages, len(b.opened) > 0, b.gets.count() != gets, cmd != nil:
			return "", true
		case a.View().Content != before || a.flash != flash:
			return "", true
		}
		return "changes nothing", false
	}
	why, done := try("")
	if done {
		return why
	}
	if prep := helpPrep[k]; prep != "" {
		why, _ = try(prep)
	}
	return why
}

// testPromptBinding types a ":" command the help lists.
func testPromptBinding(t *testing.T, p helpPlace, b key.Binding) {
	t.Helper()
	a, d, _ := p.reach(t)
	before, pages := d.screen(), len(a.pages)
	switch b.Keys()[0] {
	case ":↑": // earlier entries and completion at the prompt
		d.keys(":")
		d.typeText(exHost + "/dataset1/change")
		before = d.screen()
		d.keys("tab")
		if d.screen() == before {
			t.Errorf("tab at the prompt completes nothing")
		}
		d.keys("esc")
		return
	case ":q":
		d.keys(":")
		d.typeText("q")
		d.keys("enter")
		if !d.quit {
			t.Errorf(":q does not quit")
		}
		return
	}
	d.keys(":")
	d.typeText(strings.TrimPrefix(b.Keys()[0], ":") + " " + t.TempDir())
	d.keys("enter")
	if a.flashErr && a.flash != "" {
		t.Errorf("%s is listed but refused: %s", b.Keys()[0], a.flash)
	} else if d.screen() == before && len(a.pages) == pages {
		t.Errorf("%s is listed but changes nothing", b.Keys()[0])
	}
}

// TestHelpShowsReboundKeys: a key rebound in the configuration file is the
// key the help lists, on the document page and over a page, and the old
// key is listed nowhere.
func TestHelpShowsReboundKeys(t *testing.T) {
	a, d := exAppOpts(t, Options{Dark: true, Keys: map[string][]string{"raw": {"X"}, "quit": {"Q"}, "next_match": {"F"}}})
	has := func(bs []key.Binding, k, desc string) bool {
		return slices.ContainsFunc(bs, func(b key.Binding) bool {
			return slices.Contains(b.Keys(), k) && strings.Contains(b.Help().Desc, desc)
		})
	}
	doc := listedKeys(t, a, d)
	if !has(doc, "X", "raw XML") || has(doc, "x", "raw XML") || !has(doc, "Q", "quit") {
		t.Errorf("document page's help after rebinding raw to X and quit to Q: %v", helpKeysOf(doc))
	}
	d.keys("X")
	if len(a.pages) == 0 {
		t.Fatal("X does not open the raw XML")
	}
	d.keys("/") // the next match is listed once a search found some
	d.typeText("loc")
	d.keys("enter")
	raw := listedKeys(t, a, d)
	if !has(raw, "F", "next match") || has(raw, "n", "next match") || !has(raw, "Q", "quit") {
		t.Errorf("raw page's help after rebinding next_match to F: %v", helpKeysOf(raw))
	}
}

func helpKeysOf(bs []key.Binding) string {
	var out []string
	for _, b := range bs {
		out = append(out, fmt.Sprintf("%s=%s", b.Help().Key, b.Help().Desc))
	}
	return strings.Join(out, ", ")
}
