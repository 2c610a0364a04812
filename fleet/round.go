package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"rsx/dest/engine"
	"rsx/dest/job"
	"rsx/display"
)

// Runner runs one Source's sync or audit; *job.Runner is one (tests give a
// fake).
type Runner interface {
	Sync(ctx context.Context, req job.SyncRequest) *job.SyncResult
	Audit(ctx context.Context, req job.AuditRequest) *job.AuditResult
}

// Run is one run of a Source.
type Run struct {
	Job     Job
	Started time.Time
	Elapsed time.Duration
	// Sync is a sync's result, Audit an audit's (its report open while the
	// run is reported, closed after); both nil when the run did not start
	// (NotRun).
	Sync  *job.SyncResult
	Audit *job.AuditResult
	// NotRun: the fleet was stopped before the run could start.
	NotRun bool
	// Held is set when the hold bound cut the run short: other Sources
	// waited for its DEST. It runs again after them, continuing where it
	// stopped.
	Held *Held
	// Cut are the runs of the same Source before this one in the round
	// that the hold bound cut short (a round's last run of each Source
	// carries them).
	Cut []*Run
}

// Held says how the hold bound cut a run short.
type Held struct {
	// Bound is the hold bound.
	Bound time.Duration
	// Waiting are the Sources (names) that waited for the DEST.
	Waiting []string
}

// ExitStatus is the run's exit status, as the command line's: 0, 1 (done,
// something wrong), 2 (could not run, or interrupted).
func (r *Run) ExitStatus() int {
	switch {
	case r.Sync != nil:
		return r.Sync.ExitStatus
	case r.Audit != nil:
		return r.Audit.ExitStatus
	}
	return job.ExitFailure
}

// Err says why the run could not be done (ExitStatus 2); nil otherwise.
func (r *Run) Err() error {
	switch {
	case r.NotRun:
		return errors.New("not run: interrupted")
	case r.Sync != nil:
		return r.Sync.Err
	case r.Audit != nil:
		return r.Audit.Err
	}
	return nil
}

// close closes what the run holds (an audit's report).
func (r *Run) close() {
	if r.Audit != nil {
		r.Audit.Close()
	}
}

// holdReason is what a run cut by the hold bound says it stopped for.
func holdReason(bound time.Duration, waiting []string) string {
	return fmt.Sprintf("held its DEST for %s, the fleet's hold bound, while %s waited for it: it continues after them",
		bound, display.Plural(len(waiting), "other Source", "other Sources"))
}

// runJob runs j through r under ctx.
func runJob(ctx context.Context, r Runner, j Job, n *job.Notified) *Run {
	run := &Run{Job: j, Started: time.Now()}
	switch j.Command {
	case CommandAudit:
		run.Audit = r.Audit(ctx, j.Audit)
	default:
		req := j.Sync
		req.Notified = n
		run.Sync = r.Sync(ctx, req)
	}
	run.Elapsed = time.Since(run.Started)
	return run
}

// RoundOptions tune a round.
type RoundOptions struct {
	// Parallel is the most runs at once; default 4.
	Parallel int
	// Hold is the longest a run may hold a DEST that other Sources of the
	// round wait for; 0: no bound.
	Hold time.Duration
	// Ended is told of each run as it ends (one at a time, with the
	// index of its job): a run cut by the hold bound, then the Source's
	// run again after the others. An audit's report is closed after it
	// returns.
	Ended func(i int, r *Run)
	// Status is told how many runs are under way and done after each
	// start and end.
	Status func(running, done, total int)
	// WaitLocked, above 0, is how long after the round began a sync
	// refused because another run holds its DEST (job.Locked: another
	// process of a fleet shared by several) is tried again, first after a
	// second, then twice as long each time up to 15 seconds, without
	// taking a place among the Parallel meanwhile; past it the refusal is
	// the run's result. 0: the refusal is the run's result at once.
	WaitLocked time.Duration
	// Waiting, when set, is told of a sync refused so when it is tried
	// again (the holder is the lock's).
	Waiting func(i int, j Job, holder string, again time.Duration)
}

// lockedRetryMax is the longest wait between two tries of a DEST another
// process holds (RoundOptions.WaitLocked).
const lockedRetryMax = 15 * time.Second

// Round runs each job once and returns their last runs in the jobs'
// order: in parallel (o.Parallel at most), never two of one host nor two
// of one DEST at once; a run that holds a DEST longer than o.Hold while
// another job waits for it is stopped (engine.StopReason) and runs again
// once those waiting have run. When ctx ends, the runs under way stop as
// an interrupted run does, and the jobs not started are NotRun.
func Round(ctx context.Context, r Runner, jobs []Job, o RoundOptions) []*Run {
	rd := &round{ctx: ctx, r: r, jobs: jobs, o: o, results: make([]*Run, len(jobs)), started: make([]bool, len(jobs)),
		busyHost: map[string]bool{}, holders: map[string]*holder{}, cut: make([][]*Run, len(jobs)), after: map[int][]int{}, wasCut: map[int]bool{},
		notBefore: make([]time.Time, len(jobs)), tries: make([]int, len(jobs)), begun: time.Now()}
	if rd.o.Parallel <= 0 {
		rd.o.Parallel = 4
	}
	for i, j := range jobs {
		rd.notBefore[i] = j.NotBefore
	}
	rd.cond = sync.NewCond(&rd.mu)
	stop := context.AfterFunc(ctx, rd.wakeUp)
	defer stop()
	rd.loop()
	rd.mu.Lock()
	if rd.wake != nil {
		rd.wake.Stop()
	}
	rd.mu.Unlock()
	for i := range rd.results {
		if rd.results[i] == nil {
			rd.results[i] = &Run{Job: jobs[i], NotRun: true, Started: time.Now()}
		}
		rd.results[i].Cut = rd.cut[i]
	}
	return rd.results
}

// round is a round's state, under mu.
type round struct {
	ctx      context.Context
	r        Runner
	jobs     []Job
	o        RoundOptions
	mu       sync.Mutex
	cond     *sync.Cond
	results  []*Run
	started  []bool
	busyHost map[string]bool
	holders  map[string]*holder // by DEST: the run that holds it
	cut      [][]*Run
	// after are, for a job cut by the hold bound, the jobs that waited
	// for its DEST then: it starts again once they have started. A job
	// cut once (wasCut) has had its turn: it waits for no one's cut, so
	// that two jobs never wait for each other.
	after   map[int][]int
	wasCut  map[int]bool
	running int
	done    int
	// notBefore is the earliest each job may start (Job.NotBefore, or a
	// DEST held by another process tried again later: tries); wake
	// wakes the loop at the earliest of those to come.
	notBefore []time.Time
	tries     []int
	begun     time.Time
	wake      *time.Timer
}

// wakeUp wakes the loop (a job's time to start has come, or ctx ended).
func (rd *round) wakeUp() {
	rd.mu.Lock()
	rd.cond.Broadcast()
	rd.mu.Unlock()
}

// holder is a run that holds a DEST.
type holder struct {
	job    int
	cancel context.CancelCauseFunc
	timer  *time.Timer
	held   *Held // set when it was cut
	after  []int // the jobs that waited then
}

func (rd *round) loop() {
	var wg sync.WaitGroup
	rd.mu.Lock()
	for {
		if rd.ctx.Err() != nil && rd.running == 0 {
			break
		}
		startedOne := false
		now := time.Now()
		var soonest time.Time
		for i, j := range rd.jobs {
			if rd.started[i] || rd.running >= rd.o.Parallel || rd.ctx.Err() != nil {
				continue
			}
			if t := rd.notBefore[i]; now.Before(t) {
				if soonest.IsZero() || t.Before(soonest) {
					soonest = t
				}
				continue
			}
			if rd.busyHost[j.Host] || rd.holders[j.DestKey()] != nil || rd.waits(i) {
				continue
			}
			rd.start(i, &wg)
			startedOne = true
		}
		if !soonest.IsZero() {
			if rd.wake != nil {
				rd.wake.Stop()
			}
			rd.wake = time.AfterFunc(time.Until(soonest), rd.wakeUp)
		}
		if startedOne && rd.o.Status != nil {
			rd.o.Status(rd.running, rd.done, len(rd.jobs))
		}
		if rd.done == len(rd.jobs) || (rd.ctx.Err() != nil && rd.running == 0) {
			break
		}
		rd.cond.Wait()
	}
	rd.mu.Unlock()
	wg.Wait()
}

// waits tells whether job i, cut by the hold bound, still waits for a
// job that waited for it to start; rd.mu is held.
func (rd *round) waits(i int) bool {
	for _, k := range rd.after[i] {
		if !rd.started[k] && rd.ctx.Err() == nil {
			return true
		}
	}
	delete(rd.after, i)
	return false
}

// start starts job i; rd.mu is held.
func (rd *round) start(i int, wg *sync.WaitGroup) {
	j := rd.jobs[i]
	rd.started[i], rd.busyHost[j.Host] = true, true
	rd.running++
	ctx, cancel := context.WithCancelCause(rd.ctx)
	h := &holder{job: i, cancel: cancel}
	dkey := j.DestKey()
	rd.holders[dkey] = h
	if rd.o.Hold > 0 {
		h.timer = time.AfterFunc(rd.o.Hold, func() { rd.bound(dkey, h) })
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		run := runJob(ctx, rd.r, j, nil)
		rd.mu.Lock()
		defer rd.mu.Unlock()
		if h.timer != nil {
			h.timer.Stop()
		}
		cancel(nil)
		rd.busyHost[j.Host] = false
		delete(rd.holders, dkey)
		rd.running--
		run.Held = h.held
		if again, holder, ok := rd.tryAgain(i, run); ok {
			// Another process holds its DEST: tried again later.
			run.close()
			if rd.o.Waiting != nil {
				rd.o.Waiting(i, j, holder, again)
			}
			rd.cond.Broadcast()
			return
		}
		if h.held != nil && rd.ctx.Err() == nil {
			// Cut short for the others: it runs again after them.
			rd.started[i], rd.wasCut[i] = false, true
			rd.after[i] = h.after
			rd.cut[i] = append(rd.cut[i], run)
		} else {
			rd.done++
			rd.results[i] = run
		}
		if rd.o.Ended != nil {
			rd.o.Ended(i, run)
		}
		run.close()
		if rd.o.Status != nil {
			rd.o.Status(rd.running, rd.done, len(rd.jobs))
		}
		rd.cond.Broadcast()
	}()
}

// tryAgain tells whether job i's run was refused because another run
// holds its DEST and is to be tried again (RoundOptions.WaitLocked), and
// sets when; rd.mu is held.
func (rd *round) tryAgain(i int, run *Run) (time.Duration, string, bool) {
	if rd.o.WaitLocked <= 0 || rd.ctx.Err() != nil || run.Sync == nil {
		return 0, "", false
	}
	le := job.Locked(run.Sync.Err)
	if le == nil {
		return 0, "", false
	}
	again := min(time.Second<<min(rd.tries[i], 4), lockedRetryMax)
	if time.Since(rd.begun)+again > rd.o.WaitLocked {
		return 0, "", false
	}
	rd.tries[i]++
	rd.started[i] = false
	rd.notBefore[i] = time.Now().Add(again)
	return again, le.Holder.String(), true
}

// bound is the hold bound of the run h that holds dkey: when other jobs
// of the round wait for the DEST (not those cut before: they had their
// turn), the run is stopped.
func (rd *round) bound(dkey string, h *holder) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.holders[dkey] != h || h.held != nil {
		return
	}
	var waiting []string
	for i, j := range rd.jobs {
		if i != h.job && !rd.started[i] && !rd.wasCut[i] && j.DestKey() == dkey {
			waiting = append(waiting, j.Name())
			h.after = append(h.after, i)
		}
	}
	if len(waiting) == 0 {
		return // no one waits: it goes on
	}
	slices.Sort(waiting)
	h.held = &Held{Bound: rd.o.Hold, Waiting: waiting}
	h.cancel(&engine.StopReason{Reason: holdReason(rd.o.Hold, waiting)})
}
