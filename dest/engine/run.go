package engine

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rsx/claims"
	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/display"
	"rsx/dump"
	"rsx/fetch"
	"rsx/model"
)

// outcomeKind is what became of one item.
type outcomeKind uint8

const (
	outWrote     outcomeKind = iota + 1 // a copy was written (or adopted): record it
	outRemoved                          // the copy was removed: forget the row
	outPending                          // a deletion to remember
	outTouched                          // metadata to record again
	outFailed                           // a failure
	outAbandoned                        // stopped before it was done: not a failure
	outQueued                           // verified, handed to the committer (which tells the outcome)
	outGone                             // gone at the Source, as a change after the baseline's at records (live.go): nothing to do
)

type outcome struct {
	kind    outcomeKind
	it      *Item
	res     state.Resource
	adopted bool
	fail    Failure
	vouch   *Vouched // the change after a baseline's at that explains it (live.go)
}

// runner carries one run.
type runner struct {
	s     *Dest
	p     *Plan
	srcID int64
	ctx   context.Context // the work: cancelled to stop
	stop_ context.CancelFunc
	wctx  context.Context // the state's writes: not cancelled, so what was done is recorded
	det   *state.Detector
	w     *state.Writer
	gate  *gate

	results chan outcome
	commits chan pending // verified writes for the committer; nil when the store commits one at a time

	done, nfailed, total atomic.Int64
	bytes                atomic.Int64
	consecutive          atomic.Int64
	inflight             sync.Map // worker → URI

	taken map[int64]bool      // rows taken over and removed (the recorder's)
	takes map[int64]*takeOnce // files of rows taken over, removed once (under mu)
	// unrecorded holds the objects of a bucket's copy that no row records,
	// by path, for a resumed run to adopt from without a HEAD request a
	// Create (listUnrecorded); nil: adopt by HEAD requests.
	unrecorded map[string]store.FileInfo

	mu       sync.Mutex
	held     []outcome // failures a change after a baseline's at may explain (live.go)
	stopped  string
	res      *Result
	fatal    error
	started  time.Time
	samples  []sample
	lastFail *Failure
}

type sample struct {
	t     time.Time
	done  int64
	bytes int64
}

// preloadClaims is how many writes make a run consider loading the
// state's paths before it claims them (state.Detector.Preload); it loads
// them when they are few beside the claims (preloadPays).
const preloadClaims = 2000

// preloadPays tells whether claims paths are many enough beside the state's
// rows (of every Source) to read all its paths into memory first: when the
// rows are at most eight times as many. Reading a path costs far less than
// the queries of a claim, but a run of a few thousand changes against a
// copy of a million must not read the million (issue 27); the count asked
// stops at eight times the claims.
func preloadPays(ctx context.Context, db *state.DB, claims int) (bool, error) {
	n, err := db.RowsUpTo(ctx, 0, 8*claims+1)
	if err != nil {
		return false, err
	}
	return n <= 8*claims, nil
}

// Run carries a plan out: every resource fetched (or read from its dump
// package), verified and written, every deletion applied or remembered,
// and the state recorded in batches. Cancelling ctx stops it cleanly: what
// was written is recorded, nothing half-written is left at a final path,
// and the next plan continues from there. The error is for a run that
// could not start (a closed session, a state that cannot be written); what
// went wrong with resources is in the Result.
//
// Its stages: the run's row in the history (startRun), the state's writer
// and what the run is doing recorded first (newRunner), the work (work),
// and its end recorded (end).
func (s *Dest) Run(ctx context.Context, p *Plan) (*Result, error) {
	if err := s.runnable(p); err != nil {
		return nil, err
	}
	res := &Result{Plan: p}
	started := s.opts.Now()
	if p.Gap != nil {
		res.Elapsed = s.opts.Now().Sub(started)
		return res, nil
	}
	wctx := context.WithoutCancel(ctx)
	hist, err := s.startRun(wctx, p, started)
	if err != nil {
		return nil, err
	}
	workCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r, err := s.newRunner(workCtx, cancel, wctx, p, hist, res, started)
	if err != nil {
		return nil, err
	}
	dispatchErr := r.work()
	r.end(ctx, hist, dispatchErr)
	return res, nil
}

// runnable tells why p cannot be run in this session (nil when it can),
// and marks it run.
func (s *Dest) runnable(p *Plan) error {
	if err := s.check(); err != nil {
		return err
	}
	if p == nil || p.sess != s {
		return errors.New("run a plan: the plan is not this session's")
	}
	if s.readOnly {
		return fmt.Errorf("run a plan: %w", store.ErrReadOnly)
	}
	if !p.ran.CompareAndSwap(false, true) {
		return errors.New("run a plan: the plan was run already: plan again")
	}
	return nil
}

// startRun writes the run's row in the history at once (a run killed at
// any moment leaves it, without an end), the Source's row first when the
// plan made none.
func (s *Dest) startRun(wctx context.Context, p *Plan, started time.Time) (*state.Run, error) {
	srcID := p.srcID
	if srcID == 0 {
		src, err := s.db.EnsureSource(wctx, p.Source)
		if err != nil {
			return nil, err
		}
		srcID = src.ID
	}
	if err := s.db.NameSource(wctx, srcID, p.names...); err != nil {
		return nil, err
	}
	hist := &state.Run{SourceID: srcID, Started: started, Planned: p.Summary.Work(), Version: s.opts.Version, Host: s.opts.Host}
	hist.Mode, hist.Why = historyMode(p)
	if err := s.db.StartRun(wctx, hist); err != nil {
		return nil, err
	}
	return hist, nil
}

// newRunner readies the run of p: the state's claims of paths and its
// writer, with what the run is doing recorded first (the selection, a
// baseline begun), so that a baseline a kill interrupts is continued by
// the next run.
func (s *Dest) newRunner(workCtx context.Context, cancel context.CancelFunc, wctx context.Context, p *Plan, hist *state.Run, res *Result, started time.Time) (*runner, error) {
	srcID := hist.SourceID
	det := s.db.NewDetector(s.st.CaseInsensitive())
	preload := false
	if claims := p.Summary.Create + p.Summary.Update; claims > preloadClaims {
		var err error
		if preload, err = preloadPays(wctx, s.db, claims); err != nil {
			return nil, err
		}
	}
	if preload {
		// Many paths to claim beside the state's: its paths in memory
		// spare a query or five per claim.
		if err := det.Preload(wctx); err != nil {
			return nil, err
		}
	}
	w := s.db.NewWriter(s.writerOptions(det))
	// The run's row is kept current with every batch (a kill leaves what
	// the run wrote in it), and its files are recorded with the batches.
	w.TrackRun(hist.ID)
	if err := recordRefused(wctx, w, p, started); err != nil {
		w.Abort()
		return nil, err
	}
	// What the run is doing is recorded first: a baseline that a kill
	// interrupts is continued by the next run.
	if p.selSave {
		if err := w.SetSelection(wctx, srcID, p.Selection); err != nil {
			w.Abort()
			return nil, err
		}
	}
	if p.pathsChecked {
		if err := w.SetPathsChecked(wctx, srcID); err != nil {
			w.Abort()
			return nil, err
		}
	}
	if p.Mode == ModeBaseline && p.opts.Only == nil {
		// (A run limited to some resources is no baseline to continue.)
		b := p.baseline
		b.Done = time.Time{}
		if err := w.SetBaseline(wctx, srcID, b); err != nil {
			w.Abort()
			return nil, err
		}
	}
	if err := recordHeld(wctx, w, p, srcID); err != nil {
		w.Abort()
		return nil, err
	}
	if err := w.Flush(wctx); err != nil {
		w.Abort()
		return nil, err
	}
	r := &runner{s: s, p: p, srcID: srcID, ctx: workCtx, stop_: cancel, wctx: wctx, det: det, w: w,
		gate: newGate(s.opts.Concurrency), results: make(chan outcome, 4*s.opts.Concurrency), res: res, started: started}
	r.total.Store(int64(p.Summary.Work()))
	if p.adopt && s.isBucket() && p.Summary.Create > 0 {
		var err error
		if r.unrecorded, err = listUnrecorded(workCtx, s.db, s.st); err != nil {
			w.Abort()
			return nil, err
		}
	}
	return r, nil
}

// work carries the plan's items out: the workers fetch, verify and write,
// the committer commits their writes in batches (when the store can), and
// the recorder records every outcome; it returns when all is recorded,
// with the error that stopped the reading of the plan's items.
func (r *runner) work() error {
	s := r.s
	var recorded sync.WaitGroup
	recorded.Add(1)
	go func() { defer recorded.Done(); r.record() }()
	stopTicker := r.tick()

	var committed sync.WaitGroup
	if bc, ok := s.st.(store.BatchCommitter); ok {
		r.commits = make(chan pending, commitBatch)
		committed.Add(1)
		go func() { defer committed.Done(); r.commitLoop(bc) }()
	}
	jobs := make(chan *Item, s.opts.Concurrency)
	var workers sync.WaitGroup
	for i := range s.opts.Concurrency {
		workers.Add(1)
		go func() {
			defer workers.Done()
			buf := make([]byte, 64<<10)
			for it := range jobs {
				r.inflight.Store(i, it.Entry.URI)
				out := r.do(it, buf)
				r.inflight.Delete(i)
				if out.kind != outQueued && !r.holdBack(out) {
					r.results <- out
				}
			}
		}()
	}
	dispatchErr := r.dispatch(jobs)
	close(jobs)
	workers.Wait()
	if r.commits != nil {
		close(r.commits)
		committed.Wait()
		r.commits = nil // what explain writes is committed by itself
	}
	r.explain()
	close(r.results)
	recorded.Wait()
	stopTicker()
	return dispatchErr
}

// end records the run's end: why it stopped, the state finished (or
// abandoned after a fatal error), the documents the plan read, and the
// run's row in the history completed.
func (r *runner) end(ctx context.Context, hist *state.Run, dispatchErr error) {
	s, p, res, wctx := r.s, r.p, r.res, r.wctx
	if dispatchErr != nil && !errors.Is(dispatchErr, errStop) && r.stopReason() == "" {
		r.setStopped("the plan could not be read: " + dispatchErr.Error())
	}
	if ctx.Err() != nil && r.stopReason() == "" {
		r.setStopped(stopReason(ctx))
	}
	res.Stopped = r.stopReason()
	res.Bytes = r.bytes.Load()
	res.BackOffs = r.gate.backoffCount()
	var finishErr error
	if r.fatal == nil {
		finishErr = r.finish()
	} else {
		r.w.Abort()
		finishErr = r.fatal
	}
	if finishErr != nil {
		if res.Stopped == "" {
			res.Stopped = "the state could not be written"
		}
		r.addFailure(Failure{URL: p.Source, Kind: KindState, Err: finishErr})
	}
	if finishErr == nil {
		r.trashStrays(hist.ID)
	}
	// The documents the plan read, kept with the run (provenance.go).
	if err := s.storeDocuments(wctx, hist.ID, r.srcID, p.Reconcile); err != nil && finishErr == nil {
		r.addFailure(Failure{URL: p.Source, Kind: KindState, Err: err})
	}
	res.Elapsed = s.opts.Now().Sub(r.started)
	hist.Ended = s.opts.Now()
	hist.Created, hist.Updated, hist.Deleted, hist.Failed, hist.Bytes = res.Created, res.Updated, res.Deleted, res.FailedCount, res.Bytes
	hist.Trashed = res.Trashed
	hist.Finished, hist.SyncedUntil, hist.Stopped, hist.ExitStatus = res.Finished, res.SyncedUntil, res.Stopped, res.ExitStatus()
	if err := s.db.EndRun(wctx, hist); err != nil && finishErr == nil {
		r.addFailure(Failure{URL: p.Source, Kind: KindState, Err: err})
	} else if err == nil {
		s.publishRunEnd(wctx, r, p.Source)
	}
	s.opts.report(r.progress(PhaseFinished, nil))
}

// recordRefused records in the run's files the resources the plan refused
// (those it lists: at most maxListed).
func recordRefused(ctx context.Context, w *state.Writer, p *Plan, at time.Time) error {
	for _, f := range p.Refused {
		if err := w.PutRunFile(ctx, state.RunFile{Kind: state.FileRefused, URI: f.URL, Path: f.Path, Length: -1, At: at, Note: f.Error()}); err != nil {
			return err
		}
	}
	return nil
}

// historyMode is the mode and the reason the run history records for a
// run of p: the real ones. A baseline that continues an unfinished one is
// "resumed" (its plan reconciles the files already there, but nobody asked
// for --mode baseline); a reconcile says why it reconciles, --mode
// baseline only when it was given.
func historyMode(p *Plan) (mode, why string) {
	mode = string(p.Mode)
	switch {
	case p.Notified > 0:
		why = display.Plural(p.Notified, "change notification", "change notifications") + " of " + p.Document + " applied, without reading the Change Lists"
	case p.Resumed && p.Mode == ModeBaseline && p.ReconcileWhy == "":
		why = p.why
	case p.Reconcile:
		mode, why = "reconcile", p.ReconcileWhy
		switch {
		case why != "":
		case p.opts.Mode == ModeBaseline:
			why = "--mode baseline on a copy that holds the Source: its files are checked against the Resource List"
		default:
			why = p.why
		}
	}
	return mode, why
}

// finish records the end of the run: the baseline done or the Change Lists
// processed when everything succeeded; the run's time in every case.
func (r *runner) finish() error {
	p, res, w, ctx := r.p, r.res, r.w, r.wctx
	res.SyncedUntil = p.Point
	if res.FailedCount == 0 && res.Stopped == "" && p.complete && len(p.Problems) == 0 {
		switch p.Mode {
		case ModeBaseline:
			b := p.baseline
			b.Done = r.s.opts.Now()
			if err := w.SetBaseline(ctx, r.srcID, b); err != nil {
				return err
			}
			if b.At.After(res.SyncedUntil) {
				res.SyncedUntil = b.At
			}
		case ModeIncremental:
			if err := p.eachRecord(func(rec state.ChangeList) error { return w.PutChangeList(ctx, r.srcID, rec) }); err != nil {
				return err
			}
			if p.newPoint.After(p.Point) {
				if err := w.SetSyncedUntil(ctx, r.srcID, p.newPoint); err != nil {
					return err
				}
				res.SyncedUntil = p.newPoint
			}
		}
		res.Finished = true
	}
	if err := w.DropCopiedHeld(ctx, r.srcID); err != nil {
		return err
	}
	if err := w.SetLastRun(ctx, r.srcID, r.s.opts.Now()); err != nil {
		return err
	}
	return w.Close(ctx)
}

func (r *runner) stopReason() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

// setStopped stops the run for a reason (the first one given stays).
func (r *runner) setStopped(why string) {
	r.mu.Lock()
	if r.stopped == "" {
		r.stopped = why
	}
	r.mu.Unlock()
	r.stop_()
}

// dispatch hands the items to the workers, and the deletions to remember
// and metadata to record straight to the recorder.
func (r *runner) dispatch(jobs chan<- *Item) error {
	n := 0
	return r.p.items.each(func(it *Item) error {
		if r.ctx.Err() != nil {
			return errStop
		}
		n++
		if n&255 == 0 {
			if err := r.s.lock.Lost(); err != nil {
				r.setStopped("the destination's lock was lost: " + err.Error())
				return errStop
			}
		}
		it2 := *it
		if it.Action == plan.Delete && r.p.DeletesHeld > 0 {
			it2.Action = plan.PendingDelete // --max-delete: remembered, not made
		}
		switch it2.Action {
		case plan.PendingDelete:
			r.results <- outcome{kind: outPending, it: &it2}
			return nil
		case plan.Unchanged:
			r.results <- outcome{kind: outTouched, it: &it2}
			return nil
		}
		select {
		case jobs <- &it2:
		case <-r.ctx.Done():
			return errStop
		}
		return nil
	})
}

var errStop = errors.New("stopped")

// do carries out one item in a worker.
func (r *runner) do(it *Item, buf []byte) outcome {
	if r.ctx.Err() != nil {
		return outcome{kind: outAbandoned, it: it}
	}
	switch it.Action {
	case plan.Create, plan.Update:
		return r.write(it, buf)
	case plan.Delete:
		return r.remove(it)
	}
	return outcome{kind: outFailed, it: it, fail: Failure{URL: it.Entry.URI, Kind: KindState, Err: fmt.Errorf("unknown action %v", it.Action)}}
}

// remove deletes the copy of a resource the Source deleted.
func (r *runner) remove(it *Item) outcome {
	row, err := r.s.db.ResourceByID(r.ctx, it.ID)
	if errors.Is(err, state.ErrNoResource) {
		return outcome{kind: outRemoved, it: it}
	}
	if err != nil {
		return r.failed(it, "", KindState, err)
	}
	if r.p.protect.keeps(row.Path) {
		// The protect list keeps the file: the row goes, the file stays.
		return outcome{kind: outRemoved, it: it, res: state.Resource{Path: row.Path}}
	}
	if err := r.s.st.Remove(r.ctx, row.Path); err != nil {
		return r.failed(it, row.Path, KindWrite, err)
	}
	return outcome{kind: outRemoved, it: it, res: state.Resource{Path: row.Path, Length: row.Length, Digests: row.Digests}}
}

// failed turns an error into the item's outcome: abandoned when the run is
// stopping, a failure otherwise (a full destination stops the run).
func (r *runner) failed(it *Item, path string, kind FailureKind, err error) outcome {
	if r.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || kind != KindVerify) {
		return outcome{kind: outAbandoned, it: it}
	}
	if isDiskFull(err) {
		r.setStopped("the destination is full: " + err.Error())
	}
	return outcome{kind: outFailed, it: it, fail: Failure{URL: it.Entry.URI, Path: path, Kind: kind, Err: err, Status: statusOf(err), item: it}}
}

// claimsOf is what an item's entry declares about the bytes.
func claimsOf(e *plan.Entry) claims.Claims {
	c := claims.Claims{Hash: e.Digests.HashList()}
	if e.Length >= 0 {
		c.Length, c.LengthRaw, c.LengthOK = e.Length, strconv.FormatInt(e.Length, 10), true
	}
	return c
}

// hasSupportedDigest reports whether rsx can compute one of the digests.
func hasSupportedDigest(d state.Digests) bool {
	ok := false
	d.Each(func(alg, _ string) {
		if model.SupportedHash(alg) {
			ok = true
		}
	})
	return ok
}

// write fetches a resource (or reads its bitstream from a dump package),
// verifies it and commits it at its path.
func (r *runner) write(it *Item, buf []byte) outcome {
	ctx, e := r.ctx, &it.Entry
	path := it.Path
	var oldPath string
	if it.Action == plan.Update && it.ID > 0 {
		row, err := r.s.db.ResourceByID(ctx, it.ID)
		if err != nil && !errors.Is(err, state.ErrNoResource) {
			return r.failed(it, path, KindState, err)
		}
		switch {
		case err == nil && path == "":
			path = row.Path
		case err == nil && row.Path != path:
			oldPath = row.Path
		}
	}
	if path == "" {
		return r.failed(it, path, KindState, fmt.Errorf("%s: the copy's path is no longer in the state", e.URI))
	}
	if err := r.det.ClaimReplacing(ctx, r.srcID, e.URI, path, it.Takes.URI); err != nil {
		kind := KindState
		if collision(err) {
			kind = KindCollision
		}
		return r.failed(it, path, kind, err)
	}
	committed := false
	defer func() {
		if !committed {
			r.det.Release(path)
		}
	}()
	cl := claimsOf(e)
	if r.p.adopt && it.Action == plan.Create && e.Ref == "" {
		if res, ok := r.adopt(it, path, cl, buf); ok {
			committed = true
			return outcome{kind: outWrote, it: it, res: res, adopted: true}
		}
	}
	var pk *pkgFile
	if k, _, ok := splitRef(e.Ref); ok {
		if k < len(r.p.pkgs) {
			pk = r.p.pkgs[k]
		}
		if pk == nil {
			return r.failed(it, path, KindBitstream, fmt.Errorf("the dump package of %s is not available", e.URI))
		}
		defer pk.done()
	}
	out, err := r.s.st.Create(ctx, path, store.Meta{ContentType: e.Type})
	if err != nil {
		return r.failed(it, path, KindWrite, err)
	}
	v := claims.NewVerifier(cl, claims.Limits{})
	var sum hash.Hash
	var dst io.Writer = v.Writer(out)
	if !hasSupportedDigest(e.Digests) {
		// Nothing to verify against but the length: an md5 of the bytes
		// is recorded, so that an audit can tell a damaged copy.
		sum = md5.New()
		dst = io.MultiWriter(dst, sum)
	}
	var ex *fetch.Exchange
	if pk != nil {
		err = r.readBitstream(pk, e, dst, buf)
	} else {
		ex, err = r.download(e, dst, v.Limit())
	}
	if err != nil && !v.Truncated() {
		out.Abort()
		kind := KindFetch
		var be *dump.BitstreamError
		switch {
		case errors.As(err, &be):
			kind = KindBitstream
		case isStoreErr(err):
			kind = KindWrite
		}
		return r.failed(it, path, kind, err)
	}
	if verr := v.Verify(); verr != nil {
		kept, rerr := out.Reject(r.wctx)
		o := r.failed(it, path, KindVerify, fmt.Errorf("%s: %w", e.URI, verr))
		if o.kind == outFailed {
			o.fail.Rejected = kept
			if rerr != nil {
				o.fail.Err = fmt.Errorf("%w (the rejected bytes could not be kept: %v)", o.fail.Err, rerr)
			}
		}
		return o
	}
	now := r.s.opts.Now()
	res := state.Resource{SourceID: r.srcID, URI: e.URI, Path: path, Length: v.Bytes(), Digests: e.Digests,
		Lastmod: e.Lastmod, ChangeDatetime: e.Datetime, FetchedAt: now, VerifiedAt: now}
	if it.Action == plan.Update && oldPath == "" {
		res.ID = it.ID // an update in place: its row is updated where it is (state.Writer.PutResource)
	}
	if sum != nil {
		res.Digests = addDigest(res.Digests, "md5", hex.EncodeToString(sum.Sum(nil)))
	}
	provenance(&res, e)
	if ex != nil && ex.ResponseHeader != nil {
		res.ETag, res.LastModified = ex.ResponseHeader.Get("ETag"), ex.ResponseHeader.Get("Last-Modified")
	}
	if t := it.Takes; t.Path != "" && t.Path != path {
		// The path is taken over from a file where a folder of it must be
		// (or one that differs by case): it goes first, once for all the
		// writes that take it over.
		if err := r.removeTaken(t); err != nil {
			out.Abort()
			return r.failed(it, path, KindWrite, fmt.Errorf("take the path over from %s: %w", t.URI, err))
		}
	}
	if r.commits != nil {
		// The committer makes it durable with others, renames it into
		// place, and tells the outcome (and releases the claim on failure).
		committed = true
		r.commits <- pending{it: it, w: out, path: path, oldPath: oldPath, res: res}
		return outcome{kind: outQueued, it: it}
	}
	if err := out.Commit(ctx); err != nil {
		return r.failed(it, path, KindWrite, err)
	}
	committed = true
	res.FileMTime = fileMTime(out)
	if oldPath != "" {
		_ = r.s.st.Remove(r.wctx, oldPath)
	}
	return outcome{kind: outWrote, it: it, res: res}
}

// removeTaken removes the file of a resource whose path writes take over,
// once: the first write does it, the others wait for it (one may already
// have made the folder there).
func (r *runner) removeTaken(t Taken) error {
	r.mu.Lock()
	if r.takes == nil {
		r.takes = map[int64]*takeOnce{}
	}
	o := r.takes[t.ID]
	if o == nil {
		o = &takeOnce{}
		r.takes[t.ID] = o
	}
	r.mu.Unlock()
	o.once.Do(func() { o.err = r.s.st.Remove(r.ctx, t.Path) })
	return o.err
}

type takeOnce struct {
	once sync.Once
	err  error
}

// commitBatch is the most verified writes committed together.
const commitBatch = 128

// commitIdle is how long the committer waits for another write before it
// commits those it holds.
const commitIdle = 2 * time.Millisecond

// pending is a verified write waiting for its commit.
type pending struct {
	it            *Item
	w             store.Writer
	path, oldPath string
	res           state.Resource
}

// commitLoop commits the verified writes in batches (one flush of the file
// system for each batch, every write durable before it is renamed into
// place), and hands their outcomes to the recorder. Writes already verified
// are committed even when the run is stopping: they are whole.
func (r *runner) commitLoop(bc store.BatchCommitter) {
	batch := make([]pending, 0, commitBatch)
	ws := make([]store.Writer, 0, commitBatch)
	flush := func() {
		ws = ws[:0]
		for i := range batch {
			ws = append(ws, batch[i].w)
		}
		errs := bc.CommitBatch(r.wctx, ws)
		for i := range batch {
			p := &batch[i]
			if errs[i] != nil {
				r.det.Release(p.path)
				r.results <- r.failed(p.it, p.path, KindWrite, errs[i])
				continue
			}
			if p.oldPath != "" {
				_ = r.s.st.Remove(r.wctx, p.oldPath)
			}
			p.res.FileMTime = fileMTime(p.w)
			r.results <- outcome{kind: outWrote, it: p.it, res: p.res}
		}
		clear(batch)
		batch = batch[:0]
	}
	idle := time.NewTimer(commitIdle)
	defer idle.Stop()
	for {
		if len(batch) == 0 {
			p, ok := <-r.commits
			if !ok {
				return
			}
			batch = append(batch, p)
			idle.Reset(commitIdle)
			continue
		}
		select {
		case p, ok := <-r.commits:
			if !ok {
				flush()
				return
			}
			batch = append(batch, p)
			if len(batch) == commitBatch {
				flush()
			} else {
				idle.Reset(commitIdle)
			}
		case <-idle.C:
			flush()
		}
	}
}

// isStoreErr tells an error of the destination's writes from one of the
// network: the Store's Writer returns a *store.WriteError, which the fetch
// layer wraps.
func isStoreErr(err error) bool {
	var (
		pe *fs.PathError
		we *store.WriteError
	)
	return isDiskFull(err) || errors.As(err, &pe) || errors.As(err, &we)
}

// download fetches e into dst through the adaptive gate, within the run's
// bounds of a resource (limits.go); limit is what the verifier accepts.
func (r *runner) download(e *plan.Entry, dst io.Writer, limit int64) (*fetch.Exchange, error) {
	uri := e.URI
	if err := r.gate.acquire(r.ctx); err != nil {
		return nil, err
	}
	ex, err := r.s.client.DownloadWith(r.withRedirectRule(r.ctx, uri), uri, countingWriter{dst, &r.bytes}, r.downloadOptions(limit, e.Length))
	err = r.explainLimit(uri, e.Length, err)
	status := statusOf(err)
	backoff := status == 429 || status == 503 || (ex != nil && ex.Tries > 1)
	r.gate.release(backoff)
	switch {
	case err == nil:
		r.consecutive.Store(0)
	case status == 0 && r.ctx.Err() == nil && !isStoreErr(err) && !answered(err):
		if n := r.consecutive.Add(1); n >= int64(r.s.opts.MaxConsecutiveErrors) {
			r.setStopped(fmt.Sprintf("the Source stopped answering: %s resources in a row could not be fetched (the last: %v)", display.Count(n), err))
		}
	default:
		r.consecutive.Store(0)
	}
	return ex, err
}

// readBitstream copies an item's bitstream from its dump package to dst.
func (r *runner) readBitstream(pk *pkgFile, e *plan.Entry, dst io.Writer, buf []byte) error {
	_, mpath, _ := splitRef(e.Ref)
	pkg, err := pk.open()
	if err != nil {
		return &dump.BitstreamError{Path: mpath, Reason: "the package " + pk.url + " cannot be opened again: " + err.Error()}
	}
	rc, _, err := pkg.OpenBitstream(mpath)
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.CopyBuffer(countingWriter{dst, &r.bytes}, rc, buf)
	if err != nil && !isStoreErr(err) {
		return &dump.BitstreamError{Path: mpath, Reason: err.Error()}
	}
	return err
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// adopt keeps a file already at a Create's path when its bytes verify
// against a digest the entry declares: the rest of an interrupted run
// whose state batch was lost, or a copy made before the state was.
func (r *runner) adopt(it *Item, path string, cl claims.Claims, buf []byte) (state.Resource, bool) {
	e := &it.Entry
	if !hasSupportedDigest(e.Digests) {
		return state.Resource{}, false
	}
	var fi store.FileInfo
	var err error
	if r.unrecorded != nil && it.Takes.URI == "" {
		var ok bool
		if fi, ok = r.unrecorded[path]; !ok {
			return state.Resource{}, false
		}
	} else {
		fi, err = r.s.st.Stat(r.ctx, path)
	}
	if err != nil || (e.Length >= 0 && fi.Size != e.Length) {
		return state.Resource{}, false
	}
	f, err := r.s.st.Open(r.ctx, path)
	if err != nil {
		return state.Resource{}, false
	}
	defer f.Close()
	v := claims.NewVerifier(cl, claims.Limits{})
	if _, err := io.CopyBuffer(v, f, buf); err != nil || v.Verify() != nil {
		return state.Resource{}, false
	}
	matched := false
	for _, c := range v.Checks() {
		if c.Verdict == claims.OK && c.Field != "length" {
			matched = true
		}
	}
	if !matched {
		return state.Resource{}, false
	}
	now := r.s.opts.Now()
	res := state.Resource{SourceID: r.srcID, URI: e.URI, Path: path, Length: v.Bytes(), Digests: e.Digests,
		Lastmod: e.Lastmod, ChangeDatetime: e.Datetime, FetchedAt: fi.ModTime, VerifiedAt: now}
	provenance(&res, e)
	if r.s.st.Features().ModTimes {
		res.FileMTime = fi.ModTime
	}
	return res, true
}

// fileMTime is the modification time a committed write gave its file, zero
// when the store keeps none (a bucket).
func fileMTime(w store.Writer) time.Time {
	if m, ok := w.(store.ModTimer); ok {
		return m.ModTime()
	}
	return time.Time{}
}

// addDigest adds alg:hex to d, keeping the algorithms sorted.
func addDigest(d state.Digests, alg, hexDigest string) state.Digests {
	if _, ok := d.Get(alg); ok {
		return d
	}
	var toks []string
	d.Each(func(a, h string) { toks = append(toks, a+":"+h) })
	toks = append(toks, alg+":"+hexDigest)
	sort.Strings(toks)
	return state.Digests(strings.Join(toks, " "))
}

// record is the run's one writer of the state: it records every outcome.
func (r *runner) record() {
	p, res, w, ctx := r.p, r.res, r.w, r.wctx
	for out := range r.results {
		if out.kind == outAbandoned {
			continue
		}
		if r.fatal != nil {
			if out.kind == outWrote {
				r.det.Release(out.res.Path)
			}
			continue
		}
		var err error
		switch out.kind {
		case outWrote:
			if t := out.it.Takes; t.URI != "" && !r.taken[t.ID] {
				// The row whose path it took over goes in the same batch.
				if r.taken == nil {
					r.taken = map[int64]bool{}
				}
				r.taken[t.ID] = true
				if _, err = w.RemoveResource(ctx, r.srcID, t.URI); err == nil && t.Deleted {
					res.Deleted++
					err = w.PutRunFile(ctx, state.RunFile{Kind: state.FileDeleted, URI: t.URI, Path: t.Path, Length: -1, At: r.s.opts.Now(),
						Via: t.Via, Note: "the Source deleted it; its path is taken over by " + out.it.Entry.URI})
				}
			}
			if err != nil {
				break
			}
			if err = w.PutResource(ctx, &out.res); err == nil {
				r.done.Add(1)
				err = w.PutRunFile(ctx, r.wroteFile(out))
				switch {
				case out.adopted:
					res.Adopted++
					res.Created++
				case out.it.Action == plan.Create:
					res.Created++
				default:
					res.Updated++
				}
			}
		case outRemoved:
			if _, err = w.RemoveResource(ctx, r.srcID, out.it.Entry.URI); err == nil {
				r.done.Add(1)
				res.Deleted++
				length := out.res.Length
				if out.res.Path == "" {
					length = -1 // no copy was recorded: nothing to remove
				}
				err = w.PutRunFile(ctx, state.RunFile{Kind: state.FileDeleted, URI: out.it.Entry.URI, Path: out.res.Path, Length: length,
					Digests: out.res.Digests, At: r.s.opts.Now(), Via: deletionVia(&out.it.Entry)})
			}
		case outPending:
			at := out.it.Entry.Datetime
			if at.IsZero() {
				// A baseline that no longer lists it: the copy learns it at
				// the list's at, unless it knew already (then the time it
				// learnt it first stays).
				if row, rerr := r.s.db.ResourceByID(ctx, out.it.ID); rerr == nil && row.Pending() {
					res.Pending++
					continue
				}
				at = firstTime(p.At, r.s.opts.Now())
			}
			if _, err = w.MarkDeleted(ctx, r.srcID, out.it.Entry.URI, at); err == nil {
				res.Pending++
			}
		case outTouched:
			err = r.touch(out.it)
		case outGone:
			r.done.Add(1)
		case outFailed:
			r.done.Add(1)
			r.nfailed.Add(1)
			f := out.fail
			r.addFailure(f)
			r.s.opts.report(r.progress(PhaseSyncing, &f))
			err = w.PutRunFile(ctx, state.RunFile{Kind: state.FileFailed, URI: f.URL, Path: f.Path, Length: -1, At: r.s.opts.Now(), Note: f.Error()})
		}
		if err != nil {
			r.fatal = err
			if out.kind == outWrote {
				r.det.Release(out.res.Path)
			}
			r.setStopped("the state could not be written: " + err.Error())
			continue
		}
		if out.vouch != nil && len(res.Vouched) < maxListed {
			res.Vouched = append(res.Vouched, *out.vouch)
		}
		if p.observe != nil && out.kind != outTouched && out.kind != outGone {
			o := observed{item: *out.it, kind: out.kind, path: out.res.Path, adopted: out.adopted}
			if out.kind == outFailed {
				f := out.fail
				o.fail, o.path = &f, f.Path
			}
			p.observe(o)
		}
	}
}

// wroteFile is the run's file record of a copy written (or adopted).
func (r *runner) wroteFile(out outcome) state.RunFile {
	f := state.RunFile{Kind: state.FileCreated, URI: out.res.URI, Path: out.res.Path, Length: out.res.Length, Digests: out.res.Digests,
		At: out.res.FetchedAt, Type: out.res.Type, Via: fileVia(&out.res)}
	switch {
	case out.adopted:
		f.Note = state.NoteAdopted
	case out.it.Action != plan.Create:
		f.Kind, f.Note = state.FileUpdated, out.it.Reason
	}
	return f
}

// observed is what became of one item of a run, for a plan's observer:
// written (outWrote), removed (outRemoved), remembered as deleted
// (outPending) or failed (outFailed), once it is recorded in the state.
type observed struct {
	item    Item
	kind    outcomeKind
	path    string
	adopted bool
	fail    *Failure
}

// touch records an unchanged resource's new metadata.
func (r *runner) touch(it *Item) error {
	row, err := r.s.db.ResourceByID(r.wctx, it.ID)
	if errors.Is(err, state.ErrNoResource) {
		return nil
	}
	if err != nil {
		return err
	}
	if !it.Entry.Lastmod.IsZero() {
		row.Lastmod = it.Entry.Lastmod
	}
	if !it.Entry.Datetime.IsZero() {
		row.ChangeDatetime = it.Entry.Datetime
	}
	row.DeletedAt = time.Time{}
	if err := r.w.PutResource(r.wctx, &row); err != nil {
		return err
	}
	r.res.Touched++
	return nil
}

// addFailure keeps a failure (the first maxListed) and its item for Retry.
func (r *runner) addFailure(f Failure) {
	res := r.res
	res.FailedCount++
	if res.FailedByKind == nil {
		res.FailedByKind = map[FailureKind]int{}
	}
	res.FailedByKind[f.Kind]++
	if len(res.Failed) < maxListed {
		res.Failed = append(res.Failed, f)
		if f.item != nil && f.Kind != KindCollision && f.Kind != KindRefused {
			res.retry = append(res.retry, *f.item)
		}
	}
	r.mu.Lock()
	r.lastFail = &f
	r.mu.Unlock()
}

// tick reports progress until the returned func is called.
func (r *runner) tick() func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(r.s.opts.ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				r.s.opts.report(r.progress(PhaseSyncing, nil))
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// progress is a snapshot of the run.
func (r *runner) progress(phase Phase, f *Failure) Progress {
	now := r.s.opts.Now()
	done, bytes := r.done.Load(), r.bytes.Load()
	pr := Progress{Phase: phase, Total: int(r.total.Load()), Done: int(done), Failed: int(r.nfailed.Load()),
		Bytes: bytes, TotalBytes: r.p.Summary.Bytes, Elapsed: now.Sub(r.started), Failure: f,
		Documents: r.p.Summary.Documents, Entries: r.p.Summary.Entries}
	r.mu.Lock()
	r.samples = append(r.samples, sample{now, done, bytes})
	for len(r.samples) > 2 && now.Sub(r.samples[0].t) > 5*time.Second {
		r.samples = r.samples[1:]
	}
	first := r.samples[0]
	r.mu.Unlock()
	if dt := now.Sub(first.t).Seconds(); dt > 0.2 {
		pr.Rate = float64(done-first.done) / dt
		pr.ByteRate = float64(bytes-first.bytes) / dt
	}
	if pr.Rate > 0 && pr.Total > pr.Done {
		pr.Remaining = time.Duration(float64(pr.Total-pr.Done) / pr.Rate * float64(time.Second))
	}
	r.inflight.Range(func(_, v any) bool {
		if len(pr.InFlight) < 32 {
			pr.InFlight = append(pr.InFlight, v.(string))
		}
		return true
	})
	sort.Strings(pr.InFlight)
	return pr
}

// RecordPlanFailure records in the history a run of target's Source that
// could not plan (the Source unreachable, a document that cannot be read),
// when the destination already holds that Source (a run that could not
// start on a new destination leaves nothing in it): an operator's log and
// the fleet page then show that the last run failed, and why. It reports
// whether it recorded one.
func (s *Dest) RecordPlanFailure(ctx context.Context, target string, started time.Time, cause error) bool {
	if s.readOnly || cause == nil || s.check() != nil {
		return false
	}
	src, err := s.db.SourceNamed(ctx, nameOf(target))
	if err != nil {
		return false
	}
	r := &state.Run{SourceID: src.ID, Started: started, Mode: "plan", Version: s.opts.Version, Host: s.opts.Host}
	if s.db.StartRun(ctx, r) != nil {
		return false
	}
	r.Ended, r.ExitStatus, r.Stopped, r.SyncedUntil = s.opts.Now(), 2, "the run could not plan: "+cause.Error(), src.Point()
	if s.db.EndRun(ctx, r) != nil {
		return false
	}
	if s.isBucket() {
		s.publish(ctx) // at worst the next run's first batch carries it
	}
	return true
}

// publishRunEnd uploads a bucket's state once the run's end (and its
// documents) are recorded: they are written after the run's last batch, and
// without it the bucket's state holds the run with no end (rsx log and rsx
// bag on another machine, or from a fresh cache, take it for a run killed).
func (s *Dest) publishRunEnd(ctx context.Context, r *runner, source string) {
	if !s.isBucket() {
		return
	}
	if err := s.publish(ctx); err != nil {
		r.addFailure(Failure{URL: source, Kind: KindState, Err: fmt.Errorf("upload the state with the run's end: %w", err)})
	}
}
