package engine

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"rsx/dest/state"
	"rsx/dest/store"
)

// Ranges of a bucket's listing: listRangesMax at most, of listRangeMin
// resources of the state at least, listWorkers of them listed at once.
// Four listings at once let a server list four pages at a time (an S3
// service serves each in tens of milliseconds; versitygw's posix backend
// reads and sorts the whole folder for each page, a core's work, so it
// gains as many times as it has cores); more ranges than workers even out
// ranges that list slower.
const (
	listRangesMax = 16
	listWorkers   = 4
)

var listRangeMin int64 = 5_000 // a variable for tests

// listByRanges lists the files of st in folders (one Source's part of
// DEST, destParts: nothing else), as the audit and a bucket's reconcile
// list a bucket: split into ranges of paths by the state's own
// (state.DB.PathSplits: at most listRangesMax ranges of listRangeMin rows
// or more), each clipped to the folders (clipRanges), listWorkers ranges
// at a time, so that a server that answers each page of a listing in turn
// (a bucket's ListObjectsV2, 1,000 keys a page) serves several at once.
// fn is called from one goroutine with batches of up to state.LookupBatch
// files, in path order within a range and in no order across ranges; the
// batch is reused after fn returns. A store that cannot list a range (a
// folder) lists each folder (store.FolderWalker), or is walked whole. No
// folder: nothing is listed. It returns the first error of a listing or
// of fn, at once: the other listings are cancelled (a failed look-up in
// the state is no reason to list the rest of a bucket).
func listByRanges(ctx context.Context, db *state.DB, st store.Store, folders []string, fn func(batch []store.FileInfo) error) error {
	if len(folders) == 0 {
		return nil
	}
	rw, ok := st.(store.RangeWalker)
	if !ok {
		return listWhole(ctx, st, folders, fn)
	}
	splits, err := db.PathSplits(ctx, listRangesMax, listRangeMin)
	if err != nil {
		return err
	}
	// Range i is (bounds[i], bounds[i+1]]: "" below is the start, above
	// the end; only their parts in the folders are listed.
	bounds := append(append([]string{""}, splits...), "")
	clipped := clipRanges(bounds, folders)
	ranges := make(chan [2]string, len(clipped))
	for _, r := range clipped {
		ranges <- r
	}
	close(ranges)
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan []store.FileInfo, listWorkers)
	free := make(chan []store.FileInfo, 2*listWorkers)
	var listers sync.WaitGroup
	for range min(listWorkers, len(clipped)) {
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
			for r := range ranges {
				err := rw.WalkRange(gctx, r[0], r[1], func(fi store.FileInfo) error {
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
				// error ends gctx (errgroup keeps the first error, so the
				// listers' cancellation never hides it), which stops the
				// listers (blocked on a batch, or listing); batches
				// closes after them.
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

// listWhole lists the folders of a store that lists no range, in batches
// as listByRanges: each folder by itself where the store can
// (store.FolderWalker), else the whole store.
func listWhole(ctx context.Context, st store.Store, folders []string, fn func(batch []store.FileInfo) error) error {
	batch := make([]store.FileInfo, 0, state.LookupBatch)
	add := func(fi store.FileInfo) error {
		batch = append(batch, fi)
		if len(batch) < cap(batch) {
			return nil
		}
		err := fn(batch)
		batch = batch[:0]
		return err
	}
	var err error
	if fw, ok := st.(store.FolderWalker); ok {
		for _, f := range folders {
			if err = fw.WalkFolder(ctx, f, add); err != nil {
				break
			}
		}
	} else {
		err = st.Walk(ctx, add)
	}
	if err == nil && len(batch) > 0 {
		err = fn(batch)
	}
	return err
}
