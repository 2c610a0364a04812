package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"rsx/claims"
	"rsx/dest/engine"
	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/model"
)

// LocalState is how an entry of a document stands in a local copy.
type LocalState uint8

const (
	LocalUnknown  LocalState = iota // not known yet
	LocalSame                       // the copy holds what the entry describes
	LocalChanged                    // the Source changed it since it was copied (or deleted it)
	LocalMissing                    // not in the copy (never copied, or its file is gone)
	LocalModified                   // the copy's bytes are no longer those written (edited, damaged)
	LocalGone                       // deleted at the Source, and not in the copy
	// LocalOutside: out of the copy's selection (left out by its
	// --include/--exclude, outside the Source's authority, or never chosen
	// in a copy of chosen resources only), as rsx audit --dest counts it.
	LocalOutside
)

// String names a state in a few words.
func (l LocalState) String() string {
	switch l {
	case LocalSame:
		return "same"
	case LocalChanged:
		return "changed at the Source"
	case LocalMissing:
		return "missing"
	case LocalModified:
		return "modified locally"
	case LocalGone:
		return "gone"
	case LocalOutside:
		return "outside the copy's selection"
	}
	return ""
}

// LocalRequest asks the local state of each entry of a document.
type LocalRequest struct {
	Dest   string // the copy: a folder, or s3://bucket/prefix?…
	Target string // the document: its Source keys the copy's state
	Base   string // what relative locs resolve against
	// Entries are the document's entries, loaded whole: they are read from
	// another goroutine and must not change meanwhile.
	Entries *model.EntryTable
}

// LocalBatch is the states of entries From … From+len(States)-1.
type LocalBatch struct {
	From   int
	States []LocalState
}

// localBatch is how many entries are looked up at once.
const localBatch = state.LookupBatch

// mtimeSlack is how much later than its recorded write a file's
// modification time may be before its bytes are read again: the state
// records times to the second, and a bucket's object is dated by its upload.
const mtimeSlack = 2 * time.Second

// LocalStates tells the local state of every entry of req.Entries, a batch
// at a time (out is called from this goroutine, in order). It reads the
// copy's state database without taking the destination's lock, and each
// file's size and time; a file written after the state recorded it is read
// again and compared with the digests recorded. Entries the copy does not
// claim to hold are LocalOutside, by the rules of the audit
// (engine.CopySelection). A copy without a state, or of no Source yet, has
// every entry missing; a copy of other Sources only is refused with an
// *engine.NoCopyError naming them (its entries are not "missing" there:
// they are none of its business).
func (s *Session) LocalStates(ctx context.Context, req LocalRequest, out func(LocalBatch)) error {
	n := req.Entries.Len()
	st, err := s.openStore(ctx, req.Dest, s.opts.Dest.Store)
	if err != nil {
		return err
	}
	defer st.Close()
	view, sel, closeDB, err := s.localView(ctx, st, req.Target)
	if err != nil {
		return err
	}
	defer closeDB()
	uris := make([]string, 0, localBatch)
	entries := make([]plan.Entry, 0, localBatch)
	for from := 0; from < n; from += localBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		to := min(from+localBatch, n)
		states := make([]LocalState, to-from)
		uris, entries = uris[:0], entries[:0]
		for i := from; i < to; i++ {
			e := planEntryOf(req.Entries, i, req.Base)
			uris = append(uris, e.URI)
			entries = append(entries, e)
		}
		if view == nil {
			for i := range states {
				states[i] = missingOrGone(&entries[i])
			}
			out(LocalBatch{From: from, States: states})
			continue
		}
		rows := make([]*state.Resource, len(uris))
		err := view.FindResources(ctx, uris, func(i int, r *state.Resource) error {
			c := *r
			rows[i] = &c
			return nil
		})
		if err != nil {
			return err
		}
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for i := range states {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if outsideCopy(sel, &entries[i], rows[i] != nil) {
					states[i] = LocalOutside
				} else {
					states[i] = localStateOf(ctx, st, &entries[i], rows[i])
				}
			}()
		}
		wg.Wait()
		out(LocalBatch{From: from, States: states})
	}
	return ctx.Err()
}

// localView opens the copy's state for reading, with what the copy claims
// to hold: nil when there is none, or no row of the Source of target.
func (s *Session) localView(ctx context.Context, st store.Store, target string) (*state.View, *engine.CopySelection, func(), error) {
	none := func() {}
	path, err := st.StatePath(ctx)
	if err != nil {
		return nil, nil, none, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, none, nil
	}
	client, err := s.destClient()
	if err != nil {
		return nil, nil, none, err
	}
	rs, err := engine.ResolveSource(ctx, client, target, engine.Options{})
	if err != nil {
		return nil, nil, none, fmt.Errorf("find the Source of %s: %w", target, err)
	}
	db, err := state.Open(ctx, path)
	if err != nil {
		return nil, nil, none, err
	}
	src, err := rs.Row(ctx, db)
	if errors.Is(err, state.ErrNoSource) {
		// A copy of other Sources: no state of this one's entries (not
		// every one "missing"), and the error names those it holds. A copy
		// of none yet is this one's to come.
		defer db.Close()
		held, err := db.Sources(ctx)
		if err != nil || len(held) == 0 {
			return nil, nil, none, err
		}
		e := &engine.NoCopyError{Dest: st.String(), Source: rs.Key()}
		for _, h := range held {
			e.Holds = append(e.Holds, h.URL)
		}
		return nil, nil, none, e
	}
	if err != nil {
		db.Close()
		return nil, nil, none, err
	}
	// The explorer's audit compares what the Source's authority holds
	// (AuditOptions.AllowOtherHosts is off): so are the states.
	sel, err := rs.CopySelection(src, false)
	if err != nil {
		db.Close()
		return nil, nil, none, err
	}
	return db.View(src.ID), sel, func() { db.Close() }, nil
}

// planEntryOf reads entry i of t as the planners read an entry.
func planEntryOf(t *model.EntryTable, i int, base string) plan.Entry {
	e := plan.Entry{URI: engine.ResolveLoc(base, t.Loc(i)), Length: -1, Digests: state.DigestsOf(t.Hash(i)),
		Type: t.Type(i), Change: t.Change(i)}
	if n, ok := t.Length(i); ok {
		e.Length = n
	}
	if lm := t.Lastmod(i); lm.OK {
		e.Lastmod = lm.Time
	}
	if dt := t.Datetime(i); dt.OK {
		e.Datetime = dt.Time
	}
	if t.LinkCount(i) > 0 {
		e.Via, _ = state.ViaOf(&model.Entry{Loc: e.URI, Links: t.Links(i)})
	}
	return e
}

// outsideCopy tells that the copy does not claim to hold e's resource
// (recorded: its state has a row of it). A deletion the copy never held
// stays gone, unless the copy's selection leaves the resource out.
func outsideCopy(sel *engine.CopySelection, e *plan.Entry, recorded bool) bool {
	if sel.Excluded(e.URI) {
		return true
	}
	return !recorded && e.Change != model.ChangeDeleted && !sel.Claims(e.URI, false)
}

func missingOrGone(e *plan.Entry) LocalState {
	if e.Change == model.ChangeDeleted {
		return LocalGone
	}
	return LocalMissing
}

// localStateOf compares an entry with its row (nil: none) and its file.
func localStateOf(ctx context.Context, st store.Store, e *plan.Entry, row *state.Resource) LocalState {
	if row == nil {
		return missingOrGone(e)
	}
	if e.Change == model.ChangeDeleted {
		if row.Pending() {
			return LocalGone // the deletion is remembered; the file waits for --delete
		}
		return LocalChanged
	}
	k := state.KnownOf(row)
	if act, _ := plan.Decide(e, &k); act != plan.Unchanged {
		return LocalChanged
	}
	fi, err := st.Stat(ctx, row.Path)
	if err != nil {
		return LocalMissing
	}
	if row.Length >= 0 && fi.Size != row.Length {
		return LocalModified
	}
	written := row.FetchedAt
	if row.VerifiedAt.After(written) {
		written = row.VerifiedAt
	}
	if !written.IsZero() && !fi.ModTime.After(written.Add(mtimeSlack)) {
		return LocalSame
	}
	// Written to after the state recorded it: are the bytes still those?
	if intactCopy(ctx, st, row) {
		return LocalSame
	}
	return LocalModified
}

// intactCopy reads a copy again and holds it to the length and digests
// recorded when it was written.
func intactCopy(ctx context.Context, st store.Store, row *state.Resource) bool {
	f, err := st.Open(ctx, row.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	c := claims.Claims{Hash: row.Digests.HashList()}
	if row.Length >= 0 {
		c.Length, c.LengthOK = row.Length, true
	}
	v := claims.NewVerifier(c, claims.Limits{Margin: -1})
	if _, err := io.Copy(v, f); err != nil && !errors.Is(err, claims.ErrTooLong) {
		return false
	}
	return v.Verify() == nil
}
