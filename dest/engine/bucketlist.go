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
// size, ETag, LastModified). The listing, in key order, is merged with the
// state's rows in the same order (state.DB.CopiesByPath, sorted by SQLite,
// which spills to disk), streaming; what the merge keeps is two bits per row
// id: the rows it saw, and those whose copy it found missing, of another
// length than recorded, or marked damaged by an audit. A checker takes an
// item whose copy the listing found as recorded as checked; the others (the
// suspects, and items the merge did not see) go the way they went before,
// a HEAD request each, which finds the same reasons as before (and clears a
// suspect the listing wrongly made: a server whose listing order differs
// from the byte order of the keys costs HEAD requests, not repairs).
//
// The listing is not always the cheaper way. versitygw's posix backend (the
// S3 server of the tests and of scripts/cycle) answers each page of a
// listing by reading and sorting the whole folder the page starts in
// (backend.Walk: fs.ReadDir of the folder, then a scan to the marker), so a
// page's cost grows with the folder: measured 2026-11-27 (versitygw
// v1.8.0, load 16–25), a page of 1,000 cost it 45 ms of CPU in a folder of
// 20,000 objects and 512 ms in one of 200,000 (1.1 s for the first page),
// where 1,000 HEAD requests cost it 370–415 ms (and rsx 340 ms; the pages,
// 24–31 ms). Past about 150,000 objects in one folder, the HEAD requests
// cost such a server less than the listing; S3 itself, MinIO and Ceph list
// from a sorted index, at a cost that does not grow with the folder, but
// rsx cannot tell the servers apart. So the copy is listed when no folder
// of it holds more than listFolderMax objects, and looked at one object at
// a time otherwise (a copy of 1,000,000 demo resources puts 800,000 in one
// folder).
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

// copyListing is the merge of a bucket's listing with the state: done is
// closed when it ended; listed says whether it described the copy (false:
// a folder too big to list cheaply, or a listing the server refused).
type copyListing struct {
	done    chan struct{}
	listed  bool
	why     string // why it did not describe the copy, for the plan's notes
	err     error  // the state could not be read, or the run was cancelled
	seen    bits
	suspect bits
	objects int // objects listed
}

// listCopy starts the merge of the listing of a bucket's copy with the
// state's rows of the Source srcID.
func listCopy(ctx context.Context, db *state.DB, srcID int64, st store.Store) *copyListing {
	l := &copyListing{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.err = l.merge(ctx, db, srcID, st)
	}()
	return l
}

func (l *copyListing) merge(ctx context.Context, db *state.DB, srcID int64, st store.Store) error {
	big, err := db.LargestFolder(ctx, srcID)
	if err != nil {
		return err
	}
	if big > listFolderMax {
		return nil
	}
	objs, stop := listObjects(ctx, st)
	defer stop()
	cur, more := <-objs
	if more {
		l.objects++
	}
	err = db.CopiesByPath(ctx, srcID, func(c *state.ListedCopy) error {
		// Objects no row has are not the reconcile's: skip them.
		for more && cur.Path < c.Path {
			if cur, more = <-objs; more {
				l.objects++
			}
		}
		l.seen.set(c.ID)
		if c.Damaged || !more || cur.Path != c.Path || (c.Length >= 0 && cur.Size != c.Length) {
			l.suspect.set(c.ID)
		}
		return nil
	})
	walkErr := stop()
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if walkErr != nil && !errors.Is(walkErr, context.Canceled) {
		// Listing refused (a key allowed to read objects, not to list the
		// bucket): each object is looked at by itself.
		l.seen, l.suspect = nil, nil
		l.why = "the copy could not be listed, so each object was looked at by a HEAD request: " + walkErr.Error()
		return nil
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
