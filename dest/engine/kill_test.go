package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/fetch"
	"rsx/internal/testproc"
)

// TestKillMidBaseline kills (SIGKILL) a process in the middle of a
// baseline: no file at a final path is partial or corrupt, the state is
// consistent, and the next run fetches only the resources that were not
// finished (the others are verified in place and kept).
func TestKillMidBaseline(t *testing.T) {
	if dir := os.Getenv("RSX_ENGINE_KILL_DEST"); dir != "" {
		killableBaseline(dir, os.Getenv("RSX_ENGINE_KILL_TARGET"))
		return
	}
	if testing.Short() {
		t.Skip("starts a process and kills it")
	}
	const n = 400
	f := manySource(t, n)
	f.mu.Lock()
	f.hook = func(p string) {
		if len(p) > 3 && p[:3] == "/r/" {
			time.Sleep(3 * time.Millisecond)
		}
	}
	f.mu.Unlock()
	dir := t.TempDir()
	cmd := testproc.Start(t, "TestKillMidBaseline", "RSX_ENGINE_KILL_DEST="+dir, "RSX_ENGINE_KILL_TARGET="+f.target())
	deadline := time.Now().Add(time.Minute)
	// Killed once a quarter of the files are in place and a batch of them
	// is committed (under load the first commit can come after the
	// quarter): the killed row must then hold a count.
	for len(files(t, dir)) < n/4 || committedCreates(dir) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the helper wrote nothing within a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	done := len(files(t, dir))
	if done >= n {
		t.Fatalf("the helper finished before it was killed (%d files)", done)
	}
	tmps, _ := os.ReadDir(filepath.Join(dir, ".rsx", "tmp"))
	t.Logf("killed with %d of %d files at their final path, %d temporaries", done, n, len(tmps))
	assertWhole(t, f, dir)
	assertConsistent(t, dir)
	// The killed run's row holds what its committed batches wrote.
	killedFiles, killed := runFiles(t, dir, 1)
	if !killed.Ended.IsZero() || killed.Created == 0 || killed.Created > done || len(killedFiles) != killed.Created {
		t.Errorf("the killed run's row: %+v, %d files recorded; %d files written", killed, len(killedFiles), done)
	}

	f.resetHits()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if _, killed = runFiles(t, dir, 1); killed.Stopped != state.StoppedNoEnd {
		t.Errorf("the killed run after the next one: %+v", killed)
	}
	if _, next := runFiles(t, dir, 2); !strings.HasPrefix(next.Why, "resumed") || next.Created != res.Created {
		t.Errorf("the next run: %+v", next)
	}
	if !res.OK() || !res.Finished || res.Plan.Mode != ModeBaseline || !res.Plan.Resumed {
		t.Fatalf("the next run: finished %v, mode %s, resumed %v:%s", res.Finished, res.Plan.Mode, res.Plan.Resumed, failures(res))
	}
	if got := f.resourceHits(); got != n-done {
		t.Errorf("the next run fetched %d resources; %d were not finished", got, n-done)
	}
	if res.Created+res.Plan.Summary.Unchanged != n || res.Adopted+res.Plan.Summary.Unchanged != done {
		t.Errorf("created %d (adopted %d), unchanged %d", res.Created, res.Adopted, res.Plan.Summary.Unchanged)
	}
	if tmps, _ := os.ReadDir(filepath.Join(dir, ".rsx", "tmp")); len(tmps) != 0 {
		t.Errorf("%d temporaries left", len(tmps))
	}
	assertWhole(t, f, dir)
	assertConsistent(t, dir)
	if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() || rep.Same != n {
		t.Errorf("audit: %+v", rep)
	}
}

// killableBaseline runs a baseline in the helper process until it is
// killed.
func killableBaseline(dir, target string) {
	fail := func(err error) {
		fmt.Println(err)
		os.Exit(3)
	}
	st, err := store.OpenDir(dir, store.Options{Create: true})
	if err != nil {
		fail(err)
	}
	runToBeKilled(st, target, fail)
}

// runToBeKilled is a helper process's run, which its test kills: a plan of
// target into st, "ready" on standard output, then the run in small
// batches, so that the kill finds some resources recorded and others only
// written.
func runToBeKilled(st store.Store, target string, fail func(error)) {
	c, err := fetch.NewClient(testClientOptions())
	if err != nil {
		fail(err)
	}
	s, err := Open(context.Background(), st, c, Options{Concurrency: 8, StateBatch: 40})
	if err != nil {
		fail(err)
	}
	p, err := s.Plan(context.Background(), target, PlanOptions{})
	if err != nil {
		fail(err)
	}
	fmt.Println("ready")
	s.Run(context.Background(), p)
	fmt.Println("finished")
	os.Exit(0)
}

// committedCreates is the created count of run 1 as committed in dir's
// state, 0 while there is none to read.
func committedCreates(dir string) int {
	db, err := state.OpenReadOnly(context.Background(), filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		return 0
	}
	defer db.Close()
	r, ok, err := db.Run(context.Background(), 1)
	if err != nil || !ok {
		return 0
	}
	return r.Created
}
