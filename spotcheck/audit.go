package spotcheck

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"rsx/claims"
	"rsx/fetch"
	"rsx/model"
)

// Defaults of Options.
const (
	DefaultSample          = 100
	DefaultConcurrency     = 8
	DefaultListConcurrency = 4
	DefaultProgressEvery   = 100 * time.Millisecond
)

// Options tune a run. The zero value checks every resource.
type Options struct {
	// Sample is how many resources to check, drawn uniformly from all the
	// resources listed; 0 (or less) checks every one.
	Sample int
	// Seed chooses the sample: the same seed draws the same resources
	// from the same lists.
	Seed uint64
	// Include and Exclude filter the resources by URI: a resource is
	// listed when it matches one Include pattern (or there is none) and no
	// Exclude pattern.
	Include, Exclude []*regexp.Regexp

	// MaxTotalBytes ends the run once this many resource body bytes were
	// read (the lists are not counted); 0: no bound.
	MaxTotalBytes int64
	// TimeBudget ends the run after this long; 0: no bound.
	TimeBudget time.Duration

	// Concurrency is how many resources are checked at once (the fetch
	// client's per-host limits apply on top); default 8.
	Concurrency int
	// ListConcurrency is how many lists are read at once; default 4.
	ListConcurrency int
	// Claims tunes each check: Margin, MaxBytes, Timeout (per resource or
	// mirror), Concurrency (targets of one resource at once). Its Budget is
	// made from MaxTotalBytes.
	Claims claims.Options
	// Decoder bounds what one list may cost to parse.
	Decoder model.DecoderOptions
	// TempDir holds, while every resource is checked (Sample 0), each list
	// part as it is read, so that no connection stays open while the
	// checks catch up; default os.TempDir().
	TempDir string

	// OmitOKMirrors keeps only the mirrors that are not ok in
	// Report.Mirrors, so that memory does not grow with the mirrors checked.
	OmitOKMirrors bool
	// Sink, when set, receives every finding and every mirror checked (ok
	// or not) as its resource is judged, and the Report keeps none of them
	// (its Counts count them): memory does not grow with what is found. A
	// Spool keeps them on disk and gives them back in the Report's order.
	Sink Sink
	// KeepResources keeps every resource checked whole, with each claim
	// and its verdict (Report.Resources: the failures first), for a report
	// that shows them one by one (the explorer's spot check). Memory grows
	// with the resources checked: for a sample, or a few hundred entries.
	KeepResources bool

	// Progress, when set, is called with the state of the run, from one
	// goroutine at a time, at most every ProgressEvery (default 100 ms),
	// at each change of phase and once at the end. It must not block.
	Progress      func(Progress)
	ProgressEvery time.Duration
}

// Phase is the stage a run is at.
type Phase uint8

const (
	PhaseLists  Phase = iota // reading the lists (checks may run too, when every resource is checked)
	PhaseChecks              // checking the resources drawn
	PhaseDone
)

func (p Phase) String() string {
	switch p {
	case PhaseLists:
		return "reading lists"
	case PhaseChecks:
		return "checking"
	}
	return "done"
}

// Progress is the state of a run.
type Progress struct {
	Phase   Phase
	Lists   int   // documents read
	Listed  int64 // resources listed so far
	Total   int   // resources to check; -1 while the lists are still being read
	Checked int   // resources checked (or given up at the end of the run)
	Failed  int   // resources with a false claim
	Bytes   int64 // resource body bytes read
}

// ErrNothingToAudit: below the URL there is no Resource List and no Change List.
var ErrNothingToAudit = errors.New("no Resource List or Change List to audit")

// errStopped is the cause of the cancellation that ends a run early.
var errStopped = errors.New("the audit stopped")

// Auditor runs spot audits through one client.
type Auditor struct {
	f fetch.Fetcher
	o Options
}

// New returns an Auditor that fetches lists and resources with f
// (*fetch.Client is one).
func New(f fetch.Fetcher, o Options) *Auditor {
	if o.Sample < 0 {
		o.Sample = 0
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.ListConcurrency <= 0 {
		o.ListConcurrency = DefaultListConcurrency
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = DefaultProgressEvery
	}
	return &Auditor{f: f, o: o}
}

// selected reports whether the include and exclude patterns let uri through.
func (a *Auditor) selected(uri string) bool {
	if len(a.o.Include) > 0 {
		in := false
		for _, re := range a.o.Include {
			if re.MatchString(uri) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	for _, re := range a.o.Exclude {
		if re.MatchString(uri) {
			return false
		}
	}
	return true
}

// run is the state of one Run.
type run struct {
	a      *Auditor
	ctx    context.Context
	stop   context.CancelCauseFunc
	budget *claims.Budget
	check  *claims.Checker

	stopMu  sync.Mutex
	stopped Stop

	// While reading.
	listsMu sync.Mutex
	lists   []List
	visited map[string]bool
	rootErr error
	parts   []job // Resource List documents, read once the Change Lists are
	changes *changeSet
	minAt   time.Time // the earliest at of the Resource Lists read
	listed  atomic.Int64
	skipped atomic.Int64
	nLists  atomic.Int64

	// While checking.
	repMu   sync.Mutex
	rep     *Report
	total   atomic.Int64 // -1 while unknown
	checked atomic.Int64
	failed  atomic.Int64
	bytes   atomic.Int64
	phase   atomic.Uint32

	progMu   sync.Mutex
	progLast time.Time
}

// Run audits the Source below url (a Source Description, Capability List,
// index, Resource List or Change List) and returns what it found. The
// error is not nil when the audit could not run: url could not be read, is
// not a document rsx can audit from, or leads to no list; the Report then
// holds what was read. Lists below url that cannot be read are in
// Report.Lists with their error, and do not stop the run.
func (a *Auditor) Run(ctx context.Context, url string) (*Report, error) {
	start := time.Now()
	r := a.newRun(ctx, url)
	defer r.stop(nil)
	if a.o.TimeBudget > 0 {
		t := time.AfterFunc(a.o.TimeBudget, func() { r.halt(StopTime) })
		defer t.Stop()
	}
	err := r.audit(url)
	rep := r.finish(start)
	return rep, err
}

// newRun starts the state of a run from url; the caller defers r.stop(nil).
func (a *Auditor) newRun(ctx context.Context, url string) *run {
	r := &run{a: a, rep: &Report{URL: url, Sample: a.o.Sample, Seed: a.o.Seed}, visited: map[string]bool{}, changes: newChangeSet()}
	r.total.Store(-1)
	r.ctx, r.stop = context.WithCancelCause(ctx)
	co := a.o.Claims
	if a.o.MaxTotalBytes > 0 {
		r.budget = claims.NewBudget(a.o.MaxTotalBytes)
		co.Budget = r.budget
	}
	r.check = claims.New(a.f, co)
	return r
}

// halt ends the run early for why; the first reason stays.
func (r *run) halt(why Stop) {
	r.stopMu.Lock()
	if r.stopped == "" {
		r.stopped = why
	}
	r.stopMu.Unlock()
	r.stop(fmt.Errorf("%w: %s: %w", errStopped, why, context.Canceled))
}

func (r *run) audit(url string) error {
	// The Change Lists first: what they record decides the claims that
	// hold for the resources the Resource Lists then stream past.
	r.readNavigation(url)
	if r.rootErr != nil {
		return r.rootErr
	}
	if r.ctx.Err() != nil {
		r.noteInterrupt()
		return nil
	}
	if len(r.parts) == 0 && r.changes.len() == 0 {
		return fmt.Errorf("audit %s: %w", url, ErrNothingToAudit)
	}
	if r.a.o.Sample > 0 {
		res := newReservoir(r.a.o.Sample)
		r.readResources(func(it *item) { res.offer(it) }, res.wants, false)
		r.addUnlisted(func(it *item) { res.offer(it) }, res.wants)
		if r.ctx.Err() != nil {
			r.noteInterrupt()
			return nil
		}
		r.checkItems(res.sample())
	} else {
		// Every resource, checked while the lists stream past.
		ch := make(chan *item, 2*r.a.o.Concurrency)
		var selected atomic.Int64
		send := func(it *item) {
			select {
			case ch <- it:
				selected.Add(1)
			case <-r.ctx.Done():
			}
		}
		var wg sync.WaitGroup
		wg.Go(func() { r.checkAll(ch) })
		r.readResources(send, nil, true)
		r.addUnlisted(send, nil)
		r.total.Store(selected.Load())
		r.setPhase(PhaseChecks)
		close(ch)
		wg.Wait()
		r.rep.Selected = int(selected.Load())
	}
	r.noteInterrupt()
	return nil
}

// noteInterrupt records that the caller's context ended the run, when it did.
func (r *run) noteInterrupt() {
	if r.ctx.Err() != nil {
		r.stopMu.Lock()
		if r.stopped == "" {
			r.stopped = StopInterrupted
		}
		r.stopMu.Unlock()
	}
}

// checkItems checks items drawn beforehand (a sample, or the entries given):
// they are the whole selection.
func (r *run) checkItems(items []*item) {
	r.total.Store(int64(len(items)))
	r.setPhase(PhaseChecks)
	ch := make(chan *item)
	go func() {
		defer close(ch)
		for _, it := range items {
			select {
			case ch <- it:
			case <-r.ctx.Done():
				return
			}
		}
	}()
	r.checkAll(ch)
	r.rep.Selected = len(items)
}

// checkAll checks the items of ch with Options.Concurrency workers.
func (r *run) checkAll(ch <-chan *item) {
	var wg sync.WaitGroup
	for range r.a.o.Concurrency {
		wg.Go(func() {
			for it := range ch {
				if r.ctx.Err() != nil {
					continue // drain: the sender stops on its own
				}
				if r.budget != nil && r.budget.Left() <= 0 {
					r.halt(StopBytes)
					continue
				}
				r.checkOne(it)
			}
		})
	}
	wg.Wait()
}

// checkOne judges one resource and its mirrors, and keeps the result
// unless the run's end cut it short.
func (r *run) checkOne(it *item) {
	if it.locProblem != "" {
		r.repMu.Lock()
		r.rep.addUnfetchable(it, r.a.o.Sink)
		if r.a.o.KeepResources {
			r.rep.keepUnfetchable(it)
		}
		r.repMu.Unlock()
		r.checked.Add(1)
		return
	}
	targets := claims.Targets(it.entry)
	if it.gone {
		targets = targets[:1]
		targets[0].Claims = claims.Claims{Gone: true}
	}
	er := r.check.CheckTargets(r.ctx, targets, nil)
	for _, res := range er.Results {
		r.bytes.Add(res.Received.Bytes)
	}
	if dropped(er) {
		if r.budget != nil && r.budget.Left() <= 0 {
			r.halt(StopBytes)
		}
		return
	}
	r.repMu.Lock()
	r.rep.add(it, er, r.a.o.OmitOKMirrors, r.a.o.Sink)
	if r.a.o.KeepResources {
		r.rep.keep(it, er)
	}
	r.repMu.Unlock()
	r.checked.Add(1)
	if er.Verdict() == claims.Mismatch {
		r.failed.Add(1)
	}
	r.progress(false)
}

// finish completes the report.
func (r *run) finish(start time.Time) *Report {
	rep := r.rep
	r.listsMu.Lock()
	rep.Lists = append(rep.Lists, r.lists...)
	r.listsMu.Unlock()
	rep.Listed = r.listed.Load()
	rep.Excluded = r.skipped.Load()
	rep.Bytes = r.bytes.Load()
	r.stopMu.Lock()
	rep.Stopped = r.stopped
	r.stopMu.Unlock()
	if rep.Stopped == "" && rep.Checked < rep.Selected {
		rep.Stopped = StopInterrupted
	}
	rep.Elapsed = time.Since(start)
	rep.sortFindings()
	rep.sortResources()
	r.setPhase(PhaseDone)
	return rep
}

func (r *run) setPhase(p Phase) {
	r.phase.Store(uint32(p))
	r.progress(true)
}

// progress calls Options.Progress, at most every ProgressEvery unless force.
func (r *run) progress(force bool) {
	f := r.a.o.Progress
	if f == nil {
		return
	}
	r.progMu.Lock()
	defer r.progMu.Unlock()
	now := time.Now()
	if !force && now.Sub(r.progLast) < r.a.o.ProgressEvery {
		return
	}
	r.progLast = now
	f(Progress{
		Phase: Phase(r.phase.Load()), Lists: int(r.nLists.Load()), Listed: r.listed.Load(),
		Total: int(r.total.Load()), Checked: int(r.checked.Load()), Failed: int(r.failed.Load()),
		Bytes: r.bytes.Load(),
	})
}
