package pages

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/dest/engine"
	"rsx/dest/plan"
	"rsx/model"
	"rsx/session"
	"rsx/spotcheck"
	"rsx/ui/internal/uitest"
	"rsx/ui/nav"
)

// The sync page through its three stages: the plan, the progress and the
// result, with the delete toggle, the stop that asks, and the result's
// keys.
func TestSyncPageGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			job := uitest.NewSyncJob()
			job.Release = make(chan struct{})
			p := NewSync(ivTestCommon(), job, "the 3 marked of 40 entries", nil)
			tm, rec := ivRun(t, p, w, h)
			scr := ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "What will change") })
			ivGolden(t, fmt.Sprintf("view_sync_plan_%dx%d", w, h), rec.Screen())
			if !strings.Contains(scr, "nothing is written until enter") || !strings.Contains(scr, "deletions off") {
				t.Errorf("plan screen:\n%s", scr)
			}
			// d: deletions applied, planned again.
			tm.Type("d")
			ivWaitScreen(t, rec, func(s string) bool {
				return strings.Contains(s, "deletions applied") && strings.Contains(s, "− 1 delete")
			})
			tm.Type("d")
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "deletions off") })

			// enter runs: the progress as it comes.
			tm.Send(ivKey("enter"))
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "Syncing") })
			job.UpdatesC <- uitest.Progress()
			ivWaitScreen(t, rec, func(s string) bool {
				return strings.Contains(s, "120 of 300 resources") && strings.Contains(s, "Failures (2)")
			})
			ivGolden(t, fmt.Sprintf("view_sync_progress_%dx%d", w, h), rec.Screen())
			// esc asks; esc again goes on; esc then y stops.
			tm.Send(ivKey("esc"))
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "Stop the sync?") })
			tm.Send(ivKey("esc"))
			ivWaitScreen(t, rec, func(s string) bool { return !strings.Contains(s, "Stop the sync?") })
			tm.Send(ivKey("esc"))
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "Stop the sync?") })
			tm.Type("y")
			scr = ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "stopped: interrupted") })
			// What a stopped run did is counted, not listed: the list is
			// not called "then done" or "Nothing was changed".
			if !strings.Contains(scr, "the next sync continues") || !strings.Contains(scr, "Failed (1)") ||
				strings.Contains(scr, "then done") || strings.Contains(scr, "Nothing was changed") {
				t.Errorf("stopped result:\n%s", scr)
			}
			job.Mu.Lock()
			if fmt.Sprint(job.Deletes) != "[false true false]" || job.Runs != 1 {
				t.Errorf("plans %v, runs %d", job.Deletes, job.Runs)
			}
			job.Mu.Unlock()
		})
	}
}

func TestSyncPageResultGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			job := uitest.NewSyncJob()
			retried := *job.Res
			retried.FailedCount, retried.Failed, retried.Updated = 0, nil, 1
			job.RetryRes = &retried
			p := NewSync(ivTestCommon(), job, "the 3 marked of 40 entries", nil)
			tm, rec := ivRun(t, p, w, h)
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "What will change") })
			tm.Send(ivKey("enter"))
			scr := ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "Sync result") })
			ivGolden(t, fmt.Sprintf("view_sync_result_%dx%d", w, h), rec.Screen())
			for _, want := range []string{"2 created", "1 failed", "md5: declared", "✓ create", "/res/005.html"} {
				if !strings.Contains(scr, want) {
					t.Errorf("result without %q:\n%s", want, scr)
				}
			}
			// r retries the failed ones.
			tm.Type("r")
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "1 updated") && strings.Contains(s, "✓ done") })
		})
	}
}

// enter on a result row opens its resource's view over the page; the run
// tells the root that the copy changed; a plan that fails says why and r
// plans again; closing the page closes the job.
func TestSyncPageFlow(t *testing.T) {
	job := uitest.NewSyncJob()
	p := NewSync(ivTestCommon(), job, "x", func(u string) tea.Cmd {
		return nav.Push(NewResource(ivTestCommon(), ivNop{}, u, model.Entry{Loc: u, HasLoc: true}))
	})
	ivDrive(p, ivRunCmd(p.Init())...)
	ivDrive(p, ivKey("enter"))
	if p.stage != syncDone {
		t.Fatalf("stage %d after enter", p.stage)
	}
	msgs := ivDrive(p, ivKey("enter"))
	var pushed *Resource
	for _, m := range msgs {
		if pp, ok := m.(nav.PushMsg); ok {
			pushed, _ = pp.Page.(*Resource)
		}
	}
	if pushed == nil {
		t.Fatalf("enter on a failure did not open its resource: %v", msgs)
	}
	if got := pushed.Entry().Loc; got != uitest.URI(9) {
		t.Errorf("opened %s, want the failure %s", got, uitest.URI(9))
	}
	if p.LeaveGuard() != "" {
		t.Error("a finished sync guards its page")
	}
	p.Close()
	if !job.Closed {
		t.Error("closing the page did not close the sync")
	}

	bad := uitest.NewSyncJob()
	bad.PlanErr = errors.New("the Source Description lists 2 Capability Lists: give one of them")
	q := NewSync(ivTestCommon(), bad, "x", nil)
	q.SetSize(80, 24)
	ivDrive(q, ivRunCmd(q.Init())...)
	if q.stage != syncFailed || !strings.Contains(q.View(), "give one of them") {
		t.Errorf("a failed plan:\n%s", q.View())
	}
	bad.PlanErr = nil
	ivDrive(q, ivKey("r"))
	if q.stage != syncPlanned {
		t.Errorf("r did not plan again: stage %d", q.stage)
	}
}

// The running page guards the explorer: it may not be left but through esc.
func TestSyncPageGuard(t *testing.T) {
	job := uitest.NewSyncJob()
	job.Release = make(chan struct{})
	p := NewSync(ivTestCommon(), job, "x", nil)
	ivDrive(p, ivRunCmd(p.Init())...)
	p.Update(ivKey("enter")) // the run's command is not run: it stays running
	if p.stage != syncRunning || !strings.Contains(p.LeaveGuard(), "esc stops it") {
		t.Errorf("stage %d, guard %q", p.stage, p.LeaveGuard())
	}
	if handled, _ := p.Back(); !handled || !p.confirm {
		t.Error("esc during the run does not ask")
	}
	close(job.Release)
}

// fakeDestBackend answers the audit and the spot check with fixed reports.
type fakeDestBackend struct {
	ivNop
	audit    *engine.AuditReport
	auditReq session.AuditRequest
	spot     *spotcheck.Report
}

func (b *fakeDestBackend) AuditCopy(_ context.Context, req session.AuditRequest) (*engine.AuditReport, error) {
	b.auditReq = req
	return b.audit, nil
}

func (b *fakeDestBackend) SpotCheck(_ context.Context, _ session.SpotRequest, progress func(spotcheck.Progress)) (*spotcheck.Report, error) {
	progress(spotcheck.Progress{Phase: spotcheck.PhaseChecks, Total: 3, Checked: 3})
	return b.spot, nil
}

func TestAuditPageGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			b := &fakeDestBackend{audit: uitest.Audit()}
			req := session.AuditRequest{Dest: "/tmp/copy", Target: "http://example.org/dataset1/resourcelist-1.xml"}
			p := NewAudit(ivTestCommon(), b, req, "the 10 resources of this Resource List", nil)
			tm, rec := ivRun(t, p, w, h)
			scr := ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "not in sync") })
			ivGolden(t, fmt.Sprintf("view_audit_%dx%d", w, h), rec.Screen())
			if !strings.Contains(scr, "▸ /res/002.html") {
				t.Errorf("the missing list is not the one shown first:\n%s", scr)
			}
			// tab: the changed list; / filters it.
			tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "▸ /res/009.html  damaged in the copy, unannounced") })
			tm.Send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
			tm.Type("/004")
			tm.Send(ivKey("enter"))
			ivWaitScreen(t, rec, func(s string) bool {
				return strings.Contains(s, `filter "004": 1 of 4`) && strings.Contains(s, "▸ /res/004.html") && !strings.Contains(s, "/res/002.html")
			})
		})
	}
}

// An audit with a document unread says so in its title and names the
// document; one of a copy of chosen resources counts the others as out of
// its selection.
func TestAuditPageIncomplete(t *testing.T) {
	rep := &engine.AuditReport{Source: uitest.Source, Document: "http://example.org/dataset1/resourcelist-index.xml",
		At:   time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC),
		Same: 3, SameURIs: []string{uitest.URI(1), uitest.URI(5), uitest.URI(7)}, Unselected: 394, NotCompared: 12,
		Problems: []engine.Failure{{URL: "http://example.org/dataset1/resourcelist-0002.xml", Kind: engine.KindDocument,
			Err: errors.New("GET http://example.org/dataset1/resourcelist-0002.xml: 404 Not Found")}},
		Hashed: 3, HashedBytes: 3671, Elapsed: 120 * time.Millisecond}
	b := &fakeDestBackend{audit: rep}
	req := session.AuditRequest{Dest: "/tmp/copy", Target: "http://example.org/dataset1/resourcelist-1.xml"}
	p := NewAudit(ivTestCommon(), b, req, "the 397 resources of this Resource List", nil)
	_, rec := ivRun(t, p, 80, 24)
	scr := ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "same 3") })
	ivGolden(t, "view_audit_incomplete_80x24", rec.Screen())
	for _, want := range []string{"incomplete", "1 document of the Source could not be read", "resourcelist-0002.xml: 404 Not Found",
		"394 out of the copy's selection", "12 resources of the copy", "missing 0"} {
		if !strings.Contains(scr, want) {
			t.Errorf("no %q on the page:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "not in sync") {
		t.Errorf("a copy that agrees with every document read is called not in sync:\n%s", scr)
	}
}

// s plans a sync of what differs: missing, changed and extra resources,
// and the stray files the audit found, to be moved to the trash by a plan
// that applies deletions (not as resources); an audit that found only
// stray files plans a sync of them alone.
func TestAuditPageSyncsDiffs(t *testing.T) {
	b := &fakeDestBackend{audit: uitest.Audit()}
	req := session.AuditRequest{Dest: "/tmp/copy", Target: "http://example.org/t.xml"}
	p := NewAudit(ivTestCommon(), b, req, "x", nil)
	p.SetSize(120, 40)
	ivDrive(p, ivRunCmd(p.Init())...)
	var got *nav.SyncDiffsMsg
	_, cmd := p.Update(ivKey("s"))
	if m, ok := cmd().(nav.SyncDiffsMsg); ok {
		got = &m
	}
	if got == nil {
		t.Fatal("s asked for no sync")
	}
	want := []string{uitest.URI(2), uitest.URI(3), uitest.URI(4), uitest.URI(6), uitest.URI(9), uitest.URI(41)}
	if fmt.Sprint(got.Req.Only) != fmt.Sprint(want) || got.Req.Dest != "/tmp/copy" || got.Req.Target != "http://example.org/t.xml" {
		t.Errorf("sync of %v into %s from %s; want %v", got.Req.Only, got.Req.Dest, got.Req.Target, want)
	}
	if !slices.Equal(got.Req.Strays, []string{"stray.txt"}) || !strings.Contains(got.What, "1 stray file") {
		t.Errorf("the stray files: %q (%s)", got.Req.Strays, got.What)
	}
	if !strings.Contains(ansi.Strip(p.View()), "1 stray file goes to the trash (DEST/.rsx/trash)") {
		t.Errorf("the page does not say what s does with the stray file:\n%s", p.View())
	}

	only := &engine.AuditReport{Source: uitest.Source, Same: 2, SameURIs: []string{uitest.URI(1), uitest.URI(5)},
		Extra: []string{"a/stray.txt"}, Stray: []string{"a/stray.txt"}}
	q := NewAudit(ivTestCommon(), &fakeDestBackend{audit: only}, req, "x", nil)
	q.SetSize(120, 40)
	ivDrive(q, ivRunCmd(q.Init())...)
	_, cmd = q.Update(ivKey("s"))
	m, ok := cmd().(nav.SyncDiffsMsg)
	if !ok || m.Req.Only == nil || len(m.Req.Only) != 0 || !slices.Equal(m.Req.Strays, []string{"a/stray.txt"}) {
		t.Errorf("an audit of stray files only: %+v", m)
	}
}

// The sync page of an audit's stray files: with deletions off it says they
// stay (d moves them); with deletions on, the plan lists each one as going
// to the trash, and only enter moves them.
func TestSyncPageTrash(t *testing.T) {
	job := uitest.NewSyncJob()
	job.Req.Strays = []string{"h/d/stray.txt"}
	p := NewSync(ivTestCommon(), job, "x", nil)
	p.SetSize(120, 40)
	ivDrive(p, ivRunCmd(p.Init())...)
	if scr := ansi.Strip(p.View()); !strings.Contains(scr, "1 stray file the audit found stay (d moves them to the trash)") {
		t.Errorf("deletions off:\n%s", scr)
	}
	with := uitest.Plan(true)
	with.StrayLooked, with.Strays = true, []string{"h/d/stray.txt"}
	with.Summary.Trash = 1
	job.DeletePlan = with
	ivDrive(p, ivKey("d"))
	ivDrive(p, ivRunCmd(p.startPlan())...)
	scr := ansi.Strip(p.View())
	if !strings.Contains(scr, "1 stray file move to DEST/.rsx/trash when enter runs the plan") || !strings.Contains(scr, "trash   h/d/stray.txt") {
		t.Errorf("deletions on:\n%s", scr)
	}
	job.Mu.Lock()
	runs := job.Runs
	job.Mu.Unlock()
	if runs != 0 {
		t.Errorf("%d runs before enter", runs)
	}
}

func TestSpotPageGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			b := &fakeDestBackend{spot: uitest.Spot()}
			req := session.SpotRequest{From: "http://example.org/dataset1/resourcelist-1.xml"}
			p := NewSpot(ivTestCommon(), b, req, "the 3 marked", nil)
			_, rec := ivRun(t, p, w, h)
			scr := ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "with a false claim") })
			ivGolden(t, fmt.Sprintf("view_spot_%dx%d", w, h), rec.Screen())
			if i, j := strings.Index(scr, "/res/012.html"), strings.Index(scr, "/res/001.html"); i < 0 || j < i {
				t.Errorf("the failure is not first:\n%s", scr)
			}
		})
	}
}

// The spot page draws its report once; moving the selection redraws only
// the selected resource's line, and a resource scrolled into view is drawn
// selected.
func TestSpotPageSelection(t *testing.T) {
	b := &fakeDestBackend{spot: uitest.Spot()}
	p := NewSpot(ivTestCommon(), b, session.SpotRequest{From: "http://example.org/dataset1/resourcelist-1.xml"}, "the 3 marked", nil)
	p.SetSize(80, 8)
	ivDrive(p, ivRunCmd(p.Init())...)
	has := func(want ...string) {
		t.Helper()
		lines := ivLines(p.View())
		for _, w := range want {
			if !slices.Contains(lines, w) {
				t.Errorf("no line %q in:\n%s", w, strings.Join(lines, "\n"))
			}
		}
	}
	has("▸ mismatch /res/012.html")
	ivDrive(p, ivKey("down"))
	has("▸ ok /res/001.html")
	ivDrive(p, ivKey("down"))
	has("▸ ok /res/005.html", "    ✓ md5      0f3b8ad1c2e4d5f60718293a4b5c6d7e")
	ivDrive(p, ivKey("up"), ivKey("up"))
	has("▸ mismatch /res/012.html")
}

// A run whose resources all went well but some of whose Source's documents
// could not be used (or that met a gap) says so, not "✗ 0 failures", and
// gives each reason whole, wrapped at 80 columns.
func TestSyncPageResultVerdict(t *testing.T) {
	unreadable := engine.Failure{URL: "http://example.org/dataset1/resourcelist-0000.xml", Kind: engine.KindFetch,
		Err: errors.New("GET http://example.org/dataset1/resourcelist-0000.xml: 404 Not Found, and this reason goes on past the edge")}
	for _, tc := range []struct {
		name  string
		edit  func(r *engine.Result)
		wants []string
	}{
		{"problems", func(r *engine.Result) { r.Plan.Problems = []engine.Failure{unreadable} },
			[]string{"✗ 1 document of the Source could not be used", "404 Not Found", "past the edge", "the copy is not finished"}},
		{"gap", func(r *engine.Result) {
			r.Plan.Gap = &plan.Gap{From: time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC), To: time.Date(2013, 1, 4, 9, 0, 0, 0, time.UTC)}
		}, []string{"✗ a gap in the Change Lists", "gap: "}},
		{"done", func(*engine.Result) {}, []string{"✓ done"}},
		{"stopped", func(r *engine.Result) { r.Stopped = "interrupted" },
			[]string{"stopped: interrupted", "Stopped: what was done is counted above"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := uitest.Plan(false)
			r := &engine.Result{Plan: p.Plan, Created: 2}
			tc.edit(r)
			v := NewSync(ivTestCommon(), uitest.NewSyncJob(), "the 3 marked of 40 entries", nil)
			v.result = r
			v.noteMax = maxNoteLines
			head := ansi.Strip(strings.Join(v.resultHead(80), "\n"))
			if strings.Contains(head, "0 failures") || (r.Stopped != "" && strings.Contains(head, "Nothing was changed")) {
				t.Errorf("the verdict counts 0 failures:\n%s", head)
			}
			for _, want := range tc.wants {
				if !strings.Contains(head, want) {
					t.Errorf("result without %q:\n%s", want, head)
				}
			}
		})
	}
}

// A plan with many long problems and notes wraps them, but not so far that
// the list of what will change has no room at 80x24: then each takes a line.
func TestSyncPlanNotesLeaveRoomForTheList(t *testing.T) {
	sp := uitest.Plan(false)
	long := "http://example.org/dataset1/resourcelist-0003.xml, a part of a Resource List Index, is a Resource Dump and not a Resource List"
	for i := range 4 {
		sp.Plan.Problems = append(sp.Plan.Problems, engine.Failure{URL: fmt.Sprint(i), Kind: engine.KindFetch, Err: errors.New(long)})
		sp.Plan.Notes = append(sp.Plan.Notes, long)
	}
	v := NewSync(ivTestCommon(), uitest.NewSyncJob(), "the 3 marked of 40 entries", nil)
	v.plan, v.stage = sp, syncPlanned
	v.rows = nil
	v.planRows()
	for _, size := range [][2]int{{80, 24}, {120, 60}} {
		v.SetSize(size[0], size[1])
		screen := ansi.Strip(v.View())
		if !strings.Contains(screen, "What will change") || !strings.Contains(screen, "/res/001.html") {
			t.Errorf("%dx%d: the list has no room:\n%s", size[0], size[1], screen)
		}
		if wrapped := regexp.MustCompile(`(?m)^    \S`).MatchString(screen); wrapped != (size[1] == 60) {
			t.Errorf("%dx%d: notes wrapped %v:\n%s", size[0], size[1], wrapped, screen)
		}
	}
}

// After a repair (a sync into the copy, over the page) the audit page is
// marked stale, and compares again when it is shown again (Returned); a
// sync into another copy leaves it as it is.
func TestAuditPageStaleAfterRepair(t *testing.T) {
	b := &fakeDestBackend{audit: uitest.Audit()}
	req := session.AuditRequest{Dest: "/tmp/copy", Target: "http://example.org/dataset1/resourcelist-1.xml"}
	p := NewAudit(ivTestCommon(), b, req, "the 10 resources of this Resource List", nil)
	p.SetSize(120, 40)
	ivDrive(p, ivRunCmd(p.Init())...)
	ivDrive(p, nav.CopyChangedMsg{Dest: "/tmp/other"})
	if cmd := p.Returned(); cmd != nil || strings.Contains(ansi.Strip(p.View()), "stale") {
		t.Fatal("a sync into another copy made the audit stale")
	}
	ivDrive(p, nav.CopyChangedMsg{Dest: "/tmp/copy"})
	ivGolden(t, "view_audit_stale_120x40", p.View())
	if scr := ansi.Strip(p.View()); !strings.Contains(scr, "⟳ stale") || strings.Contains(scr, "✗ not in sync") {
		t.Errorf("not marked stale after a repair:\n%s", scr)
	}
	in := &engine.AuditReport{Source: uitest.Source, Same: 2, SameURIs: []string{uitest.URI(1), uitest.URI(5)}}
	b.audit = in
	cmd := p.Returned()
	if cmd == nil {
		t.Fatal("shown again after a repair, the audit page does not compare again")
	}
	ivDrive(p, ivRunCmd(cmd)...)
	if scr := ansi.Strip(p.View()); strings.Contains(scr, "stale") || !strings.Contains(scr, "✓ in sync") {
		t.Errorf("compared again:\n%s", scr)
	}
	if p.Returned() != nil {
		t.Error("shown again with nothing changed, the audit page compares again")
	}
}
