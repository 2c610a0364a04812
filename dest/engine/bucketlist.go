package engine

import (
	"context"
	"errors"
	"sync"

	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/dest/store"
)

// A bucket's copy is quick-checked by listing it, not by a HEAD request per
// object: one ListObjectsV2 request describes up to 1,000 objects (key,
// size, ETag, LastModified). The Source's part of the bucket (destParts:
// its folders, nothing of another Source's nor DEST/.rsx, the trash) is
// listed as the audit lists it, by ranges of keys, several at once
// (listByRanges), and each batch of the objects listed is looked up among
// the Source's rows by path (state.DB.CopiesAt); what the listing keeps is
// two bits per row id: the rows it saw, and those whose copy it found of
// another length than recorded, or marked damaged by an audit. A checker
// takes an item whose copy the listing found as recorded as checked; the
// others (the suspects, and the rows no object was found for: gone, or
// listed where the listing did not look) go the way they went before, a
// HEAD request each, which finds the same reasons as before. When the plan
// looks for stray files (--delete), the objects no row of the Source has
// are looked up among every Source's rows as the listing goes
// (strayFinder): the plan does not list the part again.
//
// An earlier reconcile merged one listing, in key order, with the rows in
// path order, and sent a HEAD request an object instead when a folder held
// more than listFolderMax objects: versitygw's posix backend (the S3
// server of scripts/cycle) answers each page by reading and sorting the
// whole folder the page starts in, which past some 150,000 objects a folder
// cost it more than the HEAD requests. S3 services (and SeaweedFS, the
// tests' second server) list from a sorted index, at a cost that does not
// grow with the folder, and rsx cannot tell the servers apart: the
// reconcile lists, whatever the folders, as the audit does.
//
// listFolderMax still bounds the listing of listUnrecorded (a run resumed
// after a kill, which merges one listing with the rows in path order): it
// lists when no folder of the copy holds more objects, and looks at one
// object at a time otherwise (a copy of 1,000,000 demo resources puts
// 800,000 in one folder).
var listFolderMax = 150_000

// bits is a set of row ids, a bit each.
type bits []uint64

func (b *bits) set(id int64) {
	i := int(id >> 6)
	if i >= len(*b) {
		*b = append(*b, make([]uint64, i+1-len(*b)+len(*b)/4)...)
	}
	(*b)[i] |= 1 << (id & 63)
}

func (b bits) has(id int64) bool {
	i := int(id >> 6)
	return id >= 0 && i < len(b) && b[i]&(1<<(id&63)) != 0
}

// copyListing is what the listing of a bucket's copy found of the
// Source's rows: done is closed when it ended; listed says whether it
// described the copy (false: a listing the server refused).
type copyListing struct {
	done    chan struct{}
	listed  bool
	why     string // why it did not describe the copy, for the plan's notes
	err     error  // the state could not be read, or the run was cancelled
	seen    bits
	suspect bits
	objects int             // objects listed
	strays  *strayCollector // the stray files of the Source's part, when asked for and listed
}

// listCopy starts the listing of the Source srcID's part of a bucket, its
// objects looked up among the Source's rows, and, with strays, the stray
// files of the part found (strayFinder).
func listCopy(ctx context.Context, s *Dest, srcID int64, strays bool) *copyListing {
	l := &copyListing{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.err = l.list(ctx, s, srcID, strays)
		if l.strays != nil && (l.err != nil || !l.listed) {
			l.strays.spool.Close()
			l.strays = nil
		}
	}()
	return l
}

// errLookup marks a failure of the state's look-up, which ends the run,
// from the listing's, which a HEAD request an object makes up for.
type errLookup struct{ err error }

func (e errLookup) Error() string { return e.err.Error() }
func (e errLookup) Unwrap() error { return e.err }

func (l *copyListing) list(ctx context.Context, s *Dest, srcID int64, strays bool) error {
	parts, err := s.loadParts(ctx)
	if err != nil {
		return err
	}
	if strays {
		if l.strays, err = s.newStrayCollector(ctx, srcID, parts); err != nil {
			return err
		}
	}
	paths := make([]string, 0, state.LookupBatch)
	seen := make([]bool, state.LookupBatch)
	walkErr := listByRanges(ctx, s.db, s.st, parts.of[srcID], func(batch []store.FileInfo) error {
		l.objects += len(batch)
		paths = paths[:0]
		for _, fi := range batch {
			paths = append(paths, fi.Path)
		}
		clear(seen)
		err := s.db.CopiesAt(ctx, srcID, paths, func(i int, c *state.ListedCopy) error {
			seen[i] = true
			l.seen.set(c.ID)
			if c.Damaged || (c.Length >= 0 && batch[i].Size != c.Length) {
				l.suspect.set(c.ID)
			}
			return nil
		})
		if err == nil && l.strays != nil {
			// An object of the Source's own is no stray file.
			for i, p := range paths {
				if !seen[i] {
					if err = l.strays.f.add(ctx, p); err != nil {
						break
					}
				}
			}
		}
		if err != nil {
			return errLookup{err}
		}
		return nil
	})
	var lerr errLookup
	switch {
	case errors.As(walkErr, &lerr):
		return lerr.err
	case ctx.Err() != nil:
		return ctx.Err()
	case walkErr != nil:
		// Listing refused (a key allowed to read objects, not to list the
		// bucket): each object is looked at by itself.
		l.seen, l.suspect = nil, nil
		l.why = "the copy could not be listed, so each object was looked at by a HEAD request: " + walkErr.Error()
		return nil
	}
	if l.strays != nil {
		if err := l.strays.f.flush(ctx); err != nil {
			return err
		}
	}
	l.listed = true
	return nil
}

// fromListing waits for the listing of the copy and takes as checked the
// items of a batch whose copy it found as recorded; it returns the others,
// to be looked at one by one (in items' array).
func (rc *reconciler) fromListing(ctx context.Context, items []plan.Item) ([]plan.Item, error) {
	l := rc.list
	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if l.err != nil {
		return nil, l.err
	}
	if !l.listed {
		return items, nil
	}
	rest := items[:0]
	for _, it := range items {
		if !l.seen.has(it.ID) || l.suspect.has(it.ID) {
			rest = append(rest, it)
			continue
		}
		rc.checked.Add(1)
		if err := rc.decided(it, ""); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// unrecordedMax is the most objects no row records that a run resumed in a
// bucket keeps in memory to adopt from (some 150 bytes each): the batch in
// flight when a run was killed is far fewer. With more (a copy whose state
// was lost), each Create's object is looked at by a HEAD request.
var unrecordedMax = 100_000

// listUnrecorded lists the objects of a bucket's copy that no row of the
// state records, by path, merging the listing with every Source's rows in
// path order: what a resumed run may adopt (runner.adopt) without a HEAD
// request for each resource it creates, most of which have no object. It
// returns nil (adopt by HEAD requests, as before) where listing is not the
// cheaper way (listFolderMax), is refused, or finds more than
// unrecordedMax such objects.
func listUnrecorded(ctx context.Context, db *state.DB, st store.Store) (map[string]store.FileInfo, error) {
	big, err := db.LargestFolder(ctx, 0)
	if err != nil || big > listFolderMax {
		return nil, err
	}
	objs, stop := listObjects(ctx, st)
	defer stop()
	out := map[string]store.FileInfo{}
	errTooMany := errors.New("too many objects no row records")
	cur, more := <-objs
	keep := func() error {
		if len(out) >= unrecordedMax {
			return errTooMany
		}
		out[cur.Path] = cur
		return nil
	}
	err = db.CopiesByPath(ctx, 0, func(c *state.ListedCopy) error {
		for ; more && cur.Path < c.Path; cur, more = <-objs {
			if err := keep(); err != nil {
				return err
			}
		}
		if more && cur.Path == c.Path {
			cur, more = <-objs
		}
		return nil
	})
	for ; err == nil && more; cur, more = <-objs {
		err = keep()
	}
	walkErr := stop()
	switch {
	case errors.Is(err, errTooMany):
		return nil, nil
	case err != nil:
		return nil, err
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case walkErr != nil && !errors.Is(walkErr, context.Canceled):
		return nil, nil // listing refused: HEAD requests
	}
	return out, nil
}

// listObjects walks st's objects in path order into a channel, to be merged
// with the state's rows. stop ends the walk (it may be called again) and
// returns the walk's error: context.Canceled when it was stopped early.
func listObjects(ctx context.Context, st store.Store) (<-chan store.FileInfo, func() error) {
	lctx, cancel := context.WithCancel(ctx)
	objs := make(chan store.FileInfo, 256)
	lerr := make(chan error, 1)
	go func() {
		defer close(objs)
		lerr <- st.Walk(lctx, func(fi store.FileInfo) error {
			select {
			case objs <- fi:
				return nil
			case <-lctx.Done():
				return lctx.Err()
			}
		})
	}()
	var once sync.Once
	var err error
	return objs, func() error {
		once.Do(func() {
			cancel()
			for range objs {
			}
			err = <-lerr
		})
		return err
	}
}
