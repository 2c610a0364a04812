package ui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/audit"
	"rsx/claims"
	"rsx/dest/engine"
	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/model"
	"rsx/session"
	"rsx/ui/pages"
)

// fakeSyncJob plays a sync: a plan, a run that waits until released (or
// cancelled), a result.
type fakeSyncJob struct {
	req     session.SyncRequest
	plan    *session.SyncPlan
	planErr error
	res     *engine.Result
	retry   *engine.Result
	release chan struct{} // when not nil, Run waits for it (or for its context)
	updates chan session.SyncUpdate

	mu      sync.Mutex
	deletes []bool
	runs    int
	closed  bool
}

func newFakeSyncJob() *fakeSyncJob {
	return &fakeSyncJob{
		req:     session.SyncRequest{Dest: "/tmp/copy", Target: "http://example.org/dataset1/resourcelist-1.xml"},
		plan:    fakePlan(false),
		res:     fakeResult(),
		updates: make(chan session.SyncUpdate, 1),
	}
}

func (j *fakeSyncJob) Request() session.SyncRequest       { return j.req }
func (j *fakeSyncJob) Updates() <-chan session.SyncUpdate { return j.updates }
func (j *fakeSyncJob) CanRetry() bool                     { return j.res != nil && j.res.FailedCount > 0 }

func (j *fakeSyncJob) Plan(_ context.Context, del bool) (*session.SyncPlan, error) {
	j.mu.Lock()
	j.deletes = append(j.deletes, del)
	j.mu.Unlock()
	if j.planErr != nil {
		return nil, j.planErr
	}
	if del {
		return fakePlan(true), nil
	}
	return j.plan, nil
}

func (j *fakeSyncJob) Run(ctx context.Context) (*engine.Result, error) {
	j.mu.Lock()
	j.runs++
	j.mu.Unlock()
	if j.release != nil {
		select {
		case <-j.release:
		case <-ctx.Done():
			r := *j.res
			r.Stopped = "interrupted"
			return &r, nil
		}
	}
	return j.res, nil
}

func (j *fakeSyncJob) Retry(ctx context.Context) (*engine.Result, error) {
	if j.retry == nil {
		return nil, errors.New("nothing to retry")
	}
	return j.retry, nil
}

func (j *fakeSyncJob) Close() error {
	j.mu.Lock()
	j.closed = true
	j.mu.Unlock()
	return nil
}

const fakeSource = "http://example.org/dataset1/capabilitylist.xml"

func fakeURI(i int) string { return fmt.Sprintf("http://example.org/res/%03d.html", i) }

func fakePlan(del bool) *session.SyncPlan {
	p := &engine.Plan{Mode: engine.ModeBaseline, From: engine.FromList, Source: fakeSource, CapabilityList: fakeSource,
		Target: "http://example.org/dataset1/resourcelist-1.xml", Document: "http://example.org/dataset1/resourcelist-index.xml",
		At: time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC), Limited: 3, Delete: del, Reconcile: true,
		Summary: engine.Summary{Create: 2, Update: 1, Unchanged: 4, PendingDelete: 1, NotChosen: 37, Bytes: 3671, Checked: 5, Repair: 1},
		Notes:   []string{"limited to 3 chosen resources: the rest of the Source is left as it is, and a full sync is still to be made"},
	}
	items := []engine.Item{
		{Item: plan.Item{Action: plan.Create, Entry: plan.Entry{URI: fakeURI(1), Length: 1037}, Reason: "new"}},
		{Item: plan.Item{Action: plan.Create, Entry: plan.Entry{URI: fakeURI(5), Length: 1185}, Reason: "new"}},
		{Item: plan.Item{Action: plan.Update, Entry: plan.Entry{URI: fakeURI(9), Length: 1449, Digests: state.Digests("md5:00")}, Reason: "the copy example.org/res/009.html is missing"}},
	}
	if del {
		p.Summary.Delete, p.Summary.PendingDelete = 1, 0
		items = append(items, engine.Item{Item: plan.Item{Action: plan.Delete, Entry: plan.Entry{URI: fakeURI(7), Length: -1}, Reason: "not listed any more"}})
	} else {
		items = append(items, engine.Item{Item: plan.Item{Action: plan.PendingDelete, Entry: plan.Entry{URI: fakeURI(7), Length: -1}, Reason: "not listed any more"}})
	}
	return &session.SyncPlan{Plan: p, Dest: "/tmp/copy", Items: items}
}

func fakeResult() *engine.Result {
	p := fakePlan(false)
	return &engine.Result{Plan: p.Plan, Created: 2, Updated: 0, Pending: 1, Bytes: 2222, Elapsed: 1500 * time.Millisecond,
		FailedCount: 1, Failed: []engine.Failure{{URL: fakeURI(9), Kind: engine.KindVerify, Err: errors.New("md5: declared 1584abdf…, received 9e107d9d…"),
			Path: "example.org/res/009.html", Rejected: ".rsx/rejected/example.org/res/009.html"}}}
}

func fakeProgress() session.SyncUpdate {
	var inflight []string
	for i := 20; i < 28; i++ {
		inflight = append(inflight, fakeURI(i))
	}
	return session.SyncUpdate{
		Progress: engine.Progress{Phase: engine.PhaseSyncing, Total: 300, Done: 120, Failed: 2, Bytes: 1234567, TotalBytes: 3456789,
			Rate: 45.3, ByteRate: 467000, Elapsed: 3 * time.Second, Remaining: 4 * time.Second, InFlight: inflight},
		Failures: []engine.Failure{
			{URL: fakeURI(11), Kind: engine.KindFetch, Err: errors.New("fetch http://example.org/res/011.html: 404 Not Found"), Status: 404},
			{URL: fakeURI(12), Kind: engine.KindVerify, Err: errors.New("length: declared 1200, received 1187")},
		},
	}
}

// The sync page through its three stages: the plan, the progress and the
// result, with the delete toggle, the stop that asks, and the result's
// keys.
func TestSyncPageGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			job := newFakeSyncJob()
			job.release = make(chan struct{})
			p := newSyncPage(ivTestCommon(), job, "the 3 marked of 40 entries", resourceOpener{})
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
			job.updates <- fakeProgress()
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
			job.mu.Lock()
			if fmt.Sprint(job.deletes) != "[false true false]" || job.runs != 1 {
				t.Errorf("plans %v, runs %d", job.deletes, job.runs)
			}
			job.mu.Unlock()
		})
	}
}

func TestSyncPageResultGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			job := newFakeSyncJob()
			retried := *job.res
			retried.FailedCount, retried.Failed, retried.Updated = 0, nil, 1
			job.retry = &retried
			p := newSyncPage(ivTestCommon(), job, "the 3 marked of 40 entries", resourceOpener{})
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
	job := newFakeSyncJob()
	p := newSyncPage(ivTestCommon(), job, "x", resourceOpener{c: ivTestCommon(), b: NopBackend{}, entry: func(u string) model.Entry {
		return model.Entry{Loc: u, HasLoc: true}
	}})
	ivDrive(p, ivRunCmd(p.Init())...)
	ivDrive(p, ivKey("enter"))
	if p.stage != syncDone {
		t.Fatalf("stage %d after enter", p.stage)
	}
	msgs := ivDrive(p, ivKey("enter"))
	var pushed *pages.Resource
	for _, m := range msgs {
		if pp, ok := m.(pushPageMsg); ok {
			pushed, _ = pp.Page.(*pages.Resource)
		}
	}
	if pushed == nil {
		t.Fatalf("enter on a failure did not open its resource: %v", msgs)
	}
	if got := pushed.Entry().Loc; got != fakeURI(9) {
		t.Errorf("opened %s, want the failure %s", got, fakeURI(9))
	}
	if p.LeaveGuard() != "" {
		t.Error("a finished sync guards its page")
	}
	p.Close()
	if !job.closed {
		t.Error("closing the page did not close the sync")
	}

	bad := newFakeSyncJob()
	bad.planErr = errors.New("the Source Description lists 2 Capability Lists: give one of them")
	q := newSyncPage(ivTestCommon(), bad, "x", resourceOpener{})
	q.SetSize(80, 24)
	ivDrive(q, ivRunCmd(q.Init())...)
	if q.stage != syncFailed || !strings.Contains(q.View(), "give one of them") {
		t.Errorf("a failed plan:\n%s", q.View())
	}
	bad.planErr = nil
	ivDrive(q, ivKey("r"))
	if q.stage != syncPlanned {
		t.Errorf("r did not plan again: stage %d", q.stage)
	}
}

// The running page guards the explorer: it may not be left but through esc.
func TestSyncPageGuard(t *testing.T) {
	job := newFakeSyncJob()
	job.release = make(chan struct{})
	p := newSyncPage(ivTestCommon(), job, "x", resourceOpener{})
	ivDrive(p, ivRunCmd(p.Init())...)
	p.Update(ivKey("enter")) // the run's command is not run: it stays running
	if p.stage != syncRunning || !strings.Contains(p.LeaveGuard(), "esc stops it") {
		t.Errorf("stage %d, guard %q", p.stage, p.LeaveGuard())
	}
	if handled, _ := p.Back(); !handled || !p.confirm {
		t.Error("esc during the run does not ask")
	}
	close(job.release)
}

// fakeDestBackend answers the audit and the spot check with fixed reports.
type fakeDestBackend struct {
	NopBackend
	audit    *engine.AuditReport
	auditReq session.AuditRequest
	spot     *audit.Report
}

func (b *fakeDestBackend) AuditCopy(_ context.Context, req session.AuditRequest) (*engine.AuditReport, error) {
	b.auditReq = req
	return b.audit, nil
}

func (b *fakeDestBackend) SpotCheck(_ context.Context, _ session.SpotRequest, progress func(audit.Progress)) (*audit.Report, error) {
	progress(audit.Progress{Phase: audit.PhaseChecks, Total: 3, Checked: 3})
	return b.spot, nil
}

func fakeAudit() *engine.AuditReport {
	return &engine.AuditReport{Source: fakeSource, Document: "http://example.org/dataset1/resourcelist-index.xml",
		At: time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC), Point: time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC),
		Same: 2, SameURIs: []string{fakeURI(1), fakeURI(5)},
		Missing:     []string{fakeURI(2), fakeURI(3), fakeURI(4), fakeURI(6)},
		Changed:     []string{fakeURI(9)},
		Extra:       []string{fakeURI(41), "stray.txt"},
		Unannounced: []string{fakeURI(9), fakeURI(41)},
		Damaged:     []string{fakeURI(9)},
		NotChosen:   30, Hashed: 3, HashedBytes: 3671, Elapsed: 120 * time.Millisecond,
		Warnings: []string{"the Source's changes are only in a Change Dump, which an audit does not read"}}
}

func TestAuditPageGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			b := &fakeDestBackend{audit: fakeAudit()}
			req := session.AuditRequest{Dest: "/tmp/copy", Target: "http://example.org/dataset1/resourcelist-1.xml"}
			p := newAuditPage(ivTestCommon(), b, req, "the 10 resources of this Resource List", resourceOpener{})
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
	rep := &engine.AuditReport{Source: fakeSource, Document: "http://example.org/dataset1/resourcelist-index.xml",
		At:   time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC),
		Same: 3, SameURIs: []string{fakeURI(1), fakeURI(5), fakeURI(7)}, Unselected: 394, NotCompared: 12,
		Problems: []engine.Failure{{URL: "http://example.org/dataset1/resourcelist-0002.xml", Kind: engine.KindDocument,
			Err: errors.New("GET http://example.org/dataset1/resourcelist-0002.xml: 404 Not Found")}},
		Hashed: 3, HashedBytes: 3671, Elapsed: 120 * time.Millisecond}
	b := &fakeDestBackend{audit: rep}
	req := session.AuditRequest{Dest: "/tmp/copy", Target: "http://example.org/dataset1/resourcelist-1.xml"}
	p := newAuditPage(ivTestCommon(), b, req, "the 397 resources of this Resource List", resourceOpener{})
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
// not the files no resource owns.
func TestAuditPageSyncsDiffs(t *testing.T) {
	b := &fakeDestBackend{audit: fakeAudit()}
	req := session.AuditRequest{Dest: "/tmp/copy", Target: "http://example.org/t.xml"}
	p := newAuditPage(ivTestCommon(), b, req, "x", resourceOpener{})
	p.SetSize(120, 40)
	ivDrive(p, ivRunCmd(p.Init())...)
	var got *syncDiffsMsg
	_, cmd := p.Update(ivKey("s"))
	if m, ok := cmd().(syncDiffsMsg); ok {
		got = &m
	}
	if got == nil {
		t.Fatal("s asked for no sync")
	}
	want := []string{fakeURI(2), fakeURI(3), fakeURI(4), fakeURI(6), fakeURI(9), fakeURI(41)}
	if fmt.Sprint(got.req.Only) != fmt.Sprint(want) || got.req.Dest != "/tmp/copy" || got.req.Target != "http://example.org/t.xml" {
		t.Errorf("sync of %v into %s from %s; want %v", got.req.Only, got.req.Dest, got.req.Target, want)
	}
}

func fakeSpot() *audit.Report {
	ok := func(field, declared string) claims.Check {
		return claims.Check{Field: field, Verdict: claims.OK, Declared: declared, Actual: declared}
	}
	res := func(uri string, checks ...claims.Check) claims.EntryResult {
		return claims.EntryResult{Results: []claims.Result{{Target: claims.Target{URL: uri}, Checks: checks}}}
	}
	bad := res(fakeURI(12), ok("status", "2xx"),
		claims.Check{Field: "length", Verdict: claims.Mismatch, Declared: "1200", Actual: "1187 bytes"},
		claims.Check{Field: "md5", Verdict: claims.Mismatch, Declared: "1584abdf8ebdc9802ac0c6a7402c03b6", Actual: "9e107d9d372bb6826bd81d3542a419d6"})
	bad.Results = append(bad.Results, claims.Result{Target: claims.Target{URL: "http://mirror.example.net/res/012.html", Mirror: 1},
		Checks: []claims.Check{ok("status", "2xx"), ok("length", "1200")}})
	return &audit.Report{URL: "http://example.org/dataset1/resourcelist-1.xml", Checked: 3, Selected: 3, OK: 2, Failed: 1, Bytes: 3600,
		Elapsed:    80 * time.Millisecond,
		Mismatched: []audit.Finding{{URL: fakeURI(12), Field: "length"}},
		Counts:     audit.Counts{Mismatched: 1},
		Resources: []audit.Resource{
			{URL: fakeURI(12), Verdict: claims.Mismatch, Result: bad},
			{URL: fakeURI(1), Verdict: claims.OK, Result: res(fakeURI(1), ok("status", "2xx"), ok("length", "1037"), ok("type", "text/html"),
				claims.Check{Field: "lastmod", Verdict: claims.Warning, Declared: "2013-01-02T09:00:00Z", Actual: "2013-01-02T09:00:05Z", Reason: "servers differ"})},
			{URL: fakeURI(5), Verdict: claims.OK, Result: res(fakeURI(5), ok("status", "2xx"), ok("md5", "0f3b8ad1c2e4d5f60718293a4b5c6d7e"))},
		}}
}

func TestSpotPageGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			b := &fakeDestBackend{spot: fakeSpot()}
			req := session.SpotRequest{From: "http://example.org/dataset1/resourcelist-1.xml"}
			p := newSpotPage(ivTestCommon(), b, req, "the 3 marked", resourceOpener{})
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
	b := &fakeDestBackend{spot: fakeSpot()}
	p := newSpotPage(ivTestCommon(), b, session.SpotRequest{From: "http://example.org/dataset1/resourcelist-1.xml"}, "the 3 marked", resourceOpener{})
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
			p := fakePlan(false)
			r := &engine.Result{Plan: p.Plan, Created: 2}
			tc.edit(r)
			v := newSyncPage(ivTestCommon(), newFakeSyncJob(), "the 3 marked of 40 entries", resourceOpener{})
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
	sp := fakePlan(false)
	long := "http://example.org/dataset1/resourcelist-0003.xml, a part of a Resource List Index, is a Resource Dump and not a Resource List"
	for i := range 4 {
		sp.Plan.Problems = append(sp.Plan.Problems, engine.Failure{URL: fmt.Sprint(i), Kind: engine.KindFetch, Err: errors.New(long)})
		sp.Plan.Notes = append(sp.Plan.Notes, long)
	}
	v := newSyncPage(ivTestCommon(), newFakeSyncJob(), "the 3 marked of 40 entries", resourceOpener{})
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
