package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"rsx/dest/plan"
	"rsx/model"
)

// entryBatch is what a reader of a document hands to the planner.
const entryBatch = 256

// baseline plans a baseline from the Resource List (or its index) or the
// Resource Dump.
func (b *builder) baseline(ctx context.Context, src *source) error {
	p := b.p
	st, err := b.snapshotState(ctx)
	if err != nil {
		return err
	}
	snap, err := plan.NewSnapshot(ctx, st, plan.Options{Selection: b.sel, Delete: p.Delete, Only: p.opts.Only, TempDir: b.s.st.TempDir()})
	if err != nil {
		return err
	}
	defer snap.Close()
	if p.Reconcile {
		b.rc = newReconciler(ctx, b, p.Checksum, b.take(ctx))
		defer b.endChecks()
	}
	emit := b.emit(ctx)
	add := func(e plan.Entry) error { return snap.Add(ctx, e, emit) }
	var at time.Time
	switch {
	case p.From == FromDump:
		at, err = b.readResourceDump(ctx, p.Document, add)
	case p.Reconcile && src != nil && src.docs[model.CapChangeList] != "":
		// The copy is compared with the Source as it is now: the Resource
		// List and the changes after its at, as an audit compares it.
		at, _, err = b.readCurrent(ctx, p.Document, src.docs[model.CapChangeList], p.Point, nil, add)
	default:
		at, err = b.readResourceList(ctx, p.Document, add)
	}
	if err != nil {
		return err
	}
	if len(p.Problems) > 0 {
		// What was not read would look deleted: no deletion is decided.
		b.noDeletes = true
		p.Warnings = append(p.Warnings, "some of the Source's documents could not be read: no deletion is decided, and the baseline is not finished")
	}
	if b.s.opts.listRead != nil {
		b.s.opts.listRead()
	}
	sum, err := snap.Finish(ctx, emit)
	if err != nil {
		return err
	}
	if err := b.endChecks(); err != nil {
		return err
	}
	b.dropUnusedPackages()
	b.mergeSummary(sum)
	if at.IsZero() {
		at = b.s.opts.Now().UTC()
		p.Warnings = append(p.Warnings, p.Document+" has no at: the time it was read is the copy's point")
	} else if now := b.s.opts.Now().UTC(); at.After(now.Add(plan.FutureAllowance)) {
		// A point in the future would skip every real change up to it.
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s says at %s, in the future: the time it was read (%s) is the copy's point", p.Document, model.FormatDatetime(at), model.FormatDatetime(now)))
		at = now
	}
	p.At = at
	p.baseline.Kind, p.baseline.URL, p.baseline.At = string(p.From), p.Document, at
	p.complete = len(p.Problems) == 0
	return nil
}

// readResourceList reads a Resource List, or an index and every part of it
// (ListConcurrency at once), handing each entry to add from this goroutine.
// It returns the snapshot's at: the index's, else the earliest of its parts'.
// A part that cannot be read is a problem of the plan; the index itself
// that cannot be read is an error.
func (b *builder) readResourceList(ctx context.Context, url string, add func(plan.Entry) error) (time.Time, error) {
	d, err := b.s.openDoc(ctx, url)
	if err != nil {
		return time.Time{}, err
	}
	b.docs.Add(1)
	if c := d.hdr.MD.Capability; c != model.CapResourceList {
		d.Close()
		return time.Time{}, fmt.Errorf("%s is a %s, not a Resource List", d.url, model.DocumentTitle(c, d.hdr.Root))
	}
	at := d.hdr.MD.At.Time
	if !d.isIndex() {
		defer d.Close()
		n, err := d.each(ctx, func(e *model.Entry, loc string) error { return add(entryOf(e, loc)) })
		b.entries.Add(int64(n))
		return at, err
	}
	parts := &partList{max: b.s.opts.partsInMemory, dir: b.s.st.TempDir()}
	defer parts.close()
	_, err = d.each(ctx, func(e *model.Entry, loc string) error {
		return parts.add(part{loc, e.MD.At.Time})
	})
	d.Close()
	if err != nil {
		return time.Time{}, err
	}

	// Parts are read ListConcurrency at once, but their entries are handed
	// to add in part order, each part's in document order: the plan lists
	// them so, the same from run to run. A part that finished before those
	// before it waits in pending; no part starts more than window parts
	// after the one being handed on, so that what waits stays bounded when
	// an early part is slow.
	window := 2 * b.s.opts.ListConcurrency
	batches := make(chan partBatch, window)
	jobs := make(chan seqPart)
	slots := make(chan struct{}, window)
	var wg sync.WaitGroup
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range min(b.s.opts.ListConcurrency, parts.n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pt := range jobs {
				at, err := b.readPart(rctx, pt.url, func(es []plan.Entry) error {
					select {
					case batches <- partBatch{seq: pt.seq, entries: es}:
						return nil
					case <-rctx.Done():
						return rctx.Err()
					}
				})
				select {
				case batches <- partBatch{seq: pt.seq, end: true, part: pt.part, at: at, err: err}:
				case <-rctx.Done():
				}
			}
		}()
	}
	var partsErr error // reading the parts back; set before jobs closes
	go func() {
		defer close(jobs)
		seq := 0
		partsErr = parts.each(func(pt part) bool {
			select {
			case slots <- struct{}{}:
			case <-rctx.Done():
				return false
			}
			select {
			case jobs <- seqPart{pt, seq}:
				seq++
				return true
			case <-rctx.Done():
				return false
			}
		})
		if partsErr != nil {
			cancel()
		}
	}()
	go func() { wg.Wait(); close(batches) }()
	var (
		addErr  error
		partsAt time.Time
		next    int                     // the part whose entries are handed on
		pending = map[int][]partBatch{} // what arrived of the parts after it
	)
	// hand gives add the entries of a batch of part next, and moves on to
	// the part after when it is the part's end.
	hand := func(pb partBatch) {
		if pb.end {
			if pb.err != nil {
				if rctx.Err() == nil {
					b.problem(pb.part.url, KindDocument, pb.err)
				}
			} else if t := firstTime(pb.at, pb.part.at); !t.IsZero() && (partsAt.IsZero() || t.Before(partsAt)) {
				partsAt = t
			}
			next++
			<-slots
			return
		}
		if addErr != nil {
			return // drain, so that the readers end
		}
		for _, e := range pb.entries {
			if addErr = add(e); addErr != nil {
				cancel()
				return
			}
		}
	}
	for pb := range batches {
		if pb.seq != next {
			pending[pb.seq] = append(pending[pb.seq], pb)
			continue
		}
		hand(pb)
		for pb.end {
			waiting := pending[next]
			delete(pending, next)
			if len(waiting) == 0 {
				break
			}
			for _, w := range waiting {
				hand(w)
				pb = w
			}
		}
	}
	if addErr != nil {
		return time.Time{}, addErr
	}
	if err := ctxErr(ctx, "read "+url); err != nil {
		return time.Time{}, err
	}
	if partsErr != nil {
		return time.Time{}, partsErr
	}
	if at.IsZero() {
		at = partsAt
	}
	return at, nil
}

func firstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// readPart reads one part of a Resource List Index, a batch of entries at a
// time to send, and returns its at.
func (b *builder) readPart(ctx context.Context, url string, send func([]plan.Entry) error) (time.Time, error) {
	d, err := b.s.openDoc(ctx, url)
	if err != nil {
		return time.Time{}, err
	}
	defer d.Close()
	b.docs.Add(1)
	b.s.capture.markPart(url)
	if c := d.hdr.MD.Capability; c != model.CapResourceList || d.isIndex() {
		return time.Time{}, fmt.Errorf("%s, a part of a Resource List Index, is a %s", d.url, model.DocumentTitle(c, d.hdr.Root))
	}
	// The first batch grows as entries come: most parts of a large index
	// are small, and a batch of entryBatch entries made for each (two of
	// them, 70 KB) was a sixth of the CPU of reading an index of parts of one
	// entry. Once a part has filled one, the next ones are made whole.
	var batch []plan.Entry
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := send(batch)
		batch = nil // the receiver has it
		return err
	}
	full := false // a batch was filled: make the next ones whole
	n, err := d.each(ctx, func(e *model.Entry, loc string) error {
		if batch == nil && full {
			batch = make([]plan.Entry, 0, entryBatch)
		}
		batch = append(batch, entryOf(e, loc))
		if len(batch) == entryBatch {
			full = true
			return flush()
		}
		return nil
	})
	b.entries.Add(int64(n))
	if err != nil {
		return time.Time{}, err
	}
	return d.hdr.MD.At.Time, flush()
}

// seqPart is a part of an index with its place among the parts.
type seqPart struct {
	part
	seq int
}

// partBatch is entries of the part at seq, or (end) the part's end: its at,
// or why it could not be read.
type partBatch struct {
	seq     int
	entries []plan.Entry
	end     bool
	part    part
	at      time.Time
	err     error
}
