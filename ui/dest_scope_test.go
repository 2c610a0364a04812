package ui

import (
	"context"
	"io"
	"io/fs"
	"log"
	"path/filepath"
	"strings"
	"testing"

	"rsx/demo"
	"rsx/dest/engine"
	"rsx/fetch"
	"rsx/session"
	"rsx/ui/components"
	"rsx/ui/pages"
)

// destTestClient is the client the tests' syncs and audits fetch with.
func destTestClient(t *testing.T) *fetch.Client {
	t.Helper()
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", PerHostConcurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSyncOfSourceDescriptionNamesTheCapabilityList: the demo's Source
// Description lists two Capability Lists, and rsx sync refuses its URL
// (give one of them). :sync on it syncs the Capability List selected, and
// the plan says so: its title names that Capability List and what is
// chosen says it is one of two, never "every resource of the Source"; so
// does the result, and :audit compares that one.
func TestSyncOfSourceDescriptionNamesTheCapabilityList(t *testing.T) {
	prev := log.Writer()
	log.SetOutput(io.Discard)
	t.Cleanup(func() { log.SetOutput(prev) })
	base := shDemo(t, "", demo.Options{Resources: 200})
	sd := base + "/.well-known/resourcesync"
	second := base + "/dataset2/capabilitylist.xml"
	dir := filepath.Join(t.TempDir(), "copy")

	// The CLI's side: the Source Description is refused, the Capability
	// List taken.
	client := destTestClient(t)
	if _, err := engine.SourceOf(context.Background(), client, sd, engine.Options{}); err == nil || !strings.Contains(err.Error(), "lists 2 Capability Lists") {
		t.Fatalf("rsx sync of the Source Description: %v, want a refusal", err)
	}
	key, err := engine.SourceOf(context.Background(), client, second, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}

	a, d := shAppWith(t, sd, fetch.Options{NoCache: true, Netrc: "-", PerHostConcurrency: 8})
	d.keys("j") // the second Capability List
	d.keys(":")
	d.typeText("sync " + dir)
	d.keys("enter")
	scr := d.screen()
	p, ok := a.active().(*pages.Sync)
	if !ok || p.Title() != "Sync plan" {
		t.Fatalf("no plan:\n%s", scr)
	}
	if !strings.Contains(scr, "Sync plan of "+second) {
		t.Errorf("the plan's title does not name the Capability List %s:\n%s", second, scr)
	}
	if !strings.Contains(scr, "the Capability List selected (1 of the Source Description's 2") || strings.Contains(scr, "every resource of the Source") {
		t.Errorf("the plan does not say it syncs one of the two Capability Lists:\n%s", scr)
	}
	if !strings.Contains(scr, "Source    "+key) {
		t.Errorf("the plan's Source is not %s, the one rsx sync takes:\n%s", key, scr)
	}
	d.keys("enter")
	scr = d.screen()
	if !strings.Contains(scr, "Sync result of "+second) || !strings.Contains(scr, "0 failed") {
		t.Fatalf("the result does not name the Capability List synced:\n%s", scr)
	}
	if files := copyFilesUnder(t, dir); len(files) == 0 || strings.Contains(strings.Join(files, " "), "/dataset1/") {
		t.Errorf("the copy holds %d files, some of dataset1: %q", len(files), files)
	}

	d.keys("esc")
	d.keys(":")
	d.typeText("audit " + dir)
	d.keys("enter")
	scr = d.screen()
	if !strings.Contains(scr, "the Capability List selected (1 of the Source Description's 2") || !strings.Contains(scr, "✓ in sync") {
		t.Errorf("the audit of the Source Description does not compare the Capability List selected:\n%s", scr)
	}
}

// TestAuditFromAllEntriesOfChangeListIndex: :audit from the all-entries
// view (a) of a Change List Index compares the whole Source; it named the
// view's count of changes as the Resource List's count of entries. It says
// how many resources the Source has now, as rsx audit --dest counts them
// for the same copy.
func TestAuditFromAllEntriesOfChangeListIndex(t *testing.T) {
	prev := log.Writer()
	log.SetOutput(io.Discard)
	t.Cleanup(func() { log.SetOutput(prev) })
	base := shDemo(t, "", demo.Options{Resources: 300, ListSize: 100})
	capList := base + "/dataset1/capabilitylist.xml"
	dir := filepath.Join(t.TempDir(), "copy")
	dopts := fetch.Options{NoCache: true, Netrc: "-", PerHostConcurrency: 8}

	// A copy of a few entries (so that some resources are out of its
	// selection), made from the first Resource List part.
	_, d := shAppWith(t, base+"/dataset1/resourcelist-0001.xml", dopts)
	d.keys("space space space")
	d.keys(":")
	d.typeText("sync " + dir)
	d.keys("enter enter")
	if scr := d.screen(); !strings.Contains(scr, "3 created") {
		t.Fatalf("the sync of three entries:\n%s", scr)
	}
	d.keys("esc") // the sync page lets the destination go

	// What rsx audit --dest says of that copy.
	sess := session.New(destTestClient(t), session.Options{})
	rep, err := sess.AuditCopy(context.Background(), session.AuditRequest{Dest: dir, Target: capList})
	if err != nil {
		t.Fatal(err)
	}
	want := rep.Same + rep.Len(engine.ListMissing) + rep.Len(engine.ListChanged) + rep.OutOfSelection()
	rep.Close()
	if rep.OutOfSelection() == 0 || want < 100 {
		t.Fatalf("the copy: %d out of its selection, %d resources", rep.OutOfSelection(), want)
	}

	a, d := shAppWith(t, base+"/dataset1/changelist.xml", dopts)
	d.keys("a")
	changes := a.doc.entries.Len()
	if a.doc.parts == nil || changes == 0 || changes == want {
		t.Fatalf("the all-entries view: %d changes, parts %v", changes, a.doc.parts)
	}
	d.keys(":")
	d.typeText("audit " + dir)
	d.keys("enter")
	scr := d.screen()
	if _, ok := a.active().(*pages.Audit); !ok {
		t.Fatalf("no audit:\n%s", scr)
	}
	if !strings.Contains(scr, components.Count(want)+" resources of the Source now") {
		t.Errorf("the audit does not count the Source's %d resources:\n%s", want, scr)
	}
	if strings.Contains(scr, "("+components.Count(changes)+" entries)") {
		t.Errorf("the audit names the view's %d changes as the Resource List's entries:\n%s", changes, scr)
	}
}

// copyFilesUnder lists the files of a destination folder, .rsx aside.
func copyFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == ".rsx" {
			return filepath.SkipDir
		}
		if !e.IsDir() {
			out = append(out, filepath.ToSlash(p))
		}
		return nil
	})
	return out
}

// TestDestColumnAgreesWithAudit: a copy of three marked entries, attached
// with :dest: the other entries are outside the copy's selection, as :audit
// of the same copy counts them, not missing.
func TestDestColumnAgreesWithAudit(t *testing.T) {
	prev := log.Writer()
	log.SetOutput(io.Discard)
	t.Cleanup(func() { log.SetOutput(prev) })
	base := shDemo(t, "", demo.Options{Resources: 300, ListSize: 100})
	dir := filepath.Join(t.TempDir(), "copy")
	a, d := shAppWith(t, base+"/dataset1/resourcelist-0001.xml", fetch.Options{NoCache: true, Netrc: "-", PerHostConcurrency: 8})
	d.keys("space space space")
	d.keys(":")
	d.typeText("sync " + dir)
	d.keys("enter enter")
	if scr := d.screen(); !strings.Contains(scr, "3 created") {
		t.Fatalf("the sync of three entries:\n%s", scr)
	}
	d.keys("esc")
	d.keys(":")
	d.typeText("dest " + dir)
	d.keys("enter")
	l := a.doc.local
	if l == nil || l.running() || l.err != nil {
		t.Fatalf("the copy's states: %+v", l)
	}
	n := a.doc.entries.Len()
	if l.counts[session.LocalSame] != 3 || l.counts[session.LocalOutside] != n-3 || l.counts[session.LocalMissing] != 0 {
		t.Errorf("states: %d same, %d outside, %d missing of %d", l.counts[session.LocalSame], l.counts[session.LocalOutside], l.counts[session.LocalMissing], n)
	}
	if scr := d.screen(); !strings.Contains(lineWith(scr, "/dataset1/res/000004."), " outside ") || strings.Contains(scr, " missing ") {
		t.Errorf("the copy's column does not say outside:\n%s", scr)
	}
	if full, _ := l.statusText(n); !strings.Contains(full, components.Count(n-3)+" outside") {
		t.Errorf("the status bar's words: %q", full)
	}
	// :audit of the same copy and document: as many out of its selection.
	d.keys(":")
	d.typeText("audit " + dir)
	d.keys("enter")
	if scr := d.screen(); !strings.Contains(scr, components.Count(n-3)+" out of the copy's selection") {
		t.Errorf("the audit does not count %d out of the copy's selection:\n%s", n-3, scr)
	}
}

// lineWith is the first line of screen that contains want.
func lineWith(screen, want string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, want) {
			return l
		}
	}
	return ""
}
