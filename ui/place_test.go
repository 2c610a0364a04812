package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

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
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(a.Init())
	if _, ok := a.active().(*pages.Fleet); !ok {
		t.Fatalf("the fleet page is not shown at the start:\n%s", d.screen())
	}
	return a, d, dir
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
		{"sycn ./copy", "unknown command :sycn, did you mean :sync DIR?"},
		{"wq", "unknown command :wq, did you mean :q?"},
		{"help", "unknown command :help (the commands: :sync DIR, :audit DIR, :dest DIR, :fleet FILE, :q; ? lists the keys)"},
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
