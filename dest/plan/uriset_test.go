package plan

import (
	"context"
	"fmt"
	"testing"

	"rsx/dest/state"
)

func TestURISet(t *testing.T) {
	s := NewURISet([]string{u("a"), u("b"), u("a"), u("c/d")})
	if s.Len() != 3 {
		t.Errorf("Len = %d, want 3 (a URI given twice counts once)", s.Len())
	}
	for uri, want := range map[string]bool{u("a"): true, u("b"): true, u("c/d"): true, u("c"): false, u("A"): false, "": false} {
		if got := s.Has(uri); got != want {
			t.Errorf("Has(%q) = %v, want %v", uri, got, want)
		}
	}
	empty := NewURISet(nil)
	if empty.Has(u("a")) || empty.Len() != 0 {
		t.Error("an empty set holds something")
	}
	var all *URISet
	if !all.Has(u("anything")) || all.Len() != 0 {
		t.Error("a nil set must hold every URI (and count none)")
	}
}

func TestURISetLarge(t *testing.T) {
	uris := make([]string, 100000)
	for i := range uris {
		uris[i] = u(fmt.Sprintf("res/%07d", 2*i))
	}
	s := NewURISet(uris)
	for i := 0; i < 200000; i += 997 {
		if got, want := s.Has(u(fmt.Sprintf("res/%07d", i))), i%2 == 0; got != want {
			t.Fatalf("Has(res/%07d) = %v", i, got)
		}
	}
}

// TestSnapshotOnly: a plan limited to some resources plans those, deletes
// none of the others, and counts the entries it left out.
func TestSnapshotOnly(t *testing.T) {
	db, src := newState(t)
	put(t, db, src,
		state.Resource{URI: u("changed"), Length: 10, Digests: md5a},
		state.Resource{URI: u("kept-not-chosen"), Length: 10, Digests: md5a},
		state.Resource{URI: u("gone-chosen"), Length: 10},
		state.Resource{URI: u("gone-not-chosen"), Length: 10},
	)
	only := NewURISet([]string{u("changed"), u("new-chosen"), u("gone-chosen"), u("excluded/x")})
	sel, err := NewSelection(nil, []string{"/excluded/"})
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range views(t, db, src) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			snap, err := NewSnapshot(ctx, st, Options{Only: only, Selection: sel, Delete: true})
			if err != nil {
				t.Fatal(err)
			}
			var c collected
			for _, e := range []Entry{
				{URI: u("changed"), Length: 10, Digests: md5b},
				{URI: u("kept-not-chosen"), Length: 11, Digests: md5b},
				{URI: u("new-chosen"), Length: 3},
				{URI: u("new-not-chosen"), Length: 4},
				{URI: u("excluded/x"), Length: 5},
			} {
				if err := snap.Add(ctx, e, c.emit); err != nil {
					t.Fatal(err)
				}
			}
			sum, err := snap.Finish(ctx, c.emit)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]Action{u("changed"): Update, u("new-chosen"): Create, u("gone-chosen"): Delete}
			if len(c.items) != len(want) {
				t.Errorf("items %v, want %v", c.byURI, want)
			}
			for uri, act := range want {
				if got := c.byURI[uri].Action; got != act {
					t.Errorf("%s: %v, want %v", uri, got, act)
				}
			}
			if sum.NotChosen != 2 || sum.Excluded != 1 || sum.Create != 1 || sum.Update != 1 || sum.Delete != 1 {
				t.Errorf("summary %+v: want 2 not chosen, 1 excluded, 1 create, 1 update, 1 delete", sum)
			}
		})
	}
}

// TestChangesOnly: a plan of changes limited to some resources.
func TestChangesOnly(t *testing.T) {
	db, src := newState(t)
	put(t, db, src,
		state.Resource{URI: u("a"), Length: 1, Digests: md5a},
		state.Resource{URI: u("pending-not-chosen"), Length: 1, DeletedAt: t0(1)},
		state.Resource{URI: u("pending-chosen"), Length: 1, DeletedAt: t0(1)},
	)
	l := list{info: ListInfo{URL: u("cl.xml"), Kind: "changelist", From: t0(0), Until: t0(60)}, entries: []Entry{
		change("a", up, 10, 2),
		change("b", cr, 11, 3),
		change("c", cr, 12, 4),
	}}
	only := NewURISet([]string{u("a"), u("c"), u("pending-chosen")})
	c, sum, _ := runChanges(t, db.View(src.ID), t0(0), Options{Only: only, Delete: true}, l)
	if got, want := summarize(c), "update a 2; create c 4; delete pending-chosen -1; "; got != want {
		t.Errorf("items: %s\nwant:  %s", got, want)
	}
	if sum.NotChosen != 1 {
		t.Errorf("NotChosen = %d, want 1 (b)", sum.NotChosen)
	}
}

func TestDecide(t *testing.T) {
	db, src := newState(t)
	put(t, db, src, state.Resource{URI: u("x"), Length: 10, Digests: md5a})
	var known state.Known
	err := db.View(src.ID).Find(context.Background(), []string{u("x")}, func(_ int, k *state.Known) error { known = *k; return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		e    Entry
		act  Action
		want string
	}{
		{Entry{URI: u("x"), Length: 10, Digests: md5a}, Unchanged, "same digest"},
		{Entry{URI: u("x"), Length: 10, Digests: md5b}, Update, "md5 differs"},
		{Entry{URI: u("x"), Length: 12}, Update, "length 10 → 12"},
	} {
		act, why := Decide(&tc.e, &known)
		if act != tc.act || why != tc.want {
			t.Errorf("Decide(%+v) = %v %q, want %v %q", tc.e, act, why, tc.act, tc.want)
		}
	}
}
