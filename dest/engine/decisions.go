package engine

import (
	"context"
	"errors"

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
// the path of a copy the plan does not name is read from the state.
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
	return p.Items(func(it Item) error {
		if !want(it.Action) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		d := Decision{Action: it.Action, URI: it.Entry.URI, Path: it.Path, Length: it.Entry.Length, Reason: it.Reason}
		fetched := it.Action == plan.Create || it.Action == plan.Update
		if it.ID > 0 && (d.Path == "" || !fetched) {
			row, err := p.sess.db.ResourceByID(ctx, it.ID)
			switch {
			case errors.Is(err, state.ErrNoResource):
			case err != nil:
				return err
			default:
				if d.Path == "" {
					d.Path = row.Path
				}
				if !fetched {
					d.Length = row.Length
				}
			}
		}
		if !fetched && it.ID <= 0 {
			d.Length = -1
		}
		return fn(d)
	})
}
