package engine

import (
	"context"

	"rsx/dest/plan"
	"rsx/dest/state"
)

// Decision is a decision of a plan that does something, with the file it
// concerns, as a dry run lists it: where the copy goes (a create, an update)
// or is (a deletion, one remembered, an update in place), and a length: the
// one declared, for what is fetched; the copy's, for what is deleted.
type Decision struct {
	Action plan.Action
	URI    string
	Path   string // relative to DEST, '/'-separated; "" when the state has no copy
	Length int64  // -1 when unknown
	Reason string
}

// Decisions calls fn for each decision of the plan that does something
// (Unchanged ones left out), in the plan's order, those of the actions
// given only (none given: all). The plan's items are read from its spool
// as fn takes them, so that a plan of a million is never held in memory;
// the items of other actions are skipped undecoded. The path of a copy the
// plan does not name (an update in place, a deletion) and the length of a
// copy to delete are read from the state for a batch of decisions at a
// time (state.LookupBatch, one query each): a query for each decision made
// the --json of a dry run of a million updates four times slower than its
// plan.
func (p *Plan) Decisions(ctx context.Context, fn func(Decision) error, actions ...plan.Action) error {
	want := func(a plan.Action) bool {
		if a == plan.Unchanged {
			return false
		}
		if len(actions) == 0 {
			return true
		}
		for _, x := range actions {
			if x == a {
				return true
			}
		}
		return false
	}
	if p.items == nil {
		return nil
	}
	b := decisionBatch{db: p.sess.db, fn: fn, rows: map[int64]pathRow{}}
	err := p.items.eachOf(want, func(it *Item) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := Decision{Action: it.Action, URI: it.Entry.URI, Path: it.Path, Length: it.Entry.Length, Reason: it.Reason}
		fetched := it.Action == plan.Create || it.Action == plan.Update
		id := int64(0)
		if it.ID > 0 && (d.Path == "" || !fetched) {
			id = it.ID
		}
		if !fetched && it.ID <= 0 {
			d.Length = -1
		}
		return b.add(ctx, d, id, fetched)
	})
	if err != nil {
		return err
	}
	return b.flush(ctx)
}

// pathRow is what a decision reads of the row it names.
type pathRow struct {
	path   string
	length int64
}

// decisionBatch holds decisions until the rows they name are read, in one
// query for the batch.
type decisionBatch struct {
	db      *state.DB
	fn      func(Decision) error
	ds      []Decision
	ids     []int64 // of ds: the row to read (0: none)
	fetched []bool  // of ds: a create or an update (its length is the one declared)
	lookups []int64 // the ids to read
	rows    map[int64]pathRow
}

// add holds d, to read the row id (0: none) for it.
func (b *decisionBatch) add(ctx context.Context, d Decision, id int64, fetched bool) error {
	b.ds, b.ids, b.fetched = append(b.ds, d), append(b.ids, id), append(b.fetched, fetched)
	if id > 0 {
		b.lookups = append(b.lookups, id)
	}
	if len(b.lookups) >= state.LookupBatch || len(b.ds) >= 4*state.LookupBatch {
		return b.flush(ctx)
	}
	return nil
}

// flush reads the rows the held decisions name, and gives them to fn in
// order.
func (b *decisionBatch) flush(ctx context.Context) error {
	if len(b.lookups) > 0 {
		clear(b.rows)
		err := b.db.PathsByID(ctx, b.lookups, func(id int64, path string, length int64) error {
			b.rows[id] = pathRow{path, length}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for i := range b.ds {
		d := &b.ds[i]
		if id := b.ids[i]; id > 0 {
			if r, ok := b.rows[id]; ok { // no row: as the plan has it
				if d.Path == "" {
					d.Path = r.path
				}
				if !b.fetched[i] {
					d.Length = r.length
				}
			}
		}
		if err := b.fn(*d); err != nil {
			return err
		}
	}
	clear(b.ds) // the strings they hold
	b.ds, b.ids, b.fetched, b.lookups = b.ds[:0], b.ids[:0], b.fetched[:0], b.lookups[:0]
	return nil
}
