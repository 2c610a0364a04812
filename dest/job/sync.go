package job

import (
	"context"
	"errors"
	"fmt"
	"time"

	"rsx/dest/engine"
	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/fetch"
)

// Exit statuses of a run, as the command line's contract has them.
const (
	ExitOK      = 0 // done, nothing wrong found
	ExitFound   = 1 // done, and something is wrong (failures, a gap, problems)
	ExitFailure = 2 // could not do the job (could not start, interrupted)
)

// Sync is a sync opened: its destination is held (its lock) from
// Runner.OpenSync to Close, through a plan, its run and the retries of its
// failures, so that no other run changes it meanwhile. Its methods are
// called one at a time.
type Sync struct {
	r       *Runner
	req     SyncRequest
	o       *opened
	only    *plan.URISet
	started time.Time

	plan     *engine.Plan
	res      *engine.Result
	retry    *engine.Plan
	ran      bool // a run began: what it wrote in DEST stays
	recorded bool // a plan that failed is in the history: DEST stays
	notified NotifiedOutcome
}

// OpenSync opens req.Dest (made when it does not exist, but for a dry
// run, which writes nothing to it) and the engine on it. Its error is
// phrased as the command line says it ("sync: …").
func (r *Runner) OpenSync(ctx context.Context, req SyncRequest) (*Sync, error) {
	so := r.Store
	so.Create, so.ReadOnly = true, req.DryRun
	if req.DryRun {
		so.TempDir = r.tempDir()
	}
	eo := engine.Options{IgnoreCrawlDelay: req.IgnoreCrawlDelay, UserAgent: "rsx", MaxSize: req.MaxSize,
		StallTimeout: req.StallTimeout, ResourceTimeout: req.ResourceTimeout, Progress: req.Progress}
	o, err := r.open(ctx, "sync", req.Target, req.Dest, so, eo, req.Limits)
	if err != nil {
		return nil, err
	}
	return &Sync{r: r, req: req, o: o, started: time.Now()}, nil
}

// Request is what the sync copies.
func (s *Sync) Request() SyncRequest { return s.req }

// Dest is the engine on the destination (rsx sync --follow follows with it).
func (s *Sync) Dest() *engine.Dest { return s.o.dest }

// Client is the client the sync fetches with.
func (s *Sync) Client() *fetch.Client { return s.o.client }

// Store is the destination.
func (s *Sync) Store() store.Store { return s.o.st }

// Lock is the destination's lock: TookOver names an interrupted run whose
// lock this one took over.
func (s *Sync) Lock() *store.Lock { return s.o.dest.Lock() }

// Started is when the sync was opened: its elapsed time counts from then.
func (s *Sync) Started() time.Time { return s.started }

// SetDelete changes whether the next plan applies deletions (the
// explorer's toggle).
func (s *Sync) SetDelete(delete bool) { s.req.Delete = delete }

// Plan reads the Source and decides what the sync will do, writing nothing
// (the plan made before, and its result, are dropped). Notifications of
// the request are applied alone when they can be; else the Source's lists
// are read. A plan that fails is recorded in the history when DEST holds
// the Source; otherwise what opening DEST made goes at Close. The error is
// the engine's (PlanError phrases it as the command line does).
func (s *Sync) Plan(ctx context.Context) (*engine.Plan, error) {
	s.drop()
	req := s.req
	po := engine.PlanOptions{Mode: req.Mode, BaselineFrom: req.BaselineFrom, ChangesFrom: req.ChangesFrom, Selection: req.Selection,
		Delete: req.Delete, Checksum: req.Checksum, AllowOtherHosts: req.AllowOtherHosts,
		LimitDeletes: req.LimitDeletes, MaxDelete: req.MaxDelete, Strays: req.Strays, OtherSources: req.OtherSources}
	if po.Mode == "" {
		po.Mode = engine.ModeAuto
	}
	if req.Only != nil {
		if s.only == nil {
			s.only = plan.NewURISet(req.Only)
		}
		po.Only = s.only
	}
	var p *engine.Plan
	var err error
	s.notified = NotifiedOutcome{}
	if n := req.Notified; n != nil && len(n.Events) > 0 {
		// A run brought by notifications: they are applied alone when they
		// can be; else the Change Lists are read, as always.
		p, err = s.o.dest.PlanNotified(ctx, req.Target, po, n.Events, n.Covered)
		if why, ok := engine.IsReadLists(err); ok {
			s.notified.Fallback, p, err = why, nil, nil
			s.o.log.Info("notifications not applied alone: the lists are read", "source", req.Target, "dest", s.o.st.String(),
				"notifications", len(n.Events), "why", why)
		}
	}
	if p == nil && err == nil {
		p, err = s.o.dest.Plan(ctx, req.Target, po)
	}
	if err != nil {
		// The run did not start: a DEST that holds the Source records the
		// failure in its history; else what opening it made goes.
		if !req.DryRun && s.o.dest.RecordPlanFailure(context.WithoutCancel(ctx), req.Target, s.started, withCause(ctx, err)) {
			s.recorded = true
		}
		return nil, err
	}
	s.notified = NotifiedOutcome{Planned: true, Channels: p.Channels, Applied: p.Notified, Until: p.NotifiedUntil, Fallback: s.notified.Fallback}
	s.plan = p
	return p, nil
}

// drop closes the plan, the retry and the result before a new plan.
func (s *Sync) drop() {
	if s.plan != nil {
		s.plan.Close()
		s.plan = nil
	}
	if s.retry != nil {
		s.retry.Close()
		s.retry = nil
	}
	s.res = nil
}

// Run carries the plan out. Cancelling ctx stops it cleanly (its Stopped
// says "interrupted", or the engine.StopReason given as ctx's cause): what
// was written is recorded, and the next sync continues from there. A dry
// run is never run.
func (s *Sync) Run(ctx context.Context) (*engine.Result, error) {
	switch {
	case s.plan == nil:
		return nil, errors.New("run a sync: nothing planned")
	case s.req.DryRun:
		return nil, errors.New("run a sync: a dry run writes nothing")
	}
	return s.run(ctx, s.plan)
}

func (s *Sync) run(ctx context.Context, p *engine.Plan) (*engine.Result, error) {
	s.ran = true
	res, err := s.o.dest.Run(ctx, p)
	if err != nil {
		return nil, err
	}
	s.res = res
	return res, nil
}

// CanRetry tells whether the last run has failures that Retry can fetch
// again.
func (s *Sync) CanRetry() bool {
	return s.res != nil && s.res.Stopped == "" && s.res.FailedCount > 0 && s.res.FailedCount <= len(s.res.Failed)
}

// Retry runs again the resources that failed in the last run.
func (s *Sync) Retry(ctx context.Context) (*engine.Result, error) {
	if s.res == nil {
		return nil, errors.New("retry: nothing has run")
	}
	p := s.res.Retry()
	if p == nil {
		return nil, errors.New("nothing to retry: no failure can be fetched again (a stopped run is continued by planning again)")
	}
	if s.retry != nil {
		s.retry.Close()
	}
	s.retry = p
	return s.run(ctx, p)
}

// Close releases the destination: the plan's temporaries, the engine, its
// lock. A sync that planned and never ran (a dry run, a plan shown and
// left, a plan that failed on a DEST without this Source) leaves nothing
// in DEST: not the folder, not DEST/.rsx, if opening it made them.
func (s *Sync) Close() error {
	if s.o == nil {
		return nil
	}
	var err error
	if s.plan != nil {
		err = errors.Join(err, s.plan.Close())
		s.plan = nil
	}
	if s.retry != nil {
		err = errors.Join(err, s.retry.Close())
		s.retry = nil
	}
	s.o.discard = !s.ran && !s.recorded
	err = errors.Join(err, s.o.close())
	s.o = nil
	return err
}

// SyncResult is what a sync did, typed: the command line writes it as text
// or JSON, the fleet reports it per Source.
type SyncResult struct {
	// Plan is the plan (nil when none could be made); Result the run (nil
	// for a dry run, or a run that could not start). Their fields stay
	// readable after the sync is closed.
	Plan   *engine.Plan
	Result *engine.Result
	// Dest is the destination opened (its folder or bucket URL).
	Dest   string
	DryRun bool
	// Elapsed is from the plan's start to the run's end.
	Elapsed time.Duration
	// StateUploaded is the bytes of state the run uploaded to a bucket
	// (nil for a folder, or when no run ran).
	StateUploaded *int64
	// Notified is what the run made of the notifications of its request.
	Notified NotifiedOutcome
	// RanElsewhere is the run of another process that was the Source's
	// turn (SyncRequest.OnceSince): this sync did not run (ExitStatus 0).
	RanElsewhere *state.Run
	// TookOver names the run whose lock of DEST this one took over (it
	// had ended without releasing it, or stopped refreshing a bucket's):
	// nil when there was none.
	TookOver *store.Holder
	// ExitStatus is the command line's: 0 in step, 1 something failed or
	// a gap or problems, 2 the run could not start or was interrupted.
	ExitStatus int
	// Err says why when ExitStatus is 2, phrased as the command line says
	// it ("sync: …").
	Err error
}

// Result is the sync's result so far: its plan, its last run.
func (s *Sync) Result() *SyncResult {
	out := &SyncResult{Plan: s.plan, Result: s.res, DryRun: s.req.DryRun, Elapsed: time.Since(s.started), Notified: s.notified}
	if s.o != nil {
		out.Dest = s.o.st.String()
		if l := s.o.dest.Lock(); l != nil {
			out.TookOver = l.TookOver
		}
		if su := s.o.st.Features().StateUploaded; su != nil && s.res != nil {
			n := su()
			out.StateUploaded = &n
		}
	}
	switch {
	case s.res != nil:
		out.ExitStatus = s.res.ExitStatus()
	case s.plan != nil && (s.plan.Gap != nil || len(s.plan.Problems) > 0 || s.plan.DeletesHeld > 0):
		out.ExitStatus = ExitFound
	}
	if out.ExitStatus == ExitFailure {
		out.Err = errors.New("sync: interrupted; the next run continues where this one stopped")
	}
	return out
}

// PlanError phrases the error of a plan (Sync.Plan) as the command line
// says it.
func PlanError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		var sr *engine.StopReason
		if errors.As(context.Cause(ctx), &sr) {
			return fmt.Errorf("sync: stopped while reading the Source (%s): %w", sr.Reason, err)
		}
		return fmt.Errorf("sync: interrupted while reading the Source: %w", err)
	}
	return fmt.Errorf("sync: %w", err)
}

// PlanExitStatus is the exit status of a sync whose plan failed with err:
// 1 when it was refused for what it met (a Capability List of another
// Source: nothing was done, and the job was understood), 2 when it could
// not be done.
func PlanExitStatus(err error) int {
	if ie := (*engine.IdentityError)(nil); errors.As(err, &ie) {
		return ExitFound
	}
	return ExitFailure
}

// withCause is err with the reason ctx was stopped for, when one was
// given (engine.StopReason), for the history.
func withCause(ctx context.Context, err error) error {
	var sr *engine.StopReason
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &sr) {
		return fmt.Errorf("%s: %w", sr.Reason, err)
	}
	return err
}

// Sync runs req whole: open, plan, run (not for a dry run), close. What
// went wrong is in the result (ExitStatus, Err).
func (r *Runner) Sync(ctx context.Context, req SyncRequest) *SyncResult {
	s, err := r.OpenSync(ctx, req)
	if err != nil {
		return &SyncResult{DryRun: req.DryRun, ExitStatus: ExitFailure, Err: err}
	}
	defer s.Close()
	if !req.OnceSince.IsZero() {
		run, err := s.ranElsewhere(ctx)
		if err != nil {
			return &SyncResult{Dest: s.o.st.String(), ExitStatus: ExitFailure, Err: fmt.Errorf("sync: %w", err)}
		}
		if run != nil {
			return &SyncResult{Dest: s.o.st.String(), RanElsewhere: run}
		}
	}
	if _, err := s.Plan(ctx); err != nil {
		out := s.Result()
		out.ExitStatus, out.Err = PlanExitStatus(err), PlanError(ctx, err)
		return out
	}
	if !req.DryRun {
		if _, err := s.Run(ctx); err != nil {
			out := s.Result()
			out.ExitStatus, out.Err = ExitFailure, fmt.Errorf("sync: %w", err)
			return out
		}
	}
	return s.Result()
}

// RoundRun tells whether r is a Source's run in a round that several
// processes share (SyncRequest.OnceSince): one that ended, and was not cut
// short to be continued (interrupted, the lock lost, the hold bound). A run
// that could not plan (the Source unreachable) counts: it had its turn.
func RoundRun(r state.Run) bool {
	if r.Ended.IsZero() {
		return false // killed, or (never, under the lock) going on
	}
	return r.Mode == "plan" || r.ExitStatus != ExitFailure
}

// ranElsewhere is the run that was the Source's turn since
// s.req.OnceSince, by another process than OnceExcept; nil when there is
// none (DEST holds no copy of the Source yet: none).
func (s *Sync) ranElsewhere(ctx context.Context) (*state.Run, error) {
	db := s.o.dest.DB()
	src, err := db.SourceNamed(ctx, s.req.Target)
	if errors.Is(err, state.ErrNoSource) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var found *state.Run
	err = db.Runs(ctx, src.ID, 50, func(r *state.Run) error {
		if !r.Started.After(s.req.OnceSince) {
			return errStopRuns
		}
		if RoundRun(*r) && (s.req.OnceExcept == "" || r.Host != s.req.OnceExcept) {
			run := *r
			found = &run
			return errStopRuns
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopRuns) {
		return nil, fmt.Errorf("read the history of %s: %w", s.req.Target, err)
	}
	return found, nil
}

var errStopRuns = errors.New("stop")

// Locked is the lock that kept a run from DEST when err says another run
// holds it (a *store.LockedError); nil otherwise.
func Locked(err error) *store.LockedError {
	var le *store.LockedError
	if errors.As(err, &le) {
		return le
	}
	return nil
}
