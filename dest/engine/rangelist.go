package engine

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"rsx/dest/state"
	"rsx/dest/store"
)

// listByRanges lists the files of st as the audit lists a bucket's
// (auditor.listRanges): split into ranges of paths by the state's own
// (state.DB.PathSplits: at most listRangesMax ranges of listRangeMin rows or
// more), listWorkers ranges at a time, so that a server that answers each
// page of a listing in turn (a bucket's ListObjectsV2, 1,000 keys a page)
// serves several at once. fn is called from one goroutine with batches of
// up to state.LookupBatch files, in path order within a range and in no
// order across ranges; the batch is reused after fn returns. A store that
// cannot list a range (a folder) is walked whole. It returns the first
// error of a listing or of fn, at once: the other listings are cancelled.
func listByRanges(ctx context.Context, db *state.DB, st store.Store, fn func(batch []store.FileInfo) error) error {
	rw, ok := st.(store.RangeWalker)
	if !ok {
		batch := make([]store.FileInfo, 0, state.LookupBatch)
		err := st.Walk(ctx, func(fi store.FileInfo) error {
			batch = append(batch, fi)
			if len(batch) < cap(batch) {
				return nil
			}
			err := fn(batch)
			batch = batch[:0]
			return err
		})
		if err == nil && len(batch) > 0 {
			err = fn(batch)
		}
		return err
	}
	splits, err := db.PathSplits(ctx, listRangesMax, listRangeMin)
	if err != nil {
		return err
	}
	// Range i is (bounds[i], bounds[i+1]]: "" below is the start, above
	// the end.
	bounds := append(append([]string{""}, splits...), "")
	ranges := make(chan int, len(bounds)-1)
	for i := range len(bounds) - 1 {
		ranges <- i
	}
	close(ranges)
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan []store.FileInfo, listWorkers)
	free := make(chan []store.FileInfo, 2*listWorkers)
	var listers sync.WaitGroup
	for range min(listWorkers, len(bounds)-1) {
		listers.Add(1)
		g.Go(func() error {
			defer listers.Done()
			batch := make([]store.FileInfo, 0, state.LookupBatch)
			send := func() error {
				select {
				case batches <- batch:
				case <-gctx.Done():
					return gctx.Err()
				}
				select {
				case batch = <-free:
				default:
					batch = make([]store.FileInfo, 0, state.LookupBatch)
				}
				return nil
			}
			for i := range ranges {
				err := rw.WalkRange(gctx, bounds[i], bounds[i+1], func(fi store.FileInfo) error {
					batch = append(batch, fi)
					if len(batch) == cap(batch) {
						return send()
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			if len(batch) > 0 {
				return send()
			}
			return nil
		})
	}
	go func() {
		listers.Wait()
		close(batches)
	}()
	g.Go(func() error {
		for batch := range batches {
			err := gctx.Err()
			if err == nil {
				err = fn(batch)
			}
			if err != nil {
				// Returned at once, not after draining the batches: its
				// error ends gctx, which stops the listers (blocked on a
				// batch, or listing); batches closes after them.
				return err
			}
			select {
			case free <- batch[:0]:
			default:
			}
		}
		return nil
	})
	return g.Wait()
}
