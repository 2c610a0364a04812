package session

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rsx/demo"
	"rsx/dest/engine"
	"rsx/dest/state"
	"rsx/fetch"
	"rsx/internal/version"
)

// lastRun reads the newest run of the folder destination dir.
func lastRun(t *testing.T, dir string) state.Run {
	t.Helper()
	db, err := state.OpenReadOnly(context.Background(), filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, ok, err := db.LastRun(context.Background(), 0)
	if err != nil || !ok {
		t.Fatalf("no run recorded: %v", err)
	}
	return r
}

// An explorer's sync records the same rsx as rsx sync of the same binary
// (it recorded "rsx (devel)" beside the CLI's "rsx 0.1.0-dev").
func TestSyncRecordsTheVersion(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 20, ListSize: 1000})
	dir := t.TempDir()
	j := s.NewSync(SyncRequest{Dest: dir, Target: srv.URL + "/dataset1/capabilitylist.xml"})
	if _, err := j.Plan(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if r := lastRun(t, dir); r.Version != version.Program() {
		t.Errorf("the explorer's run records %q, want %q", r.Version, version.Program())
	}
}

// slowDemo serves a demo Source whose resources take a few milliseconds
// each, so that a sync of it is still running when a test stops it.
func slowDemo(t *testing.T, o demo.Options) (string, *Session) {
	t.Helper()
	h := demo.New(o).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/res/") {
			time.Sleep(5 * time.Millisecond)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", PerHostConcurrency: 2, IdleTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return srv.URL, New(c, Options{BatchSize: 16, Dest: DestOptions{Concurrency: 2}})
}

// The explorer quits (or gets SIGTERM) in the middle of a sync: StopSyncs
// stops the run, waits until it has recorded what it wrote, and names it;
// the history holds the run's counts and "interrupted" (a process that
// ended at once left "+0 ~0 -0, no end recorded" though files were written).
func TestStopSyncsRecordsTheInterruptedRun(t *testing.T) {
	base, s := slowDemo(t, demo.Options{Resources: 2000, ListSize: 1000})
	dir := t.TempDir()
	j := s.NewSync(SyncRequest{Dest: dir, Target: base + "/dataset1/capabilitylist.xml"})
	if _, err := j.Plan(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	ran := make(chan *engine.Result, 1)
	go func() {
		res, err := j.Run(context.Background())
		if err != nil {
			t.Error(err)
		}
		ran <- res
	}()
	deadline := time.After(time.Minute)
	for done := 0; done < 20; {
		select {
		case u := <-j.Updates():
			done = u.Progress.Done
		case <-deadline:
			t.Fatal("the sync wrote nothing within a minute")
		}
	}
	if running := s.RunningSyncs(); len(running) != 1 || running[0] != dir {
		t.Errorf("running syncs: %q", running)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stopped, err := s.StopSyncs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res := <-ran
	if len(stopped) != 1 || stopped[0].Dest != dir || stopped[0].Result != res || res.Stopped != "interrupted" || res.Created == 0 {
		t.Fatalf("stopped %+v; the run: %+v", stopped, res)
	}
	r := lastRun(t, dir)
	if !r.Interrupted() || r.Ended.IsZero() || r.Created != res.Created || r.Created >= res.Plan.Summary.Create {
		t.Errorf("the run recorded: %+v; it created %d", r, res.Created)
	}
	if running := s.RunningSyncs(); len(running) != 0 {
		t.Errorf("running after StopSyncs: %q", running)
	}
	// Nothing more to stop, nothing reported again.
	if again, err := s.StopSyncs(ctx); len(again) != 0 || err != nil {
		t.Errorf("StopSyncs again: %+v %v", again, err)
	}
}
