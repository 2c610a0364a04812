package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"rsx/dest/engine"
	"rsx/dest/job"
	"rsx/dest/plan"
	"rsx/dest/store"
	"rsx/fetch"
)

// The explorer's work on destinations: a sync (plan, run, retries) with its
// progress as values on a channel, an audit of a copy, the local state of
// each entry of a document, and a spot check of entries. Every method
// blocks; the explorer calls them from its commands with a context the user
// can cancel.

// DestOptions say how the session reaches destinations.
type DestOptions struct {
	// Runner opens the destinations of syncs and audits of a copy as the
	// command line and the fleet open them (dest/job): the HTTP client of
	// each run built from its Source's limits, named destinations, the
	// memory limit, the version in the history. Nil: a runner with the
	// HTTP options of the session's own client (New), Store, Resolve and
	// ProgressInterval; none for NewWithGetter: syncs fail, saying why.
	Runner *job.Runner
	// Client fetches for spot checks and the local states of entries: a
	// client with the defaults of the Source's network (no rate limit on
	// this machine's or this network's own Source, as rsx sync has). Nil:
	// the session's own client (New), or none (NewWithGetter).
	Client fetch.Fetcher
	// Concurrency is how many resources a spot check fetches at once;
	// default 16.
	Concurrency int
	// Store configures destinations opened (a bucket's cache folder and
	// credentials).
	Store store.Options
	// Resolve, when set, turns a DEST as the user gave it (a named
	// destination of the configuration file, archive:sub) into the folder or
	// bucket URL to open and how its credentials are read (nil: Store's
	// Getenv).
	Resolve func(dest string) (string, func(string) string, error)
	// ProgressInterval is how often a sync reports progress; default 100ms.
	ProgressInterval time.Duration
}

// openStore opens dest with o, a named destination resolved first
// (DestOptions.Resolve).
func (s *Session) openStore(ctx context.Context, dest string, o store.Options) (store.Store, error) {
	if r := s.opts.Dest.Resolve; r != nil {
		u, getenv, err := r(dest)
		if err != nil {
			return nil, err
		}
		dest = u
		if getenv != nil {
			o.Getenv = getenv
		}
	}
	return store.Open(ctx, dest, o)
}

// errNoDestClient is returned when the session has no client for syncs.
var errNoDestClient = errors.New("this session cannot fetch resources for a copy (no client)")

// destClient is the client syncs, audits and spot checks fetch with.
func (s *Session) destClient() (fetch.Fetcher, error) {
	if c := s.opts.Dest.Client; c != nil {
		return c, nil
	}
	if f, ok := s.get.(fetch.Fetcher); ok {
		return f, nil
	}
	return nil, errNoDestClient
}

// SyncRequest is what a sync copies (dest/job's request): Dest and Target
// (the document open in the explorer: the engine finds its Source from
// it), Only (the resources marked, or shown; nil copies the whole Source,
// as rsx sync does) and, from the fleet page, every setting of the
// Source's entry in the fleet file (its selection, mode, checksum, delete,
// allow_other_hosts, rate and concurrency).
type SyncRequest = job.SyncRequest

// SyncUpdate is a progress report of a sync, with the failures since the
// report before (none is lost: reports the explorer has not taken yet are
// merged).
type SyncUpdate struct {
	Progress engine.Progress
	Failures []engine.Failure
}

// SyncPlan is a sync's plan as the explorer shows it: the engine's plan, the
// destination, and the decisions that do something (creates, updates,
// deletions, deletions remembered), at most MaxPlanItems of them.
type SyncPlan struct {
	*engine.Plan
	Dest  string
	Items []engine.Item
	// More counts the decisions not in Items.
	More int
}

// MaxPlanItems bounds the decisions a SyncPlan lists.
const MaxPlanItems = 10000

// Sync is one sync from the explorer: the destination is held (its lock)
// from the first plan through the run and its retries until Close, so that
// no other run changes it meanwhile. Progress arrives on Updates while a
// plan or a run goes on. Plan, Run and Retry are called one at a time.
type Sync struct {
	s       *Session
	req     SyncRequest
	updates chan SyncUpdate
	sendMu  sync.Mutex

	mu     sync.Mutex
	busy   bool
	closed bool
	job    *job.Sync
	plan   *SyncPlan
	// res is the last run (stoppedByClose); stop cancels the run going on
	// (StopSyncs); closedBusy: Close came during a call, so a run it ends
	// stopped early is reported (syncs.go).
	res        *engine.Result
	stop       context.CancelFunc
	closedBusy bool
}

// NewSync prepares a sync of req; nothing is read, opened or even hashed
// until Plan (the explorer calls NewSync from its UI goroutine).
func (s *Session) NewSync(req SyncRequest) *Sync {
	j := &Sync{s: s, req: req, updates: make(chan SyncUpdate, 1)}
	s.syncs.add(j)
	return j
}

// Request is what the sync copies.
func (j *Sync) Request() SyncRequest { return j.req }

// Updates delivers progress reports; a report not taken yet is replaced by
// the next (its failures carried over).
func (j *Sync) Updates() <-chan SyncUpdate { return j.updates }

// report is the engine's progress callback.
func (j *Sync) report(p engine.Progress) {
	u := SyncUpdate{Progress: p}
	if p.Failure != nil {
		u.Failures = []engine.Failure{*p.Failure}
	}
	j.sendMu.Lock()
	defer j.sendMu.Unlock()
	select {
	case old := <-j.updates:
		u.Failures = append(old.Failures, u.Failures...)
	default:
	}
	j.updates <- u // the only sender, holding sendMu: there is room
}

var errSyncClosed = errors.New("the sync is closed")

// begin marks a blocking call under way.
func (j *Sync) begin() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.closed:
		return errSyncClosed
	case j.busy:
		return errors.New("the sync is busy")
	}
	j.busy = true
	return nil
}

// end marks it over; a Close meanwhile releases the destination now.
func (j *Sync) end() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.busy = false
	if j.closed {
		j.release()
	}
}

// open takes the destination and its lock, once, through the runner.
func (j *Sync) open(ctx context.Context) error {
	if j.job != nil {
		return nil
	}
	r, err := j.s.runner()
	if err != nil {
		return err
	}
	req := j.req
	req.Progress = j.report
	js, err := r.OpenSync(ctx, req)
	if err != nil {
		return err
	}
	j.mu.Lock()
	j.job = js
	j.mu.Unlock()
	j.s.syncClient(js.Client(), 1)
	return nil
}

// syncClient counts the client of a sync open (n 1) or closed (n -1).
func (s *Session) syncClient(c *fetch.Client, n int) {
	s.syncsMu.Lock()
	defer s.syncsMu.Unlock()
	if s.syncClients == nil {
		s.syncClients = map[*fetch.Client]int{}
	}
	if s.syncClients[c] += n; s.syncClients[c] <= 0 {
		delete(s.syncClients, c)
	}
}

// Plan reads the Source and decides what the sync will do, writing nothing;
// delete applies the deletions (without it they are remembered). A plan
// made before is dropped.
func (j *Sync) Plan(ctx context.Context, delete bool) (*SyncPlan, error) {
	if err := j.begin(); err != nil {
		return nil, err
	}
	defer j.end()
	if err := j.open(ctx); err != nil {
		return nil, fmt.Errorf("open %s: %w", j.req.Dest, err)
	}
	j.mu.Lock()
	j.plan = nil
	j.mu.Unlock()
	j.job.SetDelete(delete)
	p, err := j.job.Plan(ctx)
	if err != nil {
		return nil, err
	}
	sp := &SyncPlan{Plan: p, Dest: j.job.Store().String()}
	err = p.Items(func(it engine.Item) error {
		if it.Action == plan.Unchanged {
			return nil
		}
		if len(sp.Items) < MaxPlanItems {
			sp.Items = append(sp.Items, it)
		} else {
			sp.More++
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read the plan: %w", err)
	}
	j.mu.Lock()
	j.plan = sp
	j.mu.Unlock()
	return sp, nil
}

// Run carries the plan out. Cancelling ctx stops it cleanly (Result.Stopped
// says "interrupted"): what was written is recorded, and the next sync
// continues from there.
func (j *Sync) Run(ctx context.Context) (*engine.Result, error) {
	if err := j.begin(); err != nil {
		return nil, err
	}
	defer j.end()
	j.mu.Lock()
	sp := j.plan
	j.mu.Unlock()
	if sp == nil {
		return nil, errors.New("run a sync: nothing planned")
	}
	return j.run(ctx, j.job.Run)
}

// run runs fn (a run or a retry of the job) with a context StopSyncs can
// cancel, and keeps its result (stoppedByClose).
func (j *Sync) run(ctx context.Context, fn func(context.Context) (*engine.Result, error)) (*engine.Result, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	j.mu.Lock()
	j.stop = stop
	j.mu.Unlock()
	res, err := fn(ctx)
	j.mu.Lock()
	j.stop = nil
	if res != nil {
		j.res = res
	}
	j.mu.Unlock()
	return res, err
}

// CanRetry tells whether the last run has failures that Retry can fetch
// again.
func (j *Sync) CanRetry() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.job != nil && !j.busy && j.job.CanRetry()
}

// Retry runs again the resources that failed in the last run.
func (j *Sync) Retry(ctx context.Context) (*engine.Result, error) {
	if err := j.begin(); err != nil {
		return nil, err
	}
	defer j.end()
	if j.job == nil {
		return nil, errors.New("retry: nothing has run")
	}
	return j.run(ctx, j.job.Retry)
}

// Close releases the destination (its lock, the plan's temporary files).
// During a call it is released when the call returns: cancel the call's
// context to have it return soon.
func (j *Sync) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	if j.busy {
		j.closedBusy = true
		return nil
	}
	return j.release()
}

// release closes the job: a plan shown and never run (esc) leaves nothing
// in DEST (not the folder, not DEST/.rsx, if opening it made them); j.mu
// is held.
func (j *Sync) release() error {
	j.plan = nil
	if j.job == nil {
		j.s.syncs.released(j, j.req.Dest, nil)
		return nil
	}
	j.s.syncClient(j.job.Client(), -1)
	err := j.job.Close()
	j.job = nil
	j.s.syncs.released(j, j.req.Dest, j.stoppedByClose())
	return err
}

// AuditRequest is what an audit of a copy compares.
type AuditRequest struct {
	Dest   string
	Target string
	// Only are the resources to compare (those of the document open); nil
	// compares the whole Source.
	Only []string
}

// AuditCopy compares the copy in req.Dest with the Source's current state,
// as rsx audit --dest does (through the same runner), listing the
// resources found the same too. It holds the destination's lock while it
// runs. A copy that cannot be written (a read-only mount, a snapshot) is
// audited read-only; the report's warnings say what was not recorded.
func (s *Session) AuditCopy(ctx context.Context, req AuditRequest) (*engine.AuditReport, error) {
	r, err := s.runner()
	if err != nil {
		return nil, err
	}
	res := r.Audit(ctx, job.AuditRequest{Target: req.Target, Dest: req.Dest, Only: req.Only, ListSame: true})
	// Its lists are in memory (no Keep): the report outlives the
	// destination, released now.
	defer res.Close()
	if res.Err != nil {
		return nil, res.Err
	}
	return res.Report, nil
}

// runner is the runner of the session's syncs and audits of a copy.
func (s *Session) runner() (*job.Runner, error) {
	if r := s.opts.Dest.Runner; r != nil {
		return r, nil
	}
	s.jobsOnce.Do(func() {
		var c *fetch.Client
		switch {
		case s.opts.Dest.Client != nil:
			c, _ = s.opts.Dest.Client.(*fetch.Client)
		default:
			c, _ = s.get.(*fetch.Client)
		}
		if c == nil {
			return
		}
		o := c.Options()
		s.jobs = &job.Runner{HTTP: func(string) (fetch.Options, error) { return o, nil }, Resolve: s.opts.Dest.Resolve,
			Store: s.opts.Dest.Store, TempDir: func() string { return s.opts.TempDir }, ProgressInterval: s.opts.Dest.ProgressInterval}
	})
	if s.jobs == nil {
		return nil, errNoDestClient
	}
	return s.jobs, nil
}
