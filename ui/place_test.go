package ui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"rsx/dest/engine"
	"rsx/session"
	"rsx/ui/pages"
)

// The explorer keeps its place (issue 36): the fleet page is a place of
// the history, the copy attached shows only on the Source it holds, the
// audit page compares again after a repair, and a mistyped command at the
// ":" prompt is said, not opened.

// exFleetApp is an explorer on the fixtures' Capability List with the
// fleet page of a file of two Sources open over it (the second on
// another host, which the fixtures do not serve), each copy in dir.
func exFleetApp(t *testing.T, w, h int) (*App, *exDriver, string) {
	t.Helper()
	a, dir := exFleetModel(t)
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(a.Init())
	if _, ok := a.active().(*pages.Fleet); !ok {
		t.Fatalf("the fleet page is not shown at the start:\n%s", d.screen())
	}
	return a, d, dir
}

// exFleetModel is the explorer of exFleetApp, not started, and the folder
// of its fleet file.
func exFleetModel(t *testing.T) (*App, string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "fleet.toml")
	if err := os.WriteFile(file, []byte(`dest = "`+filepath.Join(dir, "archive")+`"

[[source]]
name = "datasets"
url = "`+exHost+`/dataset1/capabilitylist.xml"

[[source]]
name = "elsewhere"
url = "http://example.net/capabilitylist.xml"
dest = "`+filepath.Join(dir, "elsewhere")+`"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	sess := session.NewWithGetter(newExGetter(), session.Options{BatchSize: 16})
	a := New(Options{Target: exHost + "/.well-known/resourcesync", Backend: sess, Fleet: sess, FleetFile: file,
		Now: func() time.Time { return exTime }, Dark: true, PartConcurrency: 1})
	return a, dir
}

// exFleetScreen is the fleet page's screen with the temporary folder named
// the same in every run.
func exFleetScreen(d *exDriver, dir string) string {
	return strings.ReplaceAll(d.screen(), dir, "/tmp/fleet")
}

// enter on a Source of the fleet page opens it as a new place; esc there
// comes back to the fleet page, its selection as it was; [ and ] move
// between them as between documents.
func TestFleetPageIsAPlace(t *testing.T) {
	a, d, dir := exFleetApp(t, 120, 40)
	d.keys("down up") // (the first Source)
	d.keys("enter")
	if _, ok := a.active().(*pages.Fleet); ok || a.doc == nil || !strings.HasSuffix(a.doc.url, "/dataset1/capabilitylist.xml") {
		t.Fatalf("enter did not open the Source's Capability List:\n%s", d.screen())
	}
	d.keys("esc")
	f, ok := a.active().(*pages.Fleet)
	if !ok {
		t.Fatalf("esc did not come back to the fleet page:\n%s", d.screen())
	}
	if s := d.screen(); !strings.Contains(s, "▸ "+exHost+"/dataset1/capabilitylist.xml") {
		t.Errorf("the fleet page's selection was lost:\n%s", s)
	}
	exGoldenText(t, "fleet_back", exFleetScreen(d, dir), d)
	d.keys("]")
	if _, ok := a.active().(*pages.Fleet); ok || a.doc == nil || !strings.HasSuffix(a.doc.url, "/dataset1/capabilitylist.xml") {
		t.Fatalf("] did not go forward to the Source's Capability List:\n%s", d.screen())
	}
	d.keys("[")
	if g, ok := a.active().(*pages.Fleet); !ok || g != f {
		t.Fatalf("[ did not come back to the same fleet page:\n%s", d.screen())
	}
	// Back from the fleet page: the document it opened over, no page left.
	d.keys("esc")
	if len(a.pages) != 0 || a.doc == nil || !strings.HasSuffix(a.doc.url, "/.well-known/resourcesync") {
		t.Fatalf("esc on the fleet page did not go back to the Source Description: %d pages\n%s", len(a.pages), d.screen())
	}
	d.keys("]")
	if g, ok := a.active().(*pages.Fleet); !ok || g != f {
		t.Fatalf("] did not go forward to the fleet page:\n%s", d.screen())
	}
}

// exGoldenText compares s, a screen of d made the same in every run, with
// testdata/explorer_<name>.golden (go test -update rewrites it).
func exGoldenText(t *testing.T, name, s string, d *exDriver) {
	t.Helper()
	for i, l := range strings.Split(s, "\n") {
		if w := ansi.StringWidth(l); w > d.a.width {
			t.Errorf("line %d is %d cells wide, more than the terminal's %d: %q", i+1, w, d.a.width, l)
		}
	}
	golden.RequireEqual(exNamed{t, "explorer_" + name}, s)
}

// A word at the ":" prompt that is no command, nor a file, is said to be
// an unknown command (with the command it most likely meant); the prompt
// stays open on it, and nothing is added to the history: esc leaves the
// explorer where it was. A file of that name is opened.
func TestPromptUnknownCommand(t *testing.T) {
	for _, c := range []struct{ typed, want string }{
		{"sycn ./copy", "unknown command :sycn (nor a file or URL), did you mean :sync DIR?"},
		{"wq", "unknown command :wq (nor a file or URL), did you mean :q?"},
		{"help", "unknown command :help (nor a file or URL); commands: :sync :audit :dest :fleet :q; ? lists the keys"},
	} {
		a, d := exApp(t, newExGetter(), "/dataset1/capabilitylist.xml", 120, 40)
		d.keys("down")
		places, pos := len(a.hist.places), a.hist.pos
		d.keys(":")
		d.typeText(c.typed)
		d.keys("enter")
		if s := d.screen(); !strings.Contains(s, c.want) {
			t.Errorf(":%s: no %q on the screen:\n%s", c.typed, c.want, s)
		}
		if len(a.hist.places) != places || a.hist.pos != pos || len(a.pages) != 0 {
			t.Errorf(":%s: the history went from %d places (at %d) to %d (at %d), %d pages", c.typed, places, pos, len(a.hist.places), a.hist.pos, len(a.pages))
		}
		if c.typed == "sycn ./copy" {
			exGolden(t, d, "prompt_unknown_command_120x40")
		}
		if a.promptKind != promptURL || a.prompt.Value() != c.typed {
			t.Errorf(":%s: the prompt is not open on what was typed (%q)", c.typed, a.prompt.Value())
		}
		d.keys("esc")
		if a.promptKind != promptNone || a.doc == nil || !strings.HasSuffix(a.doc.url, "/dataset1/capabilitylist.xml") || a.dv.Selected() != 1 {
			t.Errorf(":%s then esc: not back where it was:\n%s", c.typed, d.screen())
		}
	}
	// A file of that name is a file: opened.
	t.Chdir(t.TempDir())
	body := exSite()["/dataset1/changelist.xml"]
	if err := os.WriteFile("changes", []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	a, d := exApp(t, newExGetter(), "/dataset1/capabilitylist.xml", 120, 40)
	d.keys(":")
	d.typeText("changes")
	d.keys("enter")
	if a.doc == nil || !strings.HasSuffix(a.doc.url, "changes") || a.doc.capability() != "changelist" {
		t.Errorf(":changes did not open the file changes:\n%s", d.screen())
	}
}

// exOtherSourceBackend is a copy of the fixtures' dataset1 (the states of
// exDestBackend) that holds no copy of dataset2's Source.
type exOtherSourceBackend struct{ *exDestBackend }

func (b exOtherSourceBackend) LocalStates(ctx context.Context, req session.LocalRequest, out func(session.LocalBatch)) error {
	if strings.Contains(req.Target, "/dataset2/") {
		return &engine.NoCopyError{Dest: req.Dest, Source: exHost + "/dataset2/capabilitylist.xml", Holds: []string{exHost + "/dataset1/capabilitylist.xml"}}
	}
	return b.exDestBackend.LocalStates(ctx, req, out)
}

// exTwoSources are the fixtures with a second Source, dataset2.
func exTwoSources() *exGetter {
	g := newExGetter()
	g.docs["/dataset2/resourcelist.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<url><loc>` + exHost + `/img/1.png</loc><rs:md length="100" type="image/png"/></url>
<url><loc>` + exHost + `/img/2.png</loc><rs:md length="200" type="image/png"/></url>
</urlset>
`
	g.docs["/dataset2/changelist.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="changelist" from="2013-01-02T00:00:00Z"/>
<url><loc>` + exHost + `/img/3.png</loc><rs:md change="created" datetime="2013-01-02T13:00:00Z" length="300" type="image/png"/></url>
</urlset>
`
	return g
}

// The copy attached shows on the Source it holds only: another Source's
// documents have no copy column (not every entry "missing"), and the
// explorer says once that the copy holds another Source, naming it.
func TestCopyOfAnotherSource(t *testing.T) {
	b := exOtherSourceBackend{&exDestBackend{Session: session.NewWithGetter(exTwoSources(), session.Options{BatchSize: 16})}}
	a, d := exAppOn(t, b, exHost+"/dataset1/resourcelist-1.xml", 120, 40)
	d.keys(":")
	d.typeText("dest /tmp/archive")
	d.keys("enter")
	if !slices.Contains(a.dv.kinds, colCopy) {
		t.Fatalf("no copy column on the Source the copy holds:\n%s", d.screen())
	}
	d.keys(":")
	d.typeText(exHost + "/dataset2/resourcelist.xml")
	d.keys("enter")
	const note = "/tmp/archive holds no copy of this Source; it holds: " + exHost + "/dataset1/capabilitylist.xml"
	if slices.Contains(a.dv.kinds, colCopy) || a.flash != note {
		t.Errorf("another Source: columns %v, flash %q\n%s", a.dv.kinds, a.flash, d.screen())
	}
	if s := d.screen(); strings.Contains(s, "missing") || strings.Contains(s, "copy ·") {
		t.Errorf("another Source's entries are said missing in the copy:\n%s", s)
	}
	exGolden(t, d, "copy_of_another_source_120x40")
	// Said once: another document of the same Source says nothing more.
	d.keys(":")
	d.typeText(exHost + "/dataset2/changelist.xml")
	d.keys("enter")
	if slices.Contains(a.dv.kinds, colCopy) || a.flash != "" {
		t.Errorf("the Source's second document: columns %v, flash %q", a.dv.kinds, a.flash)
	}
	// Back on the Source the copy holds, its column.
	d.keys("[ [")
	if !strings.HasSuffix(a.doc.url, "/dataset1/resourcelist-1.xml") || !slices.Contains(a.dv.kinds, colCopy) {
		t.Errorf("back on dataset1: %s, columns %v", a.doc.url, a.dv.kinds)
	}
}

// s on the audit page, a sync run (the copy changed), esc: the audit page
// compares again, not "✗ not in sync" as before the repair.
func TestAuditComparesAgainAfterRepair(t *testing.T) {
	b := newExDestBackend()
	a, d := exAppOn(t, b, exHost+"/dataset1/resourcelist-1.xml", 120, 40)
	dir := t.TempDir()
	d.keys(":")
	d.typeText("audit " + dir)
	d.keys("enter")
	if _, ok := a.active().(*pages.Audit); !ok || len(b.auditReqs) != 1 {
		t.Fatalf("no audit page:\n%s", d.screen())
	}
	d.keys("s")
	if _, ok := a.active().(*pages.Sync); !ok {
		t.Fatalf("s opened no sync page:\n%s", d.screen())
	}
	d.send(copyChangedMsg{Dest: dir}) // as the sync page says once it ran
	for range 3 {
		if _, ok := a.active().(*pages.Audit); ok {
			break
		}
		d.keys("esc")
	}
	if _, ok := a.active().(*pages.Audit); !ok {
		t.Fatalf("esc did not come back to the audit page:\n%s", d.screen())
	}
	if len(b.auditReqs) != 2 {
		t.Errorf("back on the audit page after a repair: %d comparisons, want 2", len(b.auditReqs))
	}
}

// The explorer keeps its place, as a program (teatest) in a terminal: the
// fleet page, enter on a Source, esc back to the fleet page; :sycn ./copy
// says it is no command, and esc leaves the explorer on the fleet page,
// its history as it was.
func TestExplorerProgramKeepsItsPlace(t *testing.T) {
	a, _ := exFleetModel(t)
	tm := teatest.NewTestModel(t, a, teatest.WithInitialTermSize(120, 40))
	waitFor := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), s) },
			teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	waitFor("2 Sources")
	tm.Send(exKey("enter"))
	waitFor("resourcelist-index.xml")
	tm.Send(exKey("esc"))
	waitFor("the Sources of")
	tm.Send(exKey(":"))
	tm.Type("sycn ./copy")
	tm.Send(exKey("enter"))
	waitFor("unknown command")
	tm.Send(exKey("esc"))
	// The fleet page's footer, where the prompt was.
	waitFor("open the Source with its copy")
	tm.Send(exKey("q"))
	// (q closes the pages: the history tells where the explorer was.)
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*App)
	if cur, _ := final.hist.current(); cur.page == nil || final.hist.pos != 1 || len(final.hist.places) != 3 {
		t.Fatalf("not on the fleet page, or the history grew: place %d of %d (%v)", final.hist.pos+1, len(final.hist.places), cur.key())
	}
}
