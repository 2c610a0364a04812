package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"rsx/dest/engine"
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
	// Client fetches for syncs, audits of a copy and spot checks: a client
	// with the defaults of the Source's network (no rate limit on this
	// machine's or this network's own Source, as rsx sync has). Nil: the
	// session's own client (New), or none (NewWithGetter): then syncs and
	// checks fail, saying why.
	Client fetch.Fetcher
	// Concurrency is how many resources a sync fetches and writes at once
	// (engine.Options.Concurrency); default 16.
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

// SyncRequest is what a sync copies.
type SyncRequest struct {
	// Dest is the destination: a folder, or s3://bucket/prefix?….
	Dest string
	// Target is the document open in the explorer: the engine finds its
	// Source from it (the Capability List above it).
	Target string
	// Only are the resources to copy (those marked, or those shown); nil
	// copies the whole Source, as rsx sync does.
	Only []string
	// Trash are the stray files an audit found (paths of DEST): a plan that
	// applies deletions moves those still stray to the trash
	// (engine.PlanOptions.Strays).
	Trash []string
}

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
	only    *plan.URISet
	updates chan SyncUpdate
	sendMu  sync.Mutex

	mu     sync.Mutex
	busy   bool
	closed bool
	st     store.Store
	es     *engine.Dest
	plan   *SyncPlan
	res    *engine.Result
	retry  *engine.Plan
	ran    bool // a run began: what it wrote in DEST stays
	// stop cancels the run going on (StopSyncs); closedBusy: Close came
	// during a call, so a run it ends stopped early is reported (syncs.go).
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

// open takes the destination and its lock, once.
func (j *Sync) open(ctx context.Context) error {
	if j.es != nil {
		return nil
	}
	client, err := j.s.destClient()
	if err != nil {
		return err
	}
	o := j.s.opts.Dest.Store
	o.Create = true
	st, err := j.s.openStore(ctx, j.req.Dest, o)
	if err != nil {
		return err
	}
	es, err := engine.Open(ctx, st, client, engine.Options{Concurrency: j.s.opts.Dest.Concurrency,
		Progress: j.report, ProgressInterval: j.s.opts.Dest.ProgressInterval})
	if err != nil {
		st.Close()
		return err
	}
	j.st, j.es = st, es
	return nil
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
	if j.req.Only != nil && j.only == nil {
		j.only = plan.NewURISet(j.req.Only)
	}
	j.dropPlan()
	p, err := j.es.Plan(ctx, j.req.Target, engine.PlanOptions{Delete: delete, Only: j.only, Strays: j.req.Trash})
	if err != nil {
		return nil, err
	}
	sp := &SyncPlan{Plan: p, Dest: j.st.String()}
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
		p.Close()
		return nil, fmt.Errorf("read the plan: %w", err)
	}
	j.mu.Lock()
	j.plan = sp
	j.mu.Unlock()
	return sp, nil
}

// dropPlan closes the plan and the result before a new plan.
func (j *Sync) dropPlan() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.plan != nil {
		j.plan.Close()
		j.plan = nil
	}
	if j.retry != nil {
		j.retry.Close()
		j.retry = nil
	}
	j.res = nil
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
	return j.run(ctx, sp.Plan)
}

func (j *Sync) run(ctx context.Context, p *engine.Plan) (*engine.Result, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	j.mu.Lock()
	j.ran, j.stop = true, stop
	j.mu.Unlock()
	res, err := j.es.Run(ctx, p)
	if err != nil {
		return nil, err
	}
	j.mu.Lock()
	j.res = res
	j.mu.Unlock()
	return res, nil
}

// CanRetry tells whether the last run has failures that Retry can fetch
// again.
func (j *Sync) CanRetry() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.res != nil && j.res.Stopped == "" && j.res.FailedCount > 0 && j.res.FailedCount <= len(j.res.Failed)
}

// Retry runs again the resources that failed in the last run.
func (j *Sync) Retry(ctx context.Context) (*engine.Result, error) {
	if err := j.begin(); err != nil {
		return nil, err
	}
	defer j.end()
	j.mu.Lock()
	res := j.res
	j.mu.Unlock()
	if res == nil {
		return nil, errors.New("retry: nothing has run")
	}
	p := res.Retry()
	if p == nil {
		return nil, errors.New("nothing to retry: no failure can be fetched again (a stopped run is continued by planning again)")
	}
	j.mu.Lock()
	if j.retry != nil {
		j.retry.Close()
	}
	j.retry = p
	j.mu.Unlock()
	return j.run(ctx, p)
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

// release closes everything; j.mu is held.
func (j *Sync) release() error {
	var err error
	if j.plan != nil {
		err = errors.Join(err, j.plan.Close())
		j.plan = nil
	}
	if j.retry != nil {
		err = errors.Join(err, j.retry.Close())
		j.retry = nil
	}
	if j.es != nil {
		err = errors.Join(err, j.es.Close())
		j.es = nil
	}
	// A plan shown and never run (esc) leaves nothing in DEST: not the
	// folder, not DEST/.rsx, if opening it made them.
	if j.st != nil && !j.ran {
		if discard := j.st.Features().Discard; discard != nil {
			err = errors.Join(err, discard())
		}
	}
	if j.st != nil {
		err = errors.Join(err, j.st.Close())
		j.st = nil
	}
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
// as rsx audit --dest does, listing the resources found the same too. It
// holds the destination's lock while it runs.
func (s *Session) AuditCopy(ctx context.Context, req AuditRequest) (*engine.AuditReport, error) {
	client, err := s.destClient()
	if err != nil {
		return nil, err
	}
	// A copy that cannot be written (a read-only mount, a snapshot) is
	// audited read-only; the report's warnings say what was not recorded.
	so := s.opts.Dest.Store
	so.ReadOnlyWhenUnwritable = true
	st, err := s.openStore(ctx, req.Dest, so)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	es, err := engine.Open(ctx, st, client, engine.Options{Concurrency: s.opts.Dest.Concurrency})
	if err != nil {
		return nil, err
	}
	defer es.Close()
	o := engine.AuditOptions{ListSame: true}
	if req.Only != nil {
		o.Only = plan.NewURISet(req.Only)
	}
	return es.AuditWith(ctx, req.Target, o)
}
