package engine

import (
	"errors"
	"syscall"
	"time"

	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/fetch"
	"rsx/model"
)

// FailureKind says what failed.
type FailureKind string

const (
	KindFetch     FailureKind = "fetch"     // the resource could not be fetched (an HTTP status, a connection error)
	KindVerify    FailureKind = "verify"    // its bytes differ from what the Source declares: kept in .rsx/rejected/, the old copy stays
	KindWrite     FailureKind = "write"     // the destination refused the write
	KindCollision FailureKind = "collision" // its path is another resource's
	KindOwned     FailureKind = "owned"     // its path is another Source's resource's: a path of the destination belongs to one Source
	KindRefused   FailureKind = "refused"   // outside the Source's authority, or no path for its URI
	KindBitstream FailureKind = "bitstream" // a dump package lacks its bitstream, or refuses its path
	KindDocument  FailureKind = "document"  // a list or a package could not be read
	KindPackage   FailureKind = "package"   // a dump package differs from its dump entry: refused whole
	KindState     FailureKind = "state"     // the state could not record it
)

// Failure is a resource (or a document) that a plan or a run could not use.
type Failure struct {
	URL  string
	Path string // the copy's path, when there is one
	Kind FailureKind
	Err  error
	// Status is the HTTP status, when a response said why.
	Status int
	// Rejected is where the rejected bytes are kept (KindVerify).
	Rejected string
	item     *Item
}

func (f Failure) Error() string {
	if f.Err == nil {
		return string(f.Kind)
	}
	return f.Err.Error()
}

// Result is what a run did.
type Result struct {
	Plan *Plan
	// Created, Updated and Deleted count the resources written or removed;
	// Adopted of the created were already in the destination, verified and
	// kept (the rest of an interrupted run); Pending counts the deletions
	// remembered; Touched the rows whose metadata was recorded again.
	Created, Updated, Deleted, Adopted, Pending, Touched int
	// Bytes is what was written.
	Bytes int64
	// Trashed counts the stray files moved to the trash, into TrashFolder
	// (DEST/.rsx/trash/NAME, relative to DEST; "" when none was).
	Trashed     int
	TrashFolder string
	// BackOffs counts the downloads that met resistance (retried, or 429
	// or 503 at the end): each halved the downloads at once.
	BackOffs int
	Failed   []Failure
	// FailedCount counts every failure (Failed keeps at most maxListed);
	// FailedByKind counts them by kind (nil when there is none), those
	// past maxListed too.
	FailedCount  int
	FailedByKind map[FailureKind]int
	// Stopped says why the run ended before its plan did ("" when it did
	// not): "interrupted", "the destination is full", ….
	Stopped string
	// Finished says that the run recorded its end: the baseline is marked
	// done, or the Change Lists processed and the copy's point moved.
	Finished    bool
	SyncedUntil time.Time // the copy's point after the run
	Elapsed     time.Duration
	// Vouched are the resources of a baseline whose body did not match the
	// Resource List, or that were gone, taken as a change the Source's
	// Change List records after the list's at says (live.go): no failure.
	Vouched []Vouched
	retry   []Item
}

// Vouched is a resource of a baseline that changed at the Source after its
// Resource List's at, taken as the Change List's entry of the change
// records it: its bytes fetched again and verified against the entry's
// hash and length, or, for a deletion, left out (or its copy deleted).
type Vouched struct {
	URI, Path string
	// The entry: its change, datetime, digests ("md5:HEX …"; none for a
	// deletion), length (-1: none) and the Change List that holds it.
	Change   model.Change
	Datetime time.Time
	Hash     string
	Length   int64
	List     string
	// Was is what did not match: the failure it would have been.
	Was string
}

// OK reports whether the run did its whole plan without a failure.
func (r *Result) OK() bool {
	return r.FailedCount == 0 && r.Stopped == "" && len(r.Plan.Problems) == 0 && r.Plan.Gap == nil && r.Plan.Summary.Unmapped == 0 &&
		r.Plan.DeletesHeld == 0
}

// ExitStatus is the exit status of rsx sync for the run: 2 when it was
// interrupted, 1 when something failed or the plan has problems (a gap, a
// document that could not be read, resources refused), 0 when the run did
// its whole plan.
func (r *Result) ExitStatus() int {
	switch {
	case r.Stopped == "interrupted":
		return 2
	case r.Plan.Gap != nil || len(r.Plan.Problems) > 0 || !r.OK():
		return 1
	}
	return 0
}

// Retry returns a plan of the resources that failed to be fetched or
// written, to be run again; nil when there are none, or when the run was
// stopped (plan again: the next plan continues where it stopped). A run of
// it that succeeds finishes what the first run would have (the baseline,
// the Change Lists).
func (r *Result) Retry() *Plan {
	if r.Stopped != "" || len(r.retry) == 0 || r.FailedCount > len(r.Failed) {
		return nil
	}
	old := r.Plan
	sp, err := newSpool(old.sess.st.TempDir())
	if err != nil {
		return nil
	}
	p := &Plan{Mode: old.Mode, From: old.From, Source: old.Source, CapabilityList: old.CapabilityList, Target: old.Target,
		Document: old.Document, Point: old.Point, At: old.At, Resumed: true, Delete: old.Delete, Limited: old.Limited,
		Problems: old.Problems, Lists: old.Lists, ArchivedLists: old.ArchivedLists, Selection: old.Selection,
		sess: old.sess, opts: old.opts, srcID: old.srcID, items: sp, pkgs: old.pkgs, records: old.records,
		newPoint: old.newPoint, baseline: old.baseline, complete: old.complete, adopt: old.adopt, sel: old.sel, mapper: old.mapper,
		changeList: old.changeList, listed: old.listed}
	for i := range r.retry {
		it := &r.retry[i]
		switch it.Action {
		case plan.Create:
			p.Summary.Create++
		case plan.Update:
			p.Summary.Update++
		case plan.Delete:
			p.Summary.Delete++
		}
		if it.Entry.Length >= 0 && (it.Action == plan.Create || it.Action == plan.Update) {
			p.Summary.Bytes += it.Entry.Length
		}
		if k, _, ok := splitRef(it.Entry.Ref); ok && k < len(p.pkgs) && p.pkgs[k] != nil {
			p.pkgs[k].refs.Add(1)
		}
		if err := sp.add(it); err != nil {
			sp.close()
			return nil
		}
	}
	if sp.finish() != nil {
		sp.close()
		return nil
	}
	old.pkgs = nil // the retry plan owns the packages now
	return p
}

// isDiskFull reports an error of a destination that has no room left.
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC)
}

// statusOf is the HTTP status an error carries, 0 when none.
func statusOf(err error) int {
	var se *fetch.StatusError
	if errors.As(err, &se) {
		return se.Status
	}
	return 0
}

// collision reports whether err is a path collision.
func collision(err error) bool {
	var ce *state.CollisionError
	return errors.As(err, &ce)
}
