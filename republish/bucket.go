package republish

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"rsx/dest/state"
	"rsx/dest/store"
)

// bucketReader reads the state of a bucket in copies of its own
// (store.S3.CopyState), each the state one upload of a run left: a run's
// batches and its end each upload it. A copy no longer read becomes the
// next one, by the segments it lacks.
type bucketReader struct {
	s   *store.S3
	tmp string

	mu    sync.Mutex
	last  *store.StateCopy // the copy of the newest view
	spare *store.StateCopy // a copy no view reads any more
	redo  bool             // give a view of last again, changed or not
	// copies counts the copies made, reused those made from a copy no
	// longer read (by the segments it lacked).
	copies, reused int
}

func newBucketReader(s *store.S3, tmp string) *bucketReader { return &bucketReader{s: s, tmp: tmp} }

func (r *bucketReader) next(ctx context.Context) (*view, error) {
	r.mu.Lock()
	reuse, last := r.spare, r.last
	r.spare = nil
	if r.redo {
		last, r.redo = nil, false
	}
	r.mu.Unlock()
	c, ok, err := r.s.CopyState(ctx, r.tmp, last, reuse)
	if err != nil {
		r.giveBack(reuse)
		return nil, err
	}
	if !ok {
		r.giveBack(reuse)
		return nil, errors.New("no copy in " + r.s.String() + ": it has no state")
	}
	if c == nil {
		r.giveBack(reuse)
		return nil, nil
	}
	db, err := state.OpenReadOnly(ctx, c.Path)
	if err != nil {
		os.Remove(c.Path)
		return nil, err
	}
	f, err := db.Freeze(ctx, false)
	if err != nil {
		db.Close()
		os.Remove(c.Path)
		return nil, err
	}
	r.mu.Lock()
	r.last = c
	r.copies++
	if reuse != nil && reuse.Path == c.Path {
		r.reused++
	}
	r.mu.Unlock()
	return newView(f, func() {
		db.Close()
		r.giveBack(c)
	}), nil
}

// giveBack keeps a copy no longer read for the next (one at a time).
func (r *bucketReader) giveBack(c *store.StateCopy) {
	if c == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spare != nil && r.spare.Path != c.Path {
		os.Remove(r.spare.Path)
	}
	r.spare = c
}

// again: the next call gives a view even when the state did not change (a
// run without an end, to be looked at again).
func (r *bucketReader) again() {
	r.mu.Lock()
	r.redo = true
	r.mu.Unlock()
}

// over: a run without an end is over when no live lock holds the bucket.
func (r *bucketReader) over(ctx context.Context, f *state.Frozen) endOf {
	return func(run *state.Run) (time.Time, bool) {
		held, err := r.s.LockHeld(ctx)
		if err != nil || held {
			return time.Time{}, false
		}
		return lastFileTime(ctx, f, run)
	}
}

func (r *bucketReader) private(context.Context, *view) (*view, error) { return nil, nil }

func (r *bucketReader) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spare != nil {
		os.Remove(r.spare.Path)
		r.spare = nil
	}
}
