package pages

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/dest/state"
	"rsx/session"
	"rsx/ui/internal/uitest"
	"rsx/ui/nav"
)

// fakeFleet answers the fleet page with fixed rows.
type fakeFleet struct{ runs []state.Run }

func (fakeFleet) FleetStatus(_ context.Context, rows []session.FleetSource) []session.FleetSource {
	t0 := ivTestTime()
	out := make([]session.FleetSource, len(rows))
	copy(out, rows)
	out[0].HasCopy, out[0].Resources, out[0].Bytes = true, 2002, 1258291
	out[0].Point, out[0].Newest = t0.Add(-72*time.Hour), t0.Add(-72*time.Hour)
	out[0].HasRun, out[0].LastRun = true, state.Run{ID: 9, Started: t0.Add(-2 * time.Hour), Ended: t0.Add(-2 * time.Hour), Mode: "incremental"}
	out[1].HasCopy, out[1].Resources, out[1].Bytes, out[1].Damaged = true, 399, 256000, 2
	out[1].Point, out[1].Newest = t0.Add(-96*time.Hour), t0.Add(-24*time.Hour)
	out[1].HasRun, out[1].LastRun = true, state.Run{ID: 4, Started: t0.Add(-26 * time.Hour), Ended: t0.Add(-26 * time.Hour), Mode: "incremental", Failed: 4, ExitStatus: 1}
	out[2].SourceErr = "GET http://127.0.0.1:9/cap.xml: connection refused"
	return out
}

func (f fakeFleet) FleetRuns(context.Context, session.FleetSource, int) ([]state.Run, error) {
	return f.runs, nil
}

func fleetSources() []session.FleetSource {
	return []session.FleetSource{
		{Name: "datasets", URL: "http://127.0.0.1:8080/dataset1/capabilitylist.xml", Dest: "/archive/datasets"},
		{Name: "broken", URL: "http://127.0.0.1:8081/dataset1/capabilitylist.xml", Dest: "/archive/broken"},
		{URL: "http://127.0.0.1:9/cap.xml", Dest: "/archive/gone"},
	}
}

// The fleet page: a row per Source with its last run, how far behind, its
// copy and its problems; l lists a Source's runs.
func TestFleetPage(t *testing.T) {
	t0 := ivTestTime()
	b := fakeFleet{runs: []state.Run{
		{ID: 9, Started: t0.Add(-2 * time.Hour), Ended: t0.Add(-2 * time.Hour), Mode: "incremental", Created: 3, Updated: 1},
		{ID: 8, Started: t0.Add(-26 * time.Hour), Mode: "reconcile", Why: "a gap: no Change List reaches back to the copy's point"},
	}}
	p := NewFleet(ivTestCommon(), b, "fleet.toml", fleetSources(), ivTestTime)
	_, rec := ivRun(t, p, 130, 16)
	screen := ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "1 behind") })
	ivGolden(t, "fleet", screen)
	for _, want := range []string{"✓ 2 hours ago", "in step", "3d", "2 damaged; 4 failures", "Source: GET http://127.0.0.1:9/cap.xml", "2,002"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the fleet page lacks %q:\n%s", want, screen)
		}
	}
}

func TestFleetPageKeys(t *testing.T) {
	t0 := ivTestTime()
	b := fakeFleet{runs: []state.Run{{ID: 9, Started: t0, Ended: t0, Mode: "incremental", Created: 3}, {ID: 8, Started: t0, Mode: "reconcile", Why: "a gap"},
		{ID: 7, Started: t0, Mode: "baseline", Created: 335, Stopped: state.StoppedNoEnd}}}
	p := NewFleet(ivTestCommon(), b, "fleet.toml", fleetSources(), ivTestTime)
	ivDrive(p, ivRunCmd(p.Init())...)
	ivDrive(p, ivKey("down"))
	_, cmd := p.Update(ivKey("enter"))
	out := ivRunCmd(cmd)
	if len(out) != 1 || out[0] != (nav.OpenSourceMsg{URL: "http://127.0.0.1:8081/dataset1/capabilitylist.xml", Dest: "/archive/broken"}) {
		t.Errorf("enter: %#v", out)
	}
	_, cmd = p.Update(ivKey("s"))
	msgs := ivRunCmd(cmd)
	if len(msgs) != 1 {
		t.Fatalf("s: %#v", msgs)
	}
	if sd, ok := msgs[0].(nav.SyncDiffsMsg); !ok || sd.Req.Dest != "/archive/broken" || sd.Req.Target != "http://127.0.0.1:8081/dataset1/capabilitylist.xml" || sd.Req.Only != nil {
		t.Errorf("s: %#v", msgs[0])
	}
	ivDrive(p, ivKey("l"))
	p.SetSize(120, 12)
	v := ansi.Strip(p.View())
	if !strings.Contains(v, "Runs of broken") || !strings.Contains(v, "+3 ~0 −0") || !strings.Contains(v, "no end recorded: going on, or killed") ||
		!strings.Contains(v, "+335 ~0 −0") || !strings.Contains(v, "✗ interrupted (no end recorded)") {
		t.Errorf("l:\n%s", v)
	}
	// esc goes back to the Sources, then closes.
	if handled, _ := p.Back(); !handled || !strings.Contains(ansi.Strip(p.View()), "problems") {
		t.Errorf("esc from the runs: handled %v\n%s", handled, p.View())
	}
	if handled, _ := p.Back(); handled {
		t.Error("esc on the Sources does not close the page")
	}
}

// space marks Sources; s opens the sync pages of the first marked, and each
// sync that ran opens the next, until none is left.
func TestFleetPageSyncsTheMarked(t *testing.T) {
	p := NewFleet(ivTestCommon(), fakeFleet{}, "fleet.toml", fleetSources(), ivTestTime)
	ivDrive(p, ivRunCmd(p.Init())...)
	ivDrive(p, ivKey("space"), ivKey("space")) // the first two
	p.SetSize(120, 16)
	if v := ansi.Strip(p.View()); !strings.Contains(v, "■ 2 marked") {
		t.Fatalf("marks:\n%s", v)
	}
	sync := func(cmd tea.Cmd) nav.SyncDiffsMsg {
		t.Helper()
		for _, m := range ivRunCmd(cmd) {
			if sd, ok := m.(nav.SyncDiffsMsg); ok {
				return sd
			}
		}
		t.Fatal("no sync asked for")
		return nav.SyncDiffsMsg{}
	}
	_, cmd := p.Update(ivKey("s"))
	first := sync(cmd)
	if first.Req.Dest != "/archive/datasets" || !strings.Contains(first.What, "then 1 more Source marked") {
		t.Errorf("first: %+v", first)
	}
	// Another destination's sync is not this page's.
	if _, cmd := p.Update(nav.CopyChangedMsg{Dest: "/elsewhere"}); cmd != nil {
		t.Errorf("a sync elsewhere moved the queue")
	}
	_, cmd = p.Update(nav.CopyChangedMsg{Dest: "/archive/datasets"})
	if second := sync(cmd); second.Req.Dest != "/archive/broken" {
		t.Errorf("second: %+v", second)
	}
	_, cmd = p.Update(nav.CopyChangedMsg{Dest: "/archive/broken"})
	for _, m := range ivRunCmd(cmd) {
		if _, ok := m.(nav.SyncDiffsMsg); ok {
			t.Errorf("a third sync after the last marked one: %+v", m)
		}
	}
	if v := ansi.Strip(p.View()); strings.Contains(v, "marked") {
		t.Errorf("marks left after their syncs:\n%s", v)
	}
}

// s syncs a Source with its entry's settings (the request the fleet file
// makes of it: here its delete and rate), and the sync page's delete toggle
// starts on for an entry with delete = true. Before, the page asked for a
// sync of the URL into the DEST and nothing else.
func TestFleetPageSyncsWithTheEntrysSettings(t *testing.T) {
	rows := fleetSources()
	rate := 2.0
	rows[0].Request = session.SyncRequest{Target: rows[0].URL, Dest: rows[0].Dest, Delete: true}
	rows[0].Request.Limits.Rate = &rate
	p := NewFleet(ivTestCommon(), fakeFleet{}, "fleet.toml", rows, ivTestTime)
	ivDrive(p, ivRunCmd(p.Init())...)
	_, cmd := p.Update(ivKey("s"))
	var req session.SyncRequest
	for _, m := range ivRunCmd(cmd) {
		if sd, ok := m.(nav.SyncDiffsMsg); ok {
			req = sd.Req
		}
	}
	if !req.Delete || req.Limits.Rate == nil || *req.Limits.Rate != 2 || req.Dest != "/archive/datasets" || req.Target != rows[0].URL {
		t.Fatalf("the sync asked for: %+v", req)
	}
	job := uitest.NewSyncJob()
	job.Req = req
	v := NewSync(ivTestCommon(), job, "every resource of datasets", nil)
	ivDrive(v, ivRunCmd(v.Init())...)
	job.Mu.Lock()
	defer job.Mu.Unlock()
	if len(job.Deletes) != 1 || !job.Deletes[0] {
		t.Errorf("the plans' deletions: %v, want the entry's delete", job.Deletes)
	}
}
