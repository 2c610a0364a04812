package job

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"rsx/demo"
	"rsx/dest/engine"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/fetch"
)

func startDemo(t *testing.T) *demo.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 200})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func testRunner() *Runner {
	return &Runner{
		HTTP: func(string) (fetch.Options, error) {
			o := fetch.DefaultOptions()
			o.NoCache, o.Netrc, o.Retries = true, "-", 0
			return o, nil
		},
		Version: "rsx test",
	}
}

// runs reads the history of the Source of target in the folder dest.
func runs(t *testing.T, dest, target string) []state.Run {
	t.Helper()
	db, err := state.OpenReadOnly(context.Background(), filepath.Join(dest, filepath.FromSlash(store.StateFile)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := db.Source(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	var out []state.Run
	db.Runs(context.Background(), src.ID, 100, func(r *state.Run) error { out = append(out, *r); return nil })
	return out
}

// A sync and an audit through the runner: the result is typed, the exit
// status the command line's, the version the runner's in the history.
func TestSyncAndAudit(t *testing.T) {
	srv := startDemo(t)
	r := testRunner()
	dest := filepath.Join(t.TempDir(), "copy")
	target := srv.URL + "/dataset2/capabilitylist.xml"
	ctx := context.Background()

	dry := r.Sync(ctx, SyncRequest{Target: target, Dest: dest, DryRun: true})
	if dry.Err != nil || dry.ExitStatus != 0 || dry.Plan == nil || dry.Result != nil || dry.Plan.Summary.Create == 0 {
		t.Fatalf("dry run: %+v", dry)
	}
	if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dry run made DEST: %v", err)
	}
	res := r.Sync(ctx, SyncRequest{Target: target, Dest: dest})
	if res.Err != nil || res.ExitStatus != 0 || res.Result == nil || res.Result.Created != dry.Plan.Summary.Create || res.Dest != dest {
		t.Fatalf("sync: %+v", res)
	}
	if rs := runs(t, dest, target); len(rs) != 1 || rs[0].Version != "rsx test" || rs[0].ExitStatus != 0 {
		t.Errorf("history: %+v", rs)
	}
	a := r.Audit(ctx, AuditRequest{Target: target, Dest: dest, ListSame: true})
	defer a.Close()
	if a.Err != nil || a.ExitStatus != 0 || !a.Report.InSync() || len(a.Report.SameURIs) != res.Result.Created {
		t.Fatalf("audit: %+v %v", a, a.Err)
	}
	// An audit of a folder that is not there says what it means.
	none := r.Audit(ctx, AuditRequest{Target: target, Dest: filepath.Join(t.TempDir(), "none")})
	if none.ExitStatus != 2 || none.Err == nil || !strings.Contains(none.Err.Error(), "there is no copy in") {
		t.Errorf("audit of nothing: %+v", none)
	}
}

// A Source's own rate and concurrency make its client, and the workers are
// twice its host's slots, for every caller.
func TestLimitsAndWorkers(t *testing.T) {
	srv := startDemo(t)
	r := testRunner()
	target := srv.URL + "/dataset2/capabilitylist.xml"
	rate, conc := 3.0, 1
	s, err := r.OpenSync(context.Background(), SyncRequest{Target: target, Dest: t.TempDir(), Limits: Limits{Rate: &rate, Concurrency: &conc}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if l := s.Client().LimitsFor(target); l.Rate != 3 || l.Concurrency != 1 {
		t.Errorf("a Source's limits on a near host: %+v", l)
	}
	if w := Workers(s.Client(), target); w != 2 {
		t.Errorf("workers %d, want 2", w)
	}
	// Without its own, a near host gets the policy's 8 slots: 16 workers.
	c, err := r.Client(target, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if w := Workers(c, target); w != 16 {
		t.Errorf("workers on a near host: %d, want 16", w)
	}
	bad := -1.0
	if _, err := r.Client(target, Limits{Rate: &bad}); err == nil {
		t.Error("a negative rate was taken")
	}
}

// A sync that cannot plan leaves nothing in a new DEST; on a DEST that
// holds the Source, the failure is recorded in its history.
func TestPlanFailureDiscardsOrRecords(t *testing.T) {
	srv := startDemo(t)
	r := testRunner()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String() + "/cl.xml"
	ln.Close()
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh")
	res := r.Sync(context.Background(), SyncRequest{Target: dead, Dest: fresh})
	if res.ExitStatus != 2 || res.Err == nil || !strings.HasPrefix(res.Err.Error(), "sync: ") || res.Plan != nil {
		t.Fatalf("unreachable: %+v", res)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a sync that did not start left DEST: %v", err)
	}
	// A copy of the demo, then the Source goes away.
	dest := filepath.Join(dir, "copy")
	target := srv.URL + "/dataset2/capabilitylist.xml"
	if res := r.Sync(context.Background(), SyncRequest{Target: target, Dest: dest}); res.ExitStatus != 0 {
		t.Fatalf("sync: %+v", res)
	}
	srv.Close()
	res = r.Sync(context.Background(), SyncRequest{Target: target, Dest: dest})
	if res.ExitStatus != 2 || res.Err == nil {
		t.Fatalf("the Source gone: %+v", res)
	}
	rs := runs(t, dest, target)
	if len(rs) != 2 || rs[0].Mode != "plan" || rs[0].ExitStatus != 2 || !strings.Contains(rs[0].Stopped, "could not plan") {
		t.Errorf("history: %+v", rs)
	}
}

// A run stopped with a StopReason says it in its result and its history,
// and is no interruption (exit 1, not 2).
func TestStopReason(t *testing.T) {
	srv := startDemo(t)
	r := testRunner()
	dest := t.TempDir()
	target := srv.URL + "/dataset2/capabilitylist.xml"
	s, err := r.OpenSync(context.Background(), SyncRequest{Target: target, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Plan(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&engine.StopReason{Reason: "held DEST too long"})
	res, err := s.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := s.Result()
	s.Close()
	if res.Stopped != "held DEST too long" || out.ExitStatus != 1 || out.Err != nil {
		t.Errorf("stopped %q, exit %d, %v", res.Stopped, out.ExitStatus, out.Err)
	}
	if rs := runs(t, dest, target); len(rs) != 1 || rs[0].Stopped != "held DEST too long" {
		t.Errorf("history: %+v", rs)
	}
	// Planning stopped so says why.
	if err := PlanError(ctx, errors.New("context canceled")); !strings.Contains(err.Error(), "held DEST too long") {
		t.Errorf("plan error: %v", err)
	}
}

// The soft memory limit is the sum of the needs of the runs open, and
// what it was once they are closed.
func TestMemoryLimit(t *testing.T) {
	srv := startDemo(t)
	r := testRunner()
	r.Getenv = func(string) string { return "" }
	before := debug.SetMemoryLimit(-1)
	target := srv.URL + "/dataset2/capabilitylist.xml"
	a, err := r.OpenSync(context.Background(), SyncRequest{Target: target, Dest: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	one := r.mem.limit()
	if got := debug.SetMemoryLimit(-1); got != one || one < baseMemoryLimit {
		t.Errorf("one run: limit %d, want %d (at least %d)", got, one, baseMemoryLimit)
	}
	b, err := r.OpenSync(context.Background(), SyncRequest{Target: srv.URL + "/dataset1/capabilitylist.xml", Dest: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if two := r.mem.limit(); two != one+baseMemoryLimit || debug.SetMemoryLimit(-1) != two {
		t.Errorf("two runs: %d, want %d", two, one+baseMemoryLimit)
	}
	a.Close()
	b.Close()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after: %d, want %d", got, before)
	}
	// GOMEMLIMIT set: left alone.
	r.Getenv = func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] }
	c, err := r.OpenSync(context.Background(), SyncRequest{Target: target, Dest: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("with GOMEMLIMIT: %d, want %d", got, before)
	}
}

// A named destination resolves through Resolve, with its credentials.
func TestResolve(t *testing.T) {
	srv := startDemo(t)
	r := testRunner()
	folder := t.TempDir()
	var asked []string
	r.Resolve = func(dest string) (string, func(string) string, error) {
		asked = append(asked, dest)
		if dest == "archive:" {
			return folder, nil, nil
		}
		if strings.HasSuffix(dest, ":") {
			return "", nil, errors.New("no destination named " + dest)
		}
		return dest, nil, nil
	}
	res := r.Sync(context.Background(), SyncRequest{Target: srv.URL + "/dataset2/capabilitylist.xml", Dest: "archive:"})
	if res.ExitStatus != 0 || res.Dest != folder {
		t.Fatalf("named: %+v (asked %q)", res, asked)
	}
	res = r.Sync(context.Background(), SyncRequest{Target: srv.URL + "/dataset2/capabilitylist.xml", Dest: "nothing:"})
	if res.ExitStatus != 2 || res.Err == nil || res.Err.Error() != "no destination named nothing:" {
		t.Errorf("unknown name: %+v", res)
	}
}
