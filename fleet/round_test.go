package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/dest/engine"
	"rsx/dest/job"
)

// fakeRunner runs no engine: each Source's run takes the time its target
// is given (forever: until its context ends), and the runner records what
// ran at once.
type fakeRunner struct {
	mu       sync.Mutex
	took     map[string]time.Duration // by target; missing: 10ms
	forever  map[string]bool          // runs until stopped
	exit     map[string]int
	running  map[string]int // by host and by DEST key
	most     map[string]int
	order    []string // targets, in the order they started
	stopped  map[string][]string
	requests []job.SyncRequest
}

func newFake() *fakeRunner {
	return &fakeRunner{took: map[string]time.Duration{}, forever: map[string]bool{}, exit: map[string]int{}, running: map[string]int{},
		most: map[string]int{}, stopped: map[string][]string{}}
}

func (f *fakeRunner) enter(keys ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range keys {
		f.running[k]++
		f.most[k] = max(f.most[k], f.running[k])
	}
}

func (f *fakeRunner) leave(keys ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range keys {
		f.running[k]--
	}
}

func (f *fakeRunner) Sync(ctx context.Context, req job.SyncRequest) *job.SyncResult {
	host := strings.SplitN(strings.TrimPrefix(req.Target, "http://"), "/", 2)[0]
	keys := []string{"host " + host, "dest " + DestKey(req.Dest), "all"}
	f.enter(keys...)
	defer f.leave(keys...)
	f.mu.Lock()
	f.order = append(f.order, req.Target)
	f.requests = append(f.requests, req)
	took, forever, exit := f.took[req.Target], f.forever[req.Target], f.exit[req.Target]
	f.mu.Unlock()
	if took == 0 {
		took = 10 * time.Millisecond
	}
	t := time.NewTimer(took)
	defer t.Stop()
	if forever {
		t.Stop()
	}
	select {
	case <-t.C:
		return &job.SyncResult{ExitStatus: exit, Result: &engine.Result{}}
	case <-ctx.Done():
		// As the engine stops: the caller's reason, or interrupted.
		why := "interrupted"
		var sr *engine.StopReason
		if errors.As(context.Cause(ctx), &sr) {
			why = sr.Reason
		}
		f.mu.Lock()
		f.stopped[req.Target] = append(f.stopped[req.Target], why)
		f.mu.Unlock()
		if why == "interrupted" {
			return &job.SyncResult{ExitStatus: 2, Err: errors.New("sync: interrupted; the next run continues where this one stopped"), Result: &engine.Result{Stopped: why}}
		}
		return &job.SyncResult{ExitStatus: 1, Result: &engine.Result{Stopped: why}}
	}
}

func (f *fakeRunner) Audit(ctx context.Context, req job.AuditRequest) *job.AuditResult {
	return &job.AuditResult{ExitStatus: 0}
}

func jobsOf(t *testing.T, file string, base Base) []Job {
	t.Helper()
	f, err := Read(writeFile(t, file))
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := Jobs(f, CommandSync, base)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// A round runs every Source once, at most parallel at once, never two of
// one host nor two of one DEST; the results come in the file's order.
func TestRoundLimits(t *testing.T) {
	var b strings.Builder
	for i := range 8 {
		// Four hosts, two DESTs.
		fmt.Fprintf(&b, "[[source]]\nurl = \"http://h%d.example/s%d\"\ndest = \"/d%d\"\n", i%4, i, i%2)
	}
	jobs := jobsOf(t, b.String(), Base{})
	r := newFake()
	for _, j := range jobs {
		r.took[j.Source.URL] = 20 * time.Millisecond
	}
	r.exit[jobs[3].Source.URL] = 1
	var ended []int
	runs := Round(context.Background(), r, jobs, RoundOptions{Parallel: 3, Ended: func(i int, _ *Run) { ended = append(ended, i) }})
	if len(runs) != 8 || len(ended) != 8 {
		t.Fatalf("%d runs, %d ended", len(runs), len(ended))
	}
	for i, run := range runs {
		if run.Job.Source.URL != jobs[i].Source.URL || run.NotRun || (i == 3) != (run.ExitStatus() == 1) {
			t.Errorf("run %d: %+v", i, run)
		}
	}
	for k, n := range r.most {
		if (strings.HasPrefix(k, "host") || strings.HasPrefix(k, "dest")) && n > 1 {
			t.Errorf("%s: %d at once", k, n)
		}
	}
	if r.most["all"] > 3 || r.most["all"] < 2 {
		t.Errorf("%d at once, want 2 or 3 (parallel 3, two DESTs)", r.most["all"])
	}
}

// A Source that holds a DEST for ever is stopped at the hold bound when
// another Source waits for the DEST: that one runs, then the first again,
// continuing; the cut run says so, and is carried by the last.
func TestRoundHoldBound(t *testing.T) {
	jobs := jobsOf(t, `dest = "/shared"
hold = "200ms"
[[source]]
name = "slow"
url = "http://slow.example/cl"
[[source]]
name = "honest"
url = "http://honest.example/cl"
[[source]]
name = "alone"
url = "http://alone.example/cl"
dest = "/alone"
`, Base{})
	r := newFake()
	r.forever["http://slow.example/cl"] = true
	r.took["http://alone.example/cl"] = 400 * time.Millisecond // alone in its DEST: no bound
	var mu sync.Mutex
	var ended []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan []*Run)
	go func() {
		done <- Round(ctx, r, jobs, RoundOptions{Parallel: 4, Hold: 200 * time.Millisecond, Ended: func(i int, run *Run) {
			mu.Lock()
			defer mu.Unlock()
			held := ""
			if run.Held != nil {
				held = " held"
			}
			ended = append(ended, run.Job.Name()+held)
			if len(ended) == 3 {
				// Honest and alone are done: stop the round once the slow
				// one runs again.
				go func() {
					for {
						r.mu.Lock()
						n := len(r.order)
						r.mu.Unlock()
						if n >= 4 {
							cancel()
							return
						}
						time.Sleep(5 * time.Millisecond)
					}
				}()
			}
		}})
	}()
	var runs []*Run
	select {
	case runs = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("the round did not end: %q", ended)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ended) != 4 || ended[0] != "slow held" || ended[1] != "honest" || ended[2] != "alone" || ended[3] != "slow" {
		t.Fatalf("ended: %q", ended)
	}
	if got := strings.Join(r.order[:4], " "); !strings.HasPrefix(got, "http://slow.example/cl http://alone.example/cl http://honest.example/cl http://slow.example/cl") &&
		!strings.HasPrefix(got, "http://alone.example/cl http://slow.example/cl http://honest.example/cl http://slow.example/cl") {
		t.Errorf("order: %s", got)
	}
	if s := r.stopped["http://slow.example/cl"]; len(s) != 2 || !strings.Contains(s[0], "hold bound") || !strings.Contains(s[0], "1 other Source") || s[1] != "interrupted" {
		t.Errorf("slow stopped: %q", s)
	}
	if _, ok := r.stopped["http://alone.example/cl"]; ok {
		t.Error("the Source alone in its DEST was stopped")
	}
	slow := runs[0]
	if len(slow.Cut) != 1 || slow.Cut[0].Held == nil || slow.Cut[0].Held.Waiting[0] != "honest" || slow.Cut[0].Held.Bound != 200*time.Millisecond {
		t.Errorf("the slow Source's cut run: %+v", slow)
	}
	if runs[1].ExitStatus() != 0 || runs[1].Held != nil {
		t.Errorf("honest: %+v", runs[1])
	}
}

// Without others waiting, a long run is never cut; without a bound, never
// either.
func TestRoundHoldBoundNeedsWaiters(t *testing.T) {
	jobs := jobsOf(t, "dest = \"/shared\"\n[[source]]\nurl = \"http://slow.example/cl\"\n[[source]]\nurl = \"http://slow.example/other\"\n", Base{})
	r := newFake()
	r.took["http://slow.example/cl"] = 300 * time.Millisecond
	// One of the same host: it waits for the host, not the DEST... and for
	// the DEST too. With no bound, nothing is cut.
	runs := Round(context.Background(), r, jobs, RoundOptions{})
	if len(r.stopped) != 0 || runs[0].ExitStatus() != 0 || len(runs[0].Cut) != 0 {
		t.Errorf("cut without a bound: %q %+v", r.stopped, runs[0])
	}
	// A Source alone in its DEST runs past the bound.
	alone := jobsOf(t, "dest = \"/d\"\n[[source]]\nurl = \"http://slow.example/cl\"\n", Base{})
	runs = Round(context.Background(), r, alone, RoundOptions{Hold: 50 * time.Millisecond})
	if len(r.stopped) != 0 || runs[0].ExitStatus() != 0 {
		t.Errorf("cut while no one waits: %q", r.stopped)
	}
}

// A round stopped: the runs under way stop as interrupted, those not
// started are NotRun.
func TestRoundInterrupted(t *testing.T) {
	jobs := jobsOf(t, "dest = \"/d\"\n[[source]]\nurl = \"http://a.example/cl\"\n[[source]]\nurl = \"http://b.example/cl\"\n", Base{})
	r := newFake()
	r.forever["http://a.example/cl"] = true
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	runs := Round(ctx, r, jobs, RoundOptions{})
	if runs[0].ExitStatus() != 2 || runs[0].Err() == nil || !runs[1].NotRun || runs[1].Err().Error() != "not run: interrupted" {
		t.Errorf("%+v %+v", runs[0], runs[1])
	}
}

// A Source that is slower than the hold bound, waiting behind one the bound
// cut, is not cut for it in turn: the one cut had its turn. (The two waited
// for each other for ever.)
func TestRoundHoldBoundNoCycle(t *testing.T) {
	jobs := jobsOf(t, `dest = "/shared"
[[source]]
name = "slow"
url = "http://slow.example/cl"
[[source]]
name = "long"
url = "http://long.example/cl"
`, Base{})
	r := newFake()
	r.took["http://slow.example/cl"] = 2 * time.Second
	r.took["http://long.example/cl"] = 400 * time.Millisecond // longer than the bound
	done := make(chan []*Run)
	go func() { done <- Round(context.Background(), r, jobs, RoundOptions{Hold: 100 * time.Millisecond}) }()
	var runs []*Run
	select {
	case runs = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the round never ended: the two Sources wait for each other")
	}
	if len(runs[0].Cut) != 1 || runs[0].ExitStatus() != 0 {
		t.Errorf("slow: cut %d times, exit %d", len(runs[0].Cut), runs[0].ExitStatus())
	}
	if len(runs[1].Cut) != 0 || runs[1].ExitStatus() != 0 {
		t.Errorf("long: cut %d times, exit %d", len(runs[1].Cut), runs[1].ExitStatus())
	}
	if s := r.stopped["http://long.example/cl"]; len(s) != 0 {
		t.Errorf("long stopped: %q", s)
	}
}
