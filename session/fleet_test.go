package session

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rsx/demo"
	"rsx/dest/engine"
)

// The fleet page's data: each Source's copy read from its DEST (read-only),
// its last run, and how far its point is behind the Source's newest change.
func TestFleetStatus(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 200})
	dir := t.TempDir()
	ctx := context.Background()
	target := srv.URL + "/dataset1/capabilitylist.xml"
	j := s.NewSync(SyncRequest{Dest: filepath.Join(dir, "copy"), Target: target})
	if _, err := j.Plan(ctx, false); err != nil {
		t.Fatal(err)
	}
	if res, err := j.Run(ctx); err != nil || !res.OK() {
		t.Fatalf("sync: %v", err)
	}
	j.Close()
	// The Source moves on after the copy.
	srv.Source().Advance(3)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String() + "/cap.xml"
	ln.Close()
	file := filepath.Join(dir, "fleet.toml")
	os.WriteFile(file, []byte(`
[[source]]
name = "one"
url = "`+target+`"
dest = "`+filepath.Join(dir, "copy")+`"

[[source]]
url = "`+srv.URL+`/dataset2/capabilitylist.xml"

[[source]]
url = "`+dead+`"
`), 0o644)
	rows, err := s.ReadFleet(file, filepath.Join(dir, "other"))
	if err != nil || len(rows) != 3 || rows[1].Dest != filepath.Join(dir, "other") {
		t.Fatalf("read: %+v %v", rows, err)
	}
	rows = s.FleetStatus(ctx, rows)
	one := rows[0]
	if !one.HasCopy || one.Resources == 0 || !one.HasRun || one.LastRun.ExitStatus != 0 || one.Point.IsZero() || one.Newest.IsZero() {
		t.Errorf("the synced Source: %+v", one)
	}
	if one.Behind() <= 0 {
		t.Errorf("the copy is not behind a Source that moved on: point %v newest %v", one.Point, one.Newest)
	}
	if rows[1].HasCopy || rows[1].StateErr != "" || rows[1].SourceErr != "" {
		t.Errorf("a Source with no copy yet: %+v", rows[1])
	}
	if rows[2].SourceErr == "" {
		t.Errorf("an unreachable Source: %+v", rows[2])
	}
	// A sync that holds the folder (its plan shown, as the fleet page's s
	// leaves it) does not keep the page from reading the copy.
	held := s.NewSync(SyncRequest{Dest: filepath.Join(dir, "copy"), Target: target})
	if _, err := held.Plan(ctx, false); err != nil {
		t.Fatal(err)
	}
	again := s.FleetStatus(ctx, rows[:1])
	held.Close()
	if !again[0].HasCopy || again[0].StateErr != "" || again[0].Resources != one.Resources {
		t.Errorf("the copy read while a sync holds it: %+v", again[0])
	}
	runs, err := s.FleetRuns(ctx, one, 10)
	if err != nil || len(runs) != 1 || runs[0].Mode != "baseline" {
		t.Errorf("runs: %+v %v", runs, err)
	}
}

// The fleet page's s syncs a Source with every setting of its entry in the
// file, as rsx sync --sources does: here its rate (the requests are paced)
// and its delete (the Source's deletions are applied, not remembered).
// Before, the page synced the URL into the DEST and nothing else.
func TestFleetSyncAppliesTheSourcesSettings(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 16})
	dir := t.TempDir()
	ctx := context.Background()
	file := filepath.Join(dir, "fleet.toml")
	os.WriteFile(file, []byte(`dest = "`+filepath.Join(dir, "copy")+`"
[[source]]
name = "paced"
url = "`+srv.URL+`/dataset2/capabilitylist.xml"
rate = 4.0
delete = true
exclude = ['\.nothing$']
`), 0o644)
	rows, err := s.ReadFleet(file, "")
	if err != nil || len(rows) != 1 {
		t.Fatalf("%+v %v", rows, err)
	}
	req := rows[0].Request
	if !req.Delete || req.Limits.Rate == nil || *req.Limits.Rate != 4 || req.Selection == nil || req.Selection.Exclude[0] != `\.nothing$` {
		t.Fatalf("the request of the entry: %+v", req)
	}
	sync := func() *engine.Result {
		t.Helper()
		j := s.NewSync(req)
		defer j.Close()
		start := time.Now()
		p, err := j.Plan(ctx, j.Request().Delete)
		if err != nil {
			t.Fatal(err)
		}
		res, err := j.Run(ctx)
		if err != nil || !res.OK() {
			t.Fatalf("sync: %v %+v", err, res)
		}
		// The status bar tells that the Source's rate holds the sync back.
		if th := s.Throttled(); len(th) != 1 || th[0].Rate != 4 || th[0].Waits == 0 {
			t.Errorf("Throttled() = %+v during the sync", th)
		}
		// Four requests a second to the Source's host, near as it is (no
		// limit by default): the plan's documents and the resources.
		if n := p.Summary.Documents + res.Created + res.Updated; n >= 8 {
			if least := time.Duration(n-4) * time.Second / 4; time.Since(start) < least {
				t.Errorf("%d requests in %v: faster than the Source's rate of 4 a second", n, time.Since(start))
			}
		}
		return res
	}
	first := sync()
	if first.Created < 4 {
		t.Fatalf("baseline: %+v", first)
	}
	srv.Source().Advance(40)
	second := sync()
	if second.Deleted == 0 || second.Pending != 0 {
		t.Errorf("delete = true in the file: %d deleted, %d remembered", second.Deleted, second.Pending)
	}
	// The selection stored is the entry's.
	if sel := second.Plan.Selection; len(sel.Exclude) != 1 {
		t.Errorf("selection: %+v", sel)
	}
}
