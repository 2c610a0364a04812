package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// :q and :quit at the ":" prompt quit, as in vi; ":qx" is not a command
// (it is opened as a file name).
func TestPromptQuit(t *testing.T) {
	for _, typed := range []string{"q", "quit", " q "} {
		t.Run(typed, func(t *testing.T) {
			_, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 100, 30)
			d.keys(":")
			d.typeText(typed)
			d.keys("enter")
			if !d.quit {
				t.Errorf(":%s did not quit; screen:\n%s", typed, d.screen())
			}
		})
	}
	_, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 100, 30)
	d.keys(":")
	d.typeText("qx")
	d.keys("enter")
	if d.quit {
		t.Errorf(":qx quit")
	}
}

// promptText is the text of the open ":" prompt.
func promptText(a *App) string { return a.prompt.Value() }

// ↑ and ↓ at the ":" prompt recall what was entered this session, most
// recent first, as a shell does; ↓ past the newest gives back the line
// being typed. Repeats in a row are kept once.
func TestPromptHistory(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 100, 30)
	for _, typed := range []string{exHost + "/dataset1/capabilitylist.xml", "dest", "dest", exHost + "/dataset1/changelist.xml"} {
		d.keys(":")
		d.typeText(typed)
		d.keys("enter")
	}
	d.keys(":")
	d.typeText("draft")
	for i, want := range []string{exHost + "/dataset1/changelist.xml", "dest", exHost + "/dataset1/capabilitylist.xml", exHost + "/dataset1/capabilitylist.xml"} {
		d.keys("up")
		if got := promptText(a); got != want {
			t.Fatalf("↑ %d: %q, want %q", i+1, got, want)
		}
	}
	d.keys("down down")
	if got := promptText(a); got != exHost+"/dataset1/changelist.xml" {
		t.Errorf("↓↓: %q", got)
	}
	d.keys("down")
	if got := promptText(a); got != "draft" {
		t.Errorf("↓ past the newest: %q, want the line being typed", got)
	}
	// A recalled entry is entered as typed: it opens.
	d.keys("up up up enter")
	if a.doc == nil || a.doc.url != exHost+"/dataset1/capabilitylist.xml" {
		t.Errorf("the recalled entry was not opened:\n%s", d.screen())
	}
	// The "#" prompt has no history: ↑ there does nothing.
	d.keys("# up")
	if got := promptText(a); got != "" {
		t.Errorf("# prompt after ↑: %q", got)
	}
}

// tab at the ":" prompt completes a local path (through the backend), the
// argument of :sync/:dest, and a URL entered or visited this session:
// one completion replaces the text, several extend it to what they share
// and are listed after the prompt.
func TestPromptCompletion(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"changelist-1.xml", "changelist-2.xml", "copies/a.xml", "resourcelist.xml"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("<urlset/>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 100, 30)
	sep := string(filepath.Separator)
	d.keys(":")
	d.typeText(dir + sep + "res")
	d.keys("tab")
	if got := promptText(a); got != dir+sep+"resourcelist.xml" {
		t.Errorf("one completion: %q", got)
	}
	d.keys("esc :")
	d.typeText(dir + sep + "ch")
	d.keys("tab")
	if got := promptText(a); got != dir+sep+"changelist-" {
		t.Errorf("two completions: %q, want what they share", got)
	}
	if s := d.screen(); !strings.Contains(s, "changelist-1.xml  changelist-2.xml") {
		t.Errorf("the completions are not listed:\n%s", s)
	}
	d.typeText("2")
	d.keys("tab")
	if got := promptText(a); got != dir+sep+"changelist-2.xml" {
		t.Errorf("after typing on: %q", got)
	}
	d.keys("esc :")
	d.typeText("sync " + dir + sep + "co")
	d.keys("tab")
	if got := promptText(a); got != "sync "+dir+sep+"copies"+sep {
		t.Errorf(":sync's folder: %q", got)
	}
	d.keys("esc :")
	d.typeText(dir + sep + "zz")
	d.keys("tab")
	if got := promptText(a); got != dir+sep+"zz" || !strings.Contains(d.screen(), "no file or folder begins with") {
		t.Errorf("no completion: %q\n%s", got, d.screen())
	}
	// URLs: those visited this session.
	d.keys("esc :")
	d.typeText(exHost + "/dataset1/resourcelist-")
	d.keys("tab")
	if got := promptText(a); got != exHost+"/dataset1/resourcelist-1.xml" {
		t.Errorf("a URL visited: %q", got)
	}
}
