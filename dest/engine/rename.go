package engine

import (
	"cmp"
	"context"
	"slices"

	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/display"
)

// Copies made by an rsx before state.PathRule have files whose names hold
// characters that the rule now writes as %XX (C1 controls, bidirectional
// overrides, U+2028, zero width and the other format characters: see
// display.Unsafe). The state records each copy's path, and every command
// goes by it, so such a copy stays whole and in sync; but its names are
// what a terminal, a listing or a bag manifest would act on. So the first
// syncs of such a Source rename them: each row whose path the rule now
// writes otherwise is fetched again to its new path, verified as any write,
// and its old file removed, by the mechanism that moves files when the
// --map rules change. A run that finds none to rename records it
// (state.Writer.SetPathsChecked), and later plans look no more (finding
// them reads every row of the Source).

// maxRenames bounds the rows one plan renames: the rest are the next
// run's.
const maxRenames = 10000

// rename is a row of the state whose file moves to path.
type rename struct {
	row  state.Resource
	path string
}

// findRenames looks for the rows of the Source whose paths an older rsx
// wrote, until a run records that there are none.
func (b *builder) findRenames(ctx context.Context, exists bool) error {
	p := b.p
	if !exists {
		p.pathsChecked = true // its rows will all be written by the rule
		return nil
	}
	if p.opts.Only != nil {
		return nil // a run of chosen resources leaves the rest as it is
	}
	checked, err := b.s.db.PathsChecked(ctx, p.srcID)
	if err != nil || checked {
		return err
	}
	more, err := b.s.db.RowsToRename(ctx, p.srcID, maxRenames, func(r *state.Resource) error {
		if r.Pending() {
			return nil // the Source deleted it: its file goes with --delete
		}
		path, err := b.mapper.Map(r.URI)
		if err != nil || path == r.Path {
			return nil // refused now (an audit says so): left as it is
		}
		if b.renames == nil {
			b.renames = map[int64]rename{}
		}
		b.renames[r.ID] = rename{row: *r, path: path}
		return nil
	})
	if err != nil {
		return err
	}
	p.pathsChecked = len(b.renames) == 0 && !more
	if n := len(b.renames); n > 0 {
		p.Notes = append(p.Notes, display.Plural(n, "file has a name", "files have names")+
			" that an older rsx wrote with characters a file name now holds as %XX (controls, bidirectional or invisible ones):"+
			" fetched again to their new names, and the old files removed")
	}
	return nil
}

// renameTo tells whether the row id is one to rename, and forgets it (the
// plan has met it). Call it with emitMu held.
func (b *builder) renameTo(id int64) (rename, bool) {
	if id <= 0 || len(b.renames) == 0 {
		return rename{}, false
	}
	r, ok := b.renames[id]
	if ok {
		delete(b.renames, id)
	}
	return r, ok
}

// finishItems ends the plan's items, with an update of each row to rename
// that the plan did not meet (an incremental plan meets only what
// changed): the resource as the state knows it, fetched again to its new
// path.
func (b *builder) finishItems(ctx context.Context) error {
	b.emitMu.Lock()
	left := make([]rename, 0, len(b.renames))
	for _, r := range b.renames {
		left = append(left, r)
	}
	b.emitMu.Unlock()
	slices.SortFunc(left, func(x, y rename) int { return cmp.Compare(x.row.ID, y.row.ID) })
	take := b.take(ctx)
	for _, r := range left {
		e := plan.Entry{URI: r.row.URI, Length: r.row.Length, Digests: r.row.Digests, Lastmod: r.row.Lastmod, Datetime: r.row.ChangeDatetime}
		it := plan.Item{Action: plan.Update, Entry: e, ID: r.row.ID, Reason: "renamed from " + r.row.Path}
		if err := take(it); err != nil {
			return err
		}
	}
	return b.p.items.finish()
}
