package engine

import (
	"context"
	"errors"
	"fmt"

	"rsx/dest/plan"
	"rsx/dest/state"
)

// ResolvedSource is the Source a target belongs to, found once: its key in
// a destination's state, and what a copy of it claims to hold.
type ResolvedSource struct{ src *source }

// ResolveSource finds the Source of target as Plan and Audit do (see
// SourceOf).
func ResolveSource(ctx context.Context, client Client, target string, opts Options) (*ResolvedSource, error) {
	if client == nil {
		return nil, errors.New("find the Source: no client")
	}
	s := &Dest{client: client, opts: opts.withDefaults(), delayed: map[string]bool{}}
	src, err := s.resolve(ctx, target)
	if err != nil {
		return nil, err
	}
	return &ResolvedSource{src: src}, nil
}

// Key is the Source's key in a destination's state, as its URL leads to
// it (Row finds the row as a run does, by the Source's names).
func (r *ResolvedSource) Key() string { return r.src.key }

// Row is the row of the Source in a destination's state db, found as Plan
// and Audit find it (by the names the Source is known by, identity.go): an
// *IdentityError when the URL leads to another Source's Capability List,
// an error wrapping state.ErrNoSource when db holds no copy of it.
func (r *ResolvedSource) Row(ctx context.Context, db *state.DB) (state.Source, error) {
	src := *r.src
	if err := identify(ctx, db, &src, nil); err != nil {
		return state.Source{}, err
	}
	return db.Source(ctx, src.key)
}

// CopySelection tells which of the Source's resources a copy claims to
// hold, by the rules Audit sorts them with, so that whatever shows a copy's
// resources calls the same ones out of its selection (never missing): those
// outside the Source's authority (a sync refuses them), those the copy's
// --include/--exclude leave out, and, in a copy of chosen resources only
// (no baseline: the explorer's marks), those it never copied.
type CopySelection struct {
	sel        *plan.Selection
	outside    func(uri string) bool // nil: none is
	chosenOnly bool
}

// CopySelection is what the copy whose state row is row claims to hold.
// allowOtherHosts is AuditOptions.AllowOtherHosts.
func (r *ResolvedSource) CopySelection(row state.Source, allowOtherHosts bool) (*CopySelection, error) {
	return copySelectionOf(r.src, row, allowOtherHosts)
}

func copySelectionOf(src *source, row state.Source, allowOtherHosts bool) (*CopySelection, error) {
	sel, err := plan.NewSelection(row.Selection.Include, row.Selection.Exclude)
	if err != nil {
		return nil, fmt.Errorf("the stored selection: %w", err)
	}
	return &CopySelection{
		sel:        sel,
		outside:    outsideOf(src, row.Selection.Map, allowOtherHosts),
		chosenOnly: row.ID != 0 && row.Baseline.Kind == "",
	}, nil
}

// Excluded reports whether the copy's selection leaves uri out whether or
// not the copy holds it: outside the Source's authority, or left out by
// --include/--exclude.
func (c *CopySelection) Excluded(uri string) bool {
	return (c.outside != nil && c.outside(uri)) || !c.sel.Selected(uri)
}

// Claims reports whether the copy claims to hold uri; recorded tells that
// its state has a row of it.
func (c *CopySelection) Claims(uri string, recorded bool) bool {
	if c.Excluded(uri) {
		return false
	}
	return recorded || !c.chosenOnly
}
