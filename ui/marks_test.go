package ui

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/dest/engine"
	"rsx/model"
	"rsx/session"
	"rsx/spotcheck"
	"rsx/ui/internal/uitest"
	"rsx/ui/pages"
)

// exDestBackend is the fixtures' session, with the destination side
// recorded and answered by fakes.
type exDestBackend struct {
	*session.Session
	syncReqs  []session.SyncRequest
	auditReqs []session.AuditRequest
	localReqs []session.LocalRequest
}

func newExDestBackend() *exDestBackend {
	return &exDestBackend{Session: session.NewWithGetter(newExGetter(), session.Options{BatchSize: 16})}
}

func (b *exDestBackend) NewSync(req session.SyncRequest) *session.Sync {
	b.syncReqs = append(b.syncReqs, req)
	return b.Session.NewSync(req)
}

func (b *exDestBackend) AuditCopy(_ context.Context, req session.AuditRequest) (*engine.AuditReport, error) {
	b.auditReqs = append(b.auditReqs, req)
	return uitest.Audit(), nil
}

// LocalStates: entry i is same, changed, missing, modified, by i mod 4, in
// batches of 7.
func (b *exDestBackend) LocalStates(ctx context.Context, req session.LocalRequest, out func(session.LocalBatch)) error {
	b.localReqs = append(b.localReqs, req)
	n := req.Entries.Len()
	for from := 0; from < n; from += 7 {
		var states []session.LocalState
		for i := from; i < min(from+7, n); i++ {
			states = append(states, []session.LocalState{session.LocalSame, session.LocalChanged, session.LocalMissing, session.LocalModified}[i%4])
		}
		out(session.LocalBatch{From: from, States: states})
	}
	return ctx.Err()
}

// uris is what rows of the document shown resolve to.
func exURIs(a *App, rows ...int) []string {
	var out []string
	for _, i := range rows {
		out = append(out, model.ResolveHref(a.doc.base(), a.doc.entries.Loc(i)))
	}
	return out
}

// Marks: space marks and moves on; +, * and - act on the entries shown;
// the count and the declared size are in the status bar; filters, sorts
// and the history keep them.
func TestMarks(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, 40)
	d.keys("space space space")
	if got := a.doc.picked.rows(); !slices.Equal(got, []int32{0, 1, 2}) || a.dv.Selected() != 3 {
		t.Fatalf("marked %v, cursor on %d", got, a.dv.Selected())
	}
	// Lengths 1037, 1074 and 1111 bytes.
	if s := d.screen(); !strings.Contains(s, "■ 3 marked · 3.1 KiB") || strings.Count(s, " ■ ") < 3 || strings.Contains(s, "●") {
		t.Errorf("the marks are not shown:\n%s", s)
	}
	d.keys("k space") // unmark the third again
	if a.doc.marked() != 2 || a.doc.picked.bytes != 1037+1074 {
		t.Errorf("after unmarking: %d marked, %d bytes", a.doc.marked(), a.doc.picked.bytes)
	}
	d.keys("space")

	// A filter keeps them; + marks what it shows; * inverts it.
	d.keys("/")
	d.typeText("02")
	d.keys("enter")
	shown := a.dv.tbl.Len()
	if shown != 11 || a.doc.marked() != 3 {
		t.Fatalf("filter 02: %d shown, %d marked", shown, a.doc.marked())
	}
	d.keys("+")
	if a.doc.marked() != 3+10 {
		t.Errorf("+ after a filter: %d marked, want 13", a.doc.marked())
	}
	d.keys("*")
	// (Rows 0, 1 and 3 were marked; the filter shows row 1 and rows 19 to 28.)
	if got := a.doc.picked.rows(); !slices.Equal(got, []int32{0, 3}) {
		t.Errorf("* after +: marked %v, want [0 3]", got)
	}
	d.keys("esc")
	// A sort keeps them.
	d.keys("s S")
	if a.doc.marked() != 2 || !a.doc.picked.has(0) || !a.doc.picked.has(3) {
		t.Errorf("after a sort: %v", a.doc.picked.rows())
	}
	// So does the history.
	d.keys(":")
	d.typeText(exHost + "/dataset1/resourcelist-2.xml")
	d.keys("enter")
	if a.doc.url != exHost+"/dataset1/resourcelist-2.xml" || a.doc.marked() != 0 {
		t.Fatalf("another document: %s, %d marked", a.doc.url, a.doc.marked())
	}
	d.keys("[")
	if a.doc.url != exHost+"/dataset1/resourcelist-1.xml" || a.doc.marked() != 2 {
		t.Errorf("back: %s, %d marked", a.doc.url, a.doc.marked())
	}
	if s := d.screen(); !strings.Contains(s, "■ 2 marked") {
		t.Errorf("back: the marks are not shown:\n%s", s)
	}
	d.keys("-")
	if a.doc.marked() != 0 || strings.Contains(d.screen(), "marked") {
		t.Errorf("- left %d marked", a.doc.marked())
	}
	// No mark column without marks: the table is as it was.
	if a.dv.tbl.ShowPicked {
		t.Error("the mark column stays without marks")
	}
}

// An index opened as one list: its entries are marked like any list's.
func TestMarksOnAllParts(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-index.xml", 120, 40)
	d.keys("a")
	if a.doc.parts == nil || a.doc.entries.Len() != 40 {
		t.Fatalf("all parts: %d entries", a.doc.entries.Len())
	}
	d.keys("+")
	if a.doc.marked() != 40 || !strings.Contains(d.screen(), "■ 40 marked") {
		t.Errorf("%d marked:\n%s", a.doc.marked(), d.screen())
	}
	d.keys("G space")
	if a.doc.marked() != 39 {
		t.Errorf("space on the last entry: %d marked", a.doc.marked())
	}
}

// :sync DIR plans the marked entries, else those shown, else the
// document's resources; a list that is the Source's whole Resource List,
// and documents of documents, sync the whole Source.
func TestSyncCommandScope(t *testing.T) {
	b := newExDestBackend()
	a, d := exAppOn(t, b, exHost+"/dataset1/resourcelist-1.xml", 120, 40)
	sync := func() session.SyncRequest {
		t.Helper()
		d.keys(":")
		d.typeText("sync /tmp/copy")
		d.keys("enter")
		if len(b.syncReqs) == 0 {
			t.Fatalf("no sync asked; screen:\n%s", d.screen())
		}
		if _, ok := a.active().(*pages.Sync); !ok {
			t.Fatalf("the sync page is not shown: %T", a.active())
		}
		req := b.syncReqs[len(b.syncReqs)-1]
		d.keys("esc")
		return req
	}
	d.keys("j space space")
	if req := sync(); !slices.Equal(req.Only, exURIs(a, 1, 2)) || req.Dest != "/tmp/copy" || req.Target != exHost+"/dataset1/resourcelist-1.xml" {
		t.Errorf("marked: %+v", req)
	}
	d.keys("- / 0 2 enter")
	if req := sync(); len(req.Only) != 11 || req.Only[0] != exURIs(a, 1)[0] {
		t.Errorf("shown: %d URIs %v", len(req.Only), req.Only)
	}
	d.keys("esc")
	if req := sync(); len(req.Only) != 30 {
		t.Errorf("a part of an index, nothing marked: %d URIs, want its 30", len(req.Only))
	}
	// The page says why no plan could be made (this session has no client).
	d.keys(":")
	d.typeText("sync /tmp/copy")
	d.keys("enter")
	if s := d.screen(); !strings.Contains(s, "No plan could be made") || !strings.Contains(s, "the 30 resources of this Resource List") {
		t.Errorf("the sync page:\n%s", s)
	}
	d.keys("esc")

	// All parts as one list: the whole Source.
	d.keys(":")
	d.typeText(exHost + "/dataset1/resourcelist-index.xml")
	d.keys("enter a")
	if req := sync(); req.Only != nil {
		t.Errorf("all parts: %d URIs, want the whole Source", len(req.Only))
	}
	// A Capability List lists documents: the whole Source, marks aside.
	d.keys(":")
	d.typeText(exHost + "/dataset1/capabilitylist.xml")
	d.keys("enter space")
	if req := sync(); req.Only != nil || req.Target != exHost+"/dataset1/capabilitylist.xml" {
		t.Errorf("a Capability List: %+v", req)
	}
	// Without a destination: said, nothing asked.
	n := len(b.syncReqs)
	d.keys(":")
	d.typeText("sync")
	d.keys("enter")
	if len(b.syncReqs) != n || !strings.Contains(d.screen(), ":sync needs a destination") {
		t.Errorf("a :sync without DIR: %s", d.screen())
	}
}

// :audit DIR compares the document's resources (marks aside); s on the
// audit page plans a sync of what differs, over it.
func TestAuditCommand(t *testing.T) {
	b := newExDestBackend()
	a, d := exAppOn(t, b, exHost+"/dataset1/resourcelist-1.xml", 120, 40)
	d.keys("space")
	d.keys(":")
	d.typeText("audit /tmp/copy")
	d.keys("enter")
	if len(b.auditReqs) != 1 || len(b.auditReqs[0].Only) != 30 || b.auditReqs[0].Dest != "/tmp/copy" {
		t.Fatalf("audit asked: %+v", b.auditReqs)
	}
	if s := d.screen(); !strings.Contains(s, "not in sync") || !strings.Contains(s, "missing 4") {
		t.Fatalf("the audit page:\n%s", s)
	}
	d.keys("s")
	if len(b.syncReqs) != 1 || len(b.syncReqs[0].Only) != 6 || len(a.pages) != 2 {
		t.Fatalf("s on the audit page: %+v, %d pages", b.syncReqs, len(a.pages))
	}
	d.keys("esc")
	if _, ok := a.active().(*pages.Audit); !ok {
		t.Errorf("esc on the plan: %T, want the audit page again", a.active())
	}
}

// :dest DIR (and rsx --dest) adds the copy column, filled as the states
// arrive; :dest alone takes it away.
func TestDestColumn(t *testing.T) {
	b := newExDestBackend()
	a, d := exAppOn(t, b, exHost+"/dataset1/resourcelist-1.xml", 120, 40)
	d.keys(":")
	d.typeText("dest /tmp/copy")
	d.keys("enter")
	if len(b.localReqs) != 1 || b.localReqs[0].Dest != "/tmp/copy" || b.localReqs[0].Entries.Len() != 30 {
		t.Fatalf("local states asked: %+v", b.localReqs)
	}
	s := d.screen()
	for _, want := range []string{" copy ", "same", "changed", "missing", "modified", "copy 8/30 same"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q:\n%s", want, s)
		}
	}
	if full, _ := a.doc.local.statusText(30); full != "copy · 8 same · 8 changed · 7 missing · 7 modified" {
		t.Errorf("the status bar's text: %q", full)
	}
	if a.doc.local.state(1) != session.LocalChanged {
		t.Errorf("state of entry 2: %v", a.doc.local.state(1))
	}
	// A filter on the column.
	d.keys("/")
	d.typeText("copy:modified")
	d.keys("enter")
	if a.dv.tbl.Len() != 7 {
		t.Errorf("copy:modified shows %d", a.dv.tbl.Len())
	}
	d.keys("esc")
	// Another document gets its states too; back, they are kept.
	d.keys(":")
	d.typeText(exHost + "/dataset1/resourcelist-2.xml")
	d.keys("enter")
	d.keys("[")
	if len(b.localReqs) != 2 || !strings.Contains(d.screen(), "modified") {
		t.Errorf("%d computations; screen:\n%s", len(b.localReqs), d.screen())
	}
	d.keys(":")
	d.typeText("dest")
	d.keys("enter")
	if strings.Contains(strings.Split(d.screen(), "\n")[2], " copy ") || a.doc.local != nil {
		t.Errorf("detached, the column stays:\n%s", d.screen())
	}

	// --dest attaches from the start.
	b2 := newExDestBackend()
	a2 := New(Options{Target: exHost + "/dataset1/resourcelist-2.xml", Backend: b2, Now: func() time.Time { return exTime }, Dark: true, Dest: "/tmp/copy2"})
	a2.noTick = true
	d2 := &exDriver{t: t, a: a2, msgs: make(chan tea.Msg, 64)}
	d2.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d2.run(a2.Init())
	if len(b2.localReqs) != 1 || !strings.Contains(d2.screen(), "copy") {
		t.Errorf("--dest: %d computations:\n%s", len(b2.localReqs), d2.screen())
	}
}

// While a sync runs, the explorer stays where it is: history, the prompt
// and q say why not; ctrl+c still quits.
func TestRunningSyncGuardsTheExplorer(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, 40)
	job := uitest.NewSyncJob()
	job.Release = make(chan struct{})
	p := pages.NewSync(a.c, job, "x", nil)
	d.run(a.pushPage(p))            // the plan
	d.idle = 300 * time.Millisecond // the run waits until released
	d.keys("enter")
	if p.Title() != "Syncing" {
		t.Fatalf("enter on the plan: %q", p.Title())
	}
	for _, k := range []string{"[", "q", ":"} {
		d.keys(k)
		if a.active() != p || d.quit || a.promptKind != promptNone {
			t.Fatalf("%s left the running sync", k)
		}
		if s := d.screen(); !strings.Contains(s, "a sync into /tmp/copy is running: esc stops it") {
			t.Errorf("%s: not said why:\n%s", k, s)
		}
	}
	close(job.Release)
	d.run(nil)
	if p.Title() != "Sync result" {
		t.Fatalf("the released run did not end: %q", p.Title())
	}
	d.keys("esc")
	if a.active() == p {
		t.Error("a finished sync still guards the explorer")
	}
}

// A million entries: marking, counting and drawing cost nothing noticeable.
func TestMarksAtAMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("a million entries")
	}
	a := exBigApp(t, 1_000_000)
	start := time.Now()
	if _, ok := a.dv.markKey(exKey("+")); !ok || a.doc.marked() != 1_000_000 {
		t.Fatalf("+ marked %d", a.doc.marked())
	}
	a.dv.markKey(exKey("*"))
	a.dv.markKey(exKey("space"))
	if a.doc.marked() != 1 {
		t.Fatalf("after * and space: %d marked", a.doc.marked())
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("marking a million entries twice took %v", el)
	}
	if n := len(a.doc.picked.bits) * 8; n > 130_000 {
		t.Errorf("the marks of a million entries take %d bytes", n)
	}
}

// The document page with marks and the copy's column, at both sizes.
func TestMarksAndCopyScreens(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			_, d := exAppOn(t, newExDestBackend(), exHost+"/dataset1/resourcelist-1.xml", w, h)
			d.keys(":")
			d.typeText("dest /tmp/copy")
			d.keys("enter space j space space")
			exGolden(t, d, fmt.Sprintf("marks_copy_%dx%d", w, h))
		})
	}
}

// exSpotBackend is the fixtures' session with a spot check that records
// what it was asked and answers with a fixed report.
type exSpotBackend struct {
	*session.Session
	spotReqs []session.SpotRequest
}

func (b *exSpotBackend) SpotCheck(_ context.Context, req session.SpotRequest, progress func(spotcheck.Progress)) (*spotcheck.Report, error) {
	b.spotReqs = append(b.spotReqs, req)
	progress(spotcheck.Progress{Phase: spotcheck.PhaseChecks, Total: len(req.Entries), Checked: len(req.Entries)})
	return uitest.Spot(), nil
}

// The marks' keys (space, +, -, *) and the spot check's (K) live beside A
// (the archives link) and C (the coverage) on one Change List: each key
// does its own thing, and following the archives link keeps the marks.
func TestMarkKeysBesideArchivesAndCoverage(t *testing.T) {
	docs := exArchiveSite()
	var body strings.Builder
	for i := range 3 {
		fmt.Fprintf(&body, "  <url><loc>%s/res/00%d.html</loc><rs:md change=\"updated\" datetime=\"2013-01-06T1%d:00:00Z\"/></url>\n", exHost, i+1, i)
	}
	docs["/dataset3/changes/l3.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="changelist" from="2013-01-06T00:00:00Z"/>
<rs:ln rel="up" href="` + exHost + `/dataset3/capabilitylist.xml"/>
<rs:ln rel="archives" href="` + exHost + `/dataset3/changelist-archive.xml"/>
` + body.String() + "</urlset>\n"
	b := &exSpotBackend{Session: session.NewWithGetter(&exGetter{docs: docs, fail: map[string]error{}}, session.Options{BatchSize: 16})}
	a, d := exAppOn(t, b, exHost+"/dataset3/changes/l3.xml", 120, 40)
	if a.doc.entries.Len() != 3 {
		t.Fatalf("the Change List has %d entries:\n%s", a.doc.entries.Len(), d.screen())
	}
	d.keys("space space")
	if got := a.doc.picked.rows(); !slices.Equal(got, []int32{0, 1}) {
		t.Fatalf("space space: marked %v", got)
	}
	d.keys("*")
	if got := a.doc.picked.rows(); !slices.Equal(got, []int32{2}) {
		t.Errorf("*: marked %v, want [2]", got)
	}
	d.keys("+")
	if a.doc.marked() != 3 {
		t.Errorf("+: %d marked, want 3", a.doc.marked())
	}
	d.keys("-")
	if a.doc.marked() != 0 {
		t.Errorf("-: %d marked, want 0", a.doc.marked())
	}
	d.keys("g space j space")
	if got := a.doc.picked.rows(); !slices.Equal(got, []int32{0, 2}) {
		t.Fatalf("g space j space: marked %v", got)
	}

	// K checks the marked entries, and only them.
	d.keys("K")
	if _, ok := a.active().(*pages.Spot); !ok || len(b.spotReqs) != 1 {
		t.Fatalf("K opened %T (%d checks):\n%s", a.active(), len(b.spotReqs), d.screen())
	}
	var locs []string
	for _, e := range b.spotReqs[0].Entries {
		locs = append(locs, e.Loc)
	}
	if want := []string{exHost + "/res/001.html", exHost + "/res/003.html"}; !slices.Equal(locs, want) {
		t.Errorf("K checked %v, want %v", locs, want)
	}
	if s := d.screen(); !strings.Contains(s, "the 2 marked") {
		t.Errorf("the spot check does not say what it checks:\n%s", s)
	}
	d.keys("esc")

	// C draws the coverage; the marks stay as they were.
	d.keys("C")
	if _, ok := a.active().(*pages.Coverage); !ok || a.doc.marked() != 2 {
		t.Fatalf("C opened %T, %d marked:\n%s", a.active(), a.doc.marked(), d.screen())
	}
	d.keys("esc")

	// A follows the archives link; back, the marks are there.
	d.keys("A")
	if a.doc.base() != exHost+"/dataset3/changelist-archive.xml" {
		t.Fatalf("A opened %s, not the archive", a.doc.base())
	}
	d.keys("[")
	if a.doc.base() != exHost+"/dataset3/changes/l3.xml" || !slices.Equal(a.doc.picked.rows(), []int32{0, 2}) {
		t.Errorf("back from the archive: %s, marked %v", a.doc.base(), a.doc.picked.rows())
	}
}

// While a filter scans a large document in the background, the table still
// shows the rows of the query before: + and * and what a sync or a spot
// check of the shown entries takes wait for its result instead of acting
// on rows the filter is about to replace. Marks are not affected.
func TestMarksWaitForARunningFilter(t *testing.T) {
	const n = 60_000 // large enough for the scan to run in a Cmd
	a := exBigApp(t, n)
	v := a.dv
	cmd := v.startFilter("pdf")
	if cmd == nil || !v.filterBusy {
		t.Fatal("the filter ran on the UI goroutine")
	}
	for _, k := range []string{"+", "*"} {
		c, ok := v.markKey(exKey(k))
		if !ok || c == nil || a.doc.marked() != 0 {
			t.Errorf("%s during the scan: handled %v, flash %v, %d marked", k, ok, c != nil, a.doc.marked())
		}
		if m, _ := c().(flashMsg); !m.Err || !strings.Contains(m.Text, "filter is still running") {
			t.Errorf("%s during the scan says %+v", k, m)
		}
	}
	if _, err := a.scope(false); err != errFilterRunning {
		t.Errorf(":sync during the scan: %v", err)
	}
	if _, _, err := openSpotPage(a.context()); err != errFilterRunning {
		t.Errorf("K during the scan: %v", err)
	}
	if _, err := a.scope(true); err != nil {
		t.Errorf(":audit compares the document's resources, filter aside: %v", err)
	}
	v.Update(cmd())
	if v.filterBusy || len(v.filtered) != n/4 {
		t.Fatalf("after the scan: busy %v, %d shown", v.filterBusy, len(v.filtered))
	}
	v.markKey(exKey("+"))
	if a.doc.marked() != n/4 {
		t.Errorf("+ after the scan: %d marked, want %d", a.doc.marked(), n/4)
	}
	// With marks, what a sync takes is the marks, scan or no scan.
	v.startFilter("png")
	if sc, err := a.scope(false); err != nil || len(sc.only) != n/4 {
		t.Errorf(":sync of the marks during a scan: %v, %d", err, len(sc.only))
	}
}

// r loads the document again and keeps the marks of the entries still in
// it, by loc, dropping those whose entries are gone; the status line says
// how many of each.
func TestMarksKeptOnReload(t *testing.T) {
	g := newExGetter()
	path := "/dataset1/resourcelist-1.xml"
	a, d := exApp(t, g, path, 120, 40)
	d.keys("space space space j j space") // entries 1, 2, 3 and 6
	want := []string{a.doc.entries.Loc(0), a.doc.entries.Loc(2), a.doc.entries.Loc(5)}
	gone := a.doc.entries.Loc(1)
	if a.doc.marked() != 4 {
		t.Fatalf("%d marked", a.doc.marked())
	}
	// The Source drops entry 2 and moves entry 6 to the front.
	doc := g.docs[path]
	line := func(loc string) string {
		i := strings.Index(doc, "<url><loc>"+loc+"<")
		j := strings.Index(doc[i:], "</url>\n")
		return doc[i-2 : i+j+len("</url>\n")]
	}
	six := line(want[2])
	doc = strings.Replace(doc, line(gone), "", 1)
	doc = strings.Replace(doc, six, "", 1)
	first := strings.Index(doc, "  <url>")
	g.docs[path] = doc[:first] + six + doc[first:]

	d.keys("r")
	var got []string
	for _, i := range a.doc.picked.rows() {
		got = append(got, a.doc.entries.Loc(int(i)))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || a.doc.entries.Len() != 29 {
		t.Errorf("after r: marked %v of %d entries, want %v", got, a.doc.entries.Len(), want)
	}
	if a.doc.entries.Loc(0) != want[2] || !a.doc.picked.has(0) {
		t.Errorf("the moved entry is not marked where it is now: %v", a.doc.picked.rows())
	}
	if want := "reloaded: 3 marks kept, 1 dropped (its entry is gone)"; a.flash != want {
		t.Errorf("flash %q, want %q", a.flash, want)
	}
	if s := d.screen(); !strings.Contains(s, "3 marked") || !strings.Contains(s, "reloaded: 3 marks kept, 1 dropped") || !a.dv.tbl.ShowPicked {
		t.Errorf("the screen after r:\n%s", s)
	}
	// Without marks, r says nothing of them.
	d.keys("- r")
	if a.doc.marked() != 0 || strings.Contains(a.flash, "mark") {
		t.Errorf("r without marks: %d marked, flash %q", a.doc.marked(), a.flash)
	}
}

// The marks of an index opened as one list survive reloading its parts.
func TestMarksKeptOnReloadAllParts(t *testing.T) {
	a, d := exApp(t, newExGetter(), "/dataset1/resourcelist-index.xml", 120, 40)
	d.keys("a G space")
	last := a.doc.entries.Loc(39)
	d.keys("r")
	if a.doc.parts == nil || a.doc.marked() != 1 || a.doc.entries.Loc(int(a.doc.picked.rows()[0])) != last {
		t.Errorf("after r: %d marked", a.doc.marked())
	}
	if !strings.Contains(a.flash, "1 mark kept") {
		t.Errorf("flash %q", a.flash)
	}
}

// exNoCopyBackend answers as a destination folder that does not exist.
type exNoCopyBackend struct{ *session.Session }

func (exNoCopyBackend) AuditCopy(_ context.Context, req session.AuditRequest) (*engine.AuditReport, error) {
	return nil, fmt.Errorf("destination %s: stat %s: %w", req.Dest, req.Dest, fs.ErrNotExist)
}

func (exNoCopyBackend) LocalStates(_ context.Context, req session.LocalRequest, _ func(session.LocalBatch)) error {
	return fmt.Errorf("destination %s: %w", req.Dest, fs.ErrNotExist)
}

// A copy in a folder that does not exist: :audit and :dest say there is no
// copy there and that :sync makes one, not only "stat: no such file".
func TestNoCopyThere(t *testing.T) {
	b := exNoCopyBackend{session.NewWithGetter(newExGetter(), session.Options{BatchSize: 16})}
	_, d := exAppOn(t, b, exHost+"/dataset1/resourcelist-2.xml", 120, 40)
	d.keys(":")
	d.typeText("audit /tmp/nowhere")
	d.keys("enter")
	if s := d.screen(); !strings.Contains(s, "There is no copy there: :sync /tmp/nowhere makes one.") {
		t.Errorf(":audit of a folder that does not exist:\n%s", s)
	}
	d.keys("esc :")
	d.typeText("dest /tmp/nowhere")
	d.keys("enter")
	if s := d.screen(); !strings.Contains(s, "no copy in /tmp/nowhere: the folder does not exist (:sync DIR makes one)") {
		t.Errorf(":dest of a folder that does not exist:\n%s", s)
	}
}
