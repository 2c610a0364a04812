package fleet

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"rsx/dest/engine"
	"rsx/dest/job"
	"rsx/dest/state"
	"rsx/dest/store"
)

// sharedDests stands for the DESTs of a bucket that several processes
// share: each has a lock (a lease, taken over once it runs out) and a
// history, as job.Runner and the store keep them (job.SyncRequest.OnceSince
// is checked while the lock is held).
type sharedDests struct {
	mu    sync.Mutex
	lease time.Duration
	took  time.Duration
	locks map[string]*fakeLease
	runs  map[string][]*state.Run
	// killed: a process killed; its runs under way never end, and its
	// locks stay until their lease runs out.
	killed map[string]bool
}

type fakeLease struct {
	host  string
	until time.Time // refreshed while its holder lives
}

// proc is one process's runner on the shared DESTs.
type proc struct {
	d    *sharedDests
	host string
}

func (p proc) Sync(ctx context.Context, req job.SyncRequest) *job.SyncResult {
	d := p.d
	d.mu.Lock()
	if l := d.locks[req.Dest]; l != nil && (time.Now().Before(l.until) || !d.killed[l.host]) {
		d.mu.Unlock()
		return &job.SyncResult{ExitStatus: job.ExitFailure, Err: fmt.Errorf("sync: %w", &store.LockedError{Dest: req.Dest, Holder: store.Holder{ID: l.host}})}
	}
	d.locks[req.Dest] = &fakeLease{host: p.host}
	for _, r := range d.runs[req.Dest] {
		if r.Ended.IsZero() && r.Stopped == "" {
			r.Stopped = state.StoppedNoEnd // taken over
		}
	}
	if !req.OnceSince.IsZero() {
		for _, r := range d.runs[req.Dest] {
			if r.Started.After(req.OnceSince) && job.RoundRun(*r) && (req.OnceExcept == "" || r.Host != req.OnceExcept) {
				delete(d.locks, req.Dest)
				d.mu.Unlock()
				run := *r
				return &job.SyncResult{RanElsewhere: &run}
			}
		}
	}
	run := &state.Run{ID: int64(len(d.runs[req.Dest]) + 1), Started: time.Now(), Host: p.host, Mode: "incremental"}
	d.runs[req.Dest] = append(d.runs[req.Dest], run)
	d.mu.Unlock()
	select {
	case <-time.After(d.took):
	case <-ctx.Done():
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.killed[p.host] {
		d.locks[req.Dest].until = time.Now().Add(d.lease) // last refreshed now
		return &job.SyncResult{ExitStatus: job.ExitFailure}
	}
	run.Ended, run.ExitStatus = time.Now(), 0
	if ctx.Err() != nil {
		run.Stopped, run.ExitStatus = state.StoppedInterrupted, job.ExitFailure
	}
	delete(d.locks, req.Dest)
	return &job.SyncResult{ExitStatus: run.ExitStatus, Result: &engine.Result{}}
}

func (p proc) Audit(ctx context.Context, req job.AuditRequest) *job.AuditResult {
	return &job.AuditResult{}
}

// Three processes share the rounds of 6 Sources: each Source runs once a
// round (never twice in one interval), by one of them; the one killed
// while it runs a Source has that Source taken over once its lease ends;
// the one started later takes a share.
func TestEverySharedByThreeProcesses(t *testing.T) {
	const every, lease = 400 * time.Millisecond, 300 * time.Millisecond
	d := &sharedDests{lease: lease, took: 60 * time.Millisecond, locks: map[string]*fakeLease{}, runs: map[string][]*state.Run{}, killed: map[string]bool{}}
	var jobs []Job
	for i := range 6 {
		u := fmt.Sprintf("http://h%d.example/capabilitylist.xml", i)
		dest := fmt.Sprintf("s3://b/s%d", i)
		jobs = append(jobs, Job{Source: Source{URL: u}, Dest: dest, Host: fmt.Sprintf("h%d.example", i), Command: CommandSync,
			Sync: job.SyncRequest{Target: u, Dest: dest}})
	}
	load := func() (*File, []Job, error) { return &File{Parallel: 2}, append([]Job(nil), jobs...), nil }
	var wg sync.WaitGroup
	start := func(ctx context.Context, host string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			Every(ctx, proc{d: d, host: host}, EveryOptions{Every: every, Load: load, Host: host})
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start(ctx, "p1")
	ctx2, kill := context.WithCancel(ctx)
	start(ctx2, "p2")
	// p2 is killed in its first run that is not its very first.
	killedIn := ""
	for deadline := time.Now().Add(10 * time.Second); killedIn == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		d.mu.Lock()
		for dest, l := range d.locks {
			if l.host == "p2" && len(d.runs[dest]) > 1 {
				d.killed["p2"], killedIn = true, dest
				break
			}
		}
		d.mu.Unlock()
	}
	if killedIn == "" {
		t.Fatal("p2 never held a DEST")
	}
	kill()
	start(ctx, "p3")
	time.Sleep(16 * every)
	cancel()
	wg.Wait()
	end := time.Now()

	d.mu.Lock()
	defer d.mu.Unlock()
	by := map[string]int{}
	for dest, runs := range d.runs {
		var turns []time.Time
		var lastEnd time.Time
		for _, r := range runs {
			if r.Started.Before(lastEnd) {
				t.Errorf("%s: run %d by %s started before the one before it ended", dest, r.ID, r.Host)
			}
			if !r.Ended.IsZero() {
				lastEnd = r.Ended
			}
			if !job.RoundRun(*r) {
				continue
			}
			by[r.Host]++
			if n := len(turns); n > 0 && r.Started.Sub(turns[n-1]) < every-20*time.Millisecond {
				t.Errorf("%s: run %d by %s %s after the turn before: twice in a round", dest, r.ID, r.Host, r.Started.Sub(turns[n-1]))
			}
			turns = append(turns, r.Started)
		}
		turns = append(turns, end)
		for k := 1; k < len(turns); k++ {
			// Two rounds (Every waits a second at least between two), the
			// wait for a lease, a loaded machine's slowness.
			if gap := turns[k].Sub(turns[k-1]); gap > 2*time.Second+lease+1500*time.Millisecond {
				t.Errorf("%s: %s without a turn: a round missed", dest, gap)
			}
		}
		if dest == killedIn {
			last := runs[len(runs)-1]
			if last.Host == "p2" || !job.RoundRun(*last) && last.Stopped != state.StoppedInterrupted {
				t.Errorf("%s: not taken over after p2 was killed in it: last run %+v", dest, *last)
			}
		}
	}
	if by["p1"] == 0 || by["p3"] == 0 {
		t.Errorf("runs by process %v: p1 and p3 (started later) each take a share", by)
	}
	t.Logf("runs by process: %v; p2 killed in %s", by, killedIn)
}

// lockedTwice refuses the first two syncs of each DEST as another process
// holding it would.
type lockedTwice struct {
	mu    sync.Mutex
	tries map[string]int
}

func (l *lockedTwice) Sync(ctx context.Context, req job.SyncRequest) *job.SyncResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tries[req.Dest]++
	if l.tries[req.Dest] <= 2 {
		return &job.SyncResult{ExitStatus: job.ExitFailure, Err: fmt.Errorf("sync: %w", &store.LockedError{Dest: req.Dest, Holder: store.Holder{ID: "other"}})}
	}
	return &job.SyncResult{Result: &engine.Result{}}
}

func (l *lockedTwice) Audit(ctx context.Context, req job.AuditRequest) *job.AuditResult {
	return &job.AuditResult{}
}

// A DEST another process holds is tried again in the round (after a
// second, then two), without the refusal being the run's result; without
// WaitLocked the refusal is.
func TestRoundTriesADestHeldElsewhereAgain(t *testing.T) {
	j := Job{Source: Source{URL: "http://a.example/cl.xml"}, Dest: "s3://b/a", Host: "a.example", Command: CommandSync,
		Sync: job.SyncRequest{Target: "http://a.example/cl.xml", Dest: "s3://b/a"}}
	other := Job{Source: Source{URL: "http://b.example/cl.xml"}, Dest: "s3://b/b", Host: "b.example", Command: CommandSync,
		Sync: job.SyncRequest{Target: "http://b.example/cl.xml", Dest: "s3://b/b"}}
	r := &lockedTwice{tries: map[string]int{}}
	var waits []string
	var mu sync.Mutex
	began := time.Now()
	runs := Round(context.Background(), r, []Job{j, other}, RoundOptions{Parallel: 1, WaitLocked: time.Minute,
		Waiting: func(i int, j Job, holder string, again time.Duration) {
			mu.Lock()
			waits = append(waits, fmt.Sprintf("%s %s", j.Dest, again))
			mu.Unlock()
		}})
	if took := time.Since(began); took < 3*time.Second || took > 20*time.Second {
		t.Errorf("the round took %s; the tries again wait 1s, then 2s", took)
	}
	for _, run := range runs {
		if run.ExitStatus() != 0 || run.Err() != nil {
			t.Errorf("%s: exit %d, %v: tried again until its DEST was free", run.Job.Dest, run.ExitStatus(), run.Err())
		}
	}
	if len(waits) != 4 || r.tries["s3://b/a"] != 3 {
		t.Errorf("waits %q, tries %v", waits, r.tries)
	}

	r = &lockedTwice{tries: map[string]int{}}
	runs = Round(context.Background(), r, []Job{j}, RoundOptions{})
	if le := job.Locked(runs[0].Err()); le == nil || r.tries["s3://b/a"] != 1 {
		t.Errorf("without WaitLocked: %v after %d tries, want the refusal at once", runs[0].Err(), r.tries["s3://b/a"])
	}
}
