package plan

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"rsx/dest/state"
	"rsx/model"
)

// change builds a change entry; minutes < 0 means no datetime.
func change(path string, c model.Change, minutes int, length int64) Entry {
	e := Entry{URI: u(path), Change: c, Length: length}
	if minutes >= 0 {
		e.Datetime = t0(minutes)
	}
	return e
}

const (
	cr = model.ChangeCreated
	up = model.ChangeUpdated
	de = model.ChangeDeleted
)

type list struct {
	info    ListInfo
	entries []Entry
}

// runChanges plans the lists against st and returns the items in emission
// order, the summary and each list's result.
func runChanges(t *testing.T, st State, since time.Time, opts Options, lists ...list) (*collected, Summary, []ListResult) {
	t.Helper()
	p := NewChanges(ChangesOptions{Options: opts, Since: since, TempDir: t.TempDir()})
	var results []ListResult
	for _, l := range lists {
		if err := p.BeginList(l.info); err != nil {
			t.Fatal(err)
		}
		for _, e := range l.entries {
			if err := p.Add(e); err != nil {
				t.Fatal(err)
			}
		}
		res, err := p.EndList()
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	var c collected
	sum, err := p.Finish(context.Background(), st, c.emit)
	if err != nil {
		t.Fatal(err)
	}
	return &c, sum, results
}

// summarize lists the items in URI order (the order in which Finish emits
// different resources does not matter).
func summarize(c *collected) string {
	var lines []string
	for _, it := range c.items {
		lines = append(lines, fmt.Sprintf("%s %s %d; ", it.Action, strings.TrimPrefix(it.Entry.URI, "http://example.org/"), it.Entry.Length))
	}
	sort.Slice(lines, func(i, j int) bool { return strings.Fields(lines[i])[1] < strings.Fields(lines[j])[1] })
	return strings.Join(lines, "")
}

func TestChanges(t *testing.T) {
	closed := ListInfo{URL: u("cl1.xml"), Kind: "changelist", From: t0(0), Until: t0(60)}
	open := ListInfo{URL: u("cl2.xml"), Kind: "changelist", From: t0(60)}
	known := []state.Resource{
		{URI: u("known"), Length: 1, Digests: md5a},
		{URI: u("known2"), Length: 1, Digests: md5a},
		{URI: u("applied"), Length: 1, ChangeDatetime: t0(30)},
		{URI: u("same-digest"), Length: 4, Digests: md5b},
		{URI: u("pending"), Length: 1, DeletedAt: t0(-10)},
		{URI: u("pending-excluded/x"), Length: 1, DeletedAt: t0(-10)},
		{URI: u("pending-recreated"), Length: 1, DeletedAt: t0(-10)},
		{URI: u("excluded/k"), Length: 1},
	}
	sel, _ := NewSelection(nil, []string{"excluded/"})
	tests := []struct {
		name   string
		since  time.Time
		delete bool
		lists  []list
		want   string
		check  func(t *testing.T, c *collected, sum Summary, res []ListResult)
	}{
		{
			name:  "several changes collapse to the last",
			lists: []list{{closed, []Entry{change("a", cr, 1, 1), change("a", up, 2, 2), change("a", up, 3, 3), change("known", up, 4, 9)}}},
			want:  "create a 3; update known 9; ",
			check: func(t *testing.T, c *collected, sum Summary, _ []ListResult) {
				if it := c.byURI[u("a")]; it.Entry.Change != up || !it.Entry.Datetime.Equal(t0(3)) || it.Reason != "updated at 2013-01-03T00:03:00Z" {
					t.Errorf("collapsed item %+v", it)
				}
				if sum.Create != 1 || sum.Update != 1 || sum.Bytes != 12 {
					t.Errorf("summary %+v", sum)
				}
			},
		},
		{
			name:  "created then deleted in the window leaves nothing",
			lists: []list{{closed, []Entry{change("b", cr, 1, 1), change("b", up, 2, 1), change("b", de, 3, -1)}}},
			want:  "",
			check: func(t *testing.T, _ *collected, sum Summary, _ []ListResult) {
				// The two deletions counted are those remembered from earlier runs.
				if sum.Vanished != 1 || sum.Create+sum.Delete != 0 || sum.PendingDelete != 2 {
					t.Errorf("summary %+v", sum)
				}
			},
		},
		{
			name:  "deleted then created again",
			lists: []list{{closed, []Entry{change("known", de, 1, -1), change("known", cr, 2, 5)}}},
			want:  "update known 5; ",
		},
		{
			name:  "deletion without --delete is pending",
			lists: []list{{closed, []Entry{change("known", de, 1, -1)}}},
			want:  "pending-delete known -1; ",
			check: func(t *testing.T, c *collected, sum Summary, _ []ListResult) {
				// The remembered pending deletions are counted, not emitted again.
				if sum.PendingDelete != 3 || c.byURI[u("known")].ID == 0 {
					t.Errorf("summary %+v, item %+v", sum, c.byURI[u("known")])
				}
			},
		},
		{
			name:   "deletion with --delete, and those remembered",
			delete: true,
			lists:  []list{{closed, []Entry{change("known", de, 1, -1), change("pending-recreated", cr, 2, 8)}}},
			want:   "delete known -1; delete pending -1; update pending-recreated 8; ",
			check: func(t *testing.T, c *collected, sum Summary, _ []ListResult) {
				if r := c.byURI[u("pending-recreated")].Reason; r != "created again after its deletion at 2013-01-03T00:02:00Z" {
					t.Errorf("reason %q", r)
				}
				if sum.Delete != 2 || sum.Excluded != 1 {
					t.Errorf("summary %+v", sum)
				}
			},
		},
		{
			name:  "out of order: ordered by datetime, with a warning",
			lists: []list{{closed, []Entry{change("c", up, 20, 2), change("d", cr, 5, 1), change("c", cr, 10, 1), change("d", de, 3, -1)}}},
			want:  "create c 2; create d 1; ",
			check: func(t *testing.T, _ *collected, sum Summary, res []ListResult) {
				if res[0].OutOfOrder != 3 || len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "3 of its 4 changes are not in forward chronological order") {
					t.Errorf("out of order %d, warnings %q", res[0].OutOfOrder, sum.Warnings)
				}
			},
		},
		{
			name: "no datetimes: by position, across lists",
			lists: []list{
				{closed, []Entry{change("e", cr, -1, 1), change("f", cr, -1, 1), change("e", up, -1, 2)}},
				{open, []Entry{change("f", up, -1, 3), change("e", de, -1, -1), change("e", cr, -1, 4)}},
			},
			want: "create e 4; create f 3; ",
		},
		{
			name:  "a change without a datetime follows the one before it",
			lists: []list{{closed, []Entry{change("g", up, 30, 1), change("g", up, -1, 2), change("h", up, 20, 5)}}},
			want:  "create g 2; create h 5; ",
		},
		{
			name:  "changes before the copy's point are skipped",
			since: t0(60),
			lists: []list{
				{closed, []Entry{change("i", cr, 10, 1), change("j", cr, -1, 1)}},
				{open, []Entry{change("i", up, 60, 2), change("k", cr, 61, 1), change("l", cr, -1, 1)}},
			},
			want: "create i 2; create k 1; create l 1; ",
			check: func(t *testing.T, _ *collected, sum Summary, res []ListResult) {
				if sum.Skipped != 2 || res[0].Skipped != 2 || res[1].Skipped != 0 {
					t.Errorf("skipped %d (%d, %d)", sum.Skipped, res[0].Skipped, res[1].Skipped)
				}
			},
		},
		{
			name:  "a change already applied to the resource",
			lists: []list{{closed, []Entry{change("applied", up, 30, 2)}}, {open, []Entry{change("known2", up, 61, 1)}}},
			want:  "unchanged applied 2; update known2 1; ",
		},
		{
			name:  "the copy already has the change's bytes",
			lists: []list{{closed, []Entry{{URI: u("same-digest"), Change: up, Length: 4, Digests: md5b, Datetime: t0(5)}}}},
			want:  "unchanged same-digest 4; ",
			check: func(t *testing.T, c *collected, _ Summary, _ []ListResult) {
				if !c.items[0].Touch {
					t.Error("no Touch")
				}
			},
		},
		{
			name:  "selection",
			lists: []list{{closed, []Entry{change("excluded/m", cr, 1, 1), change("excluded/k", de, 2, -1), change("n", cr, 3, 1)}}},
			want:  "create n 1; ",
			check: func(t *testing.T, _ *collected, sum Summary, _ []ListResult) {
				if sum.Excluded != 3 {
					t.Errorf("excluded %d", sum.Excluded)
				}
			},
		},
		{
			// Each resource the selection leaves out counts once, not once
			// per change (the dry run said 2817 excluded of 2,012).
			name: "a resource left out counts once, however often it changed",
			lists: []list{
				{closed, []Entry{change("excluded/m", cr, 1, 1), change("excluded/m", up, 2, 2), change("excluded/k", up, 3, 1)}},
				{open, []Entry{change("excluded/m", up, 61, 3), change("excluded/k", de, 62, -1)}},
			},
			want: "",
			check: func(t *testing.T, _ *collected, sum Summary, _ []ListResult) {
				if sum.Excluded != 3 { // excluded/m, excluded/k, pending-excluded/x
					t.Errorf("excluded %d, want 3", sum.Excluded)
				}
			},
		},
	}
	db, src := newState(t)
	put(t, db, src, known...)
	for name, st := range views(t, db, src) {
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				c, sum, res := runChanges(t, st, tc.since, Options{Selection: sel, Delete: tc.delete}, tc.lists...)
				if got := summarize(c); got != tc.want {
					t.Errorf("items: %s\nwant:  %s", got, tc.want)
				}
				if tc.check != nil {
					tc.check(t, c, sum, res)
				}
			})
		}
	}
}

func TestChangesResumeOpenList(t *testing.T) {
	db, src := newState(t)
	st := db.View(src.ID)
	first := []Entry{change("a", cr, 1, 1), change("b", cr, 2, 1), change("c", cr, 3, 1)}
	info := ListInfo{URL: u("changelist.xml"), Kind: "changelist", From: t0(0)}
	_, _, res := runChanges(t, st, time.Time{}, Options{}, list{info, first})
	rec := res[0].Record
	if rec.Complete || rec.Last.Position != 2 || rec.Last.URI != u("c") || !rec.Last.Datetime.Equal(t0(3)) || rec.URL != info.URL || rec.Kind != "changelist" {
		t.Fatalf("record %+v", rec)
	}

	// The list grew: only the new changes are planned.
	grown := append(append([]Entry{}, first...), change("a", up, 4, 2), change("d", cr, 5, 1))
	info.Previous = &rec
	c, sum, res := runChanges(t, st, time.Time{}, Options{}, list{info, grown})
	if got := summarize(c); got != "create a 2; create d 1; " || sum.Skipped != 3 || res[0].Skipped != 3 || len(sum.Warnings) != 0 {
		t.Errorf("grown list: %s skipped %d warnings %q", got, sum.Skipped, sum.Warnings)
	}

	// The list was rewritten: everything is planned again, with a warning.
	rewritten := []Entry{change("x", cr, 1, 1), change("b", cr, 2, 1), change("y", cr, 3, 1), change("z", cr, 4, 1)}
	c, sum, _ = runChanges(t, st, time.Time{}, Options{}, list{info, rewritten})
	if got := summarize(c); got != "create b 1; create x 1; create y 1; create z 1; " || len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "no longer has the change processed last at position 3") {
		t.Errorf("rewritten list: %s warnings %q", got, sum.Warnings)
	}

	// The list is shorter than the cursor.
	c, sum, _ = runChanges(t, st, time.Time{}, Options{}, list{info, first[:2]})
	if got := summarize(c); got != "create a 1; create b 1; " || len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "is shorter than when it was processed") {
		t.Errorf("shorter list: %s warnings %q", got, sum.Warnings)
	}

	// A closed list records Complete.
	info = ListInfo{URL: u("cl-closed.xml"), Kind: "changedump", From: t0(0), Until: t0(10)}
	_, _, res = runChanges(t, st, time.Time{}, Options{}, list{info, first})
	if !res[0].Record.Complete || !res[0].Record.Until.Equal(t0(10)) || res[0].Entries != 3 {
		t.Errorf("closed list result %+v", res[0])
	}
}

func TestChangesMisuse(t *testing.T) {
	p := NewChanges(ChangesOptions{TempDir: t.TempDir()})
	if err := p.Add(change("a", cr, 1, 1)); err == nil {
		t.Error("Add before BeginList")
	}
	if _, err := p.EndList(); err == nil {
		t.Error("EndList before BeginList")
	}
	if err := p.BeginList(ListInfo{URL: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := p.BeginList(ListInfo{URL: "b"}); err == nil {
		t.Error("BeginList twice")
	}
	db, src := newState(t)
	if _, err := p.Finish(context.Background(), db.View(src.ID), func(Item) error { return nil }); err == nil {
		t.Error("Finish with a list open")
	}
}

func TestChangesSpool(t *testing.T) {
	db, src := newState(t)
	dir := t.TempDir()
	p := NewChanges(ChangesOptions{TempDir: dir})
	p.BeginList(ListInfo{URL: u("cl.xml"), Kind: "changelist"})
	big := Entry{URI: u("a"), Change: cr, Length: 5, Digests: md5a + " " + sha1, Ref: "http://example.org/p.zip#/a", Lastmod: t0(1), Datetime: t0(2)}
	if err := p.Add(big); err != nil {
		t.Fatal(err)
	}
	p.EndList()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("spool files: %v", entries)
	}
	var c collected
	if _, err := p.Finish(context.Background(), db.View(src.ID), c.emit); err != nil {
		t.Fatal(err)
	}
	if len(c.items) != 1 || fmt.Sprint(c.items[0].Entry) != fmt.Sprint(big) {
		t.Errorf("read back %+v\nwant %+v", c.items, big)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("spool left after Finish: %v", entries)
	}

	// A spool that cannot be written is an error, not a lost change.
	p = NewChanges(ChangesOptions{TempDir: dir + "/missing"})
	p.BeginList(ListInfo{URL: u("cl.xml"), Kind: "changelist"})
	if err := p.Add(big); err == nil || !strings.Contains(err.Error(), "spool") {
		t.Errorf("Add with no spool: %v", err)
	}
	if _, err := p.Finish(context.Background(), db.View(src.ID), c.emit); err == nil {
		t.Error("Finish with a failed spool")
	}
	// Close removes the spool of a plan given up.
	p = NewChanges(ChangesOptions{TempDir: dir})
	p.BeginList(ListInfo{URL: u("cl.xml"), Kind: "changelist"})
	p.Add(big)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("spool left after Close: %v", entries)
	}
}

func TestFindGap(t *testing.T) {
	l := func(from, until int) ListInfo {
		i := ListInfo{From: t0(from)}
		if until >= 0 {
			i.Until = t0(until)
		}
		return i
	}
	tests := []struct {
		name  string
		point int
		lists []ListInfo
		want  string
	}{
		{"no lists", 10, nil, "no Change List covers the changes since 2013-01-03T00:10:00Z"},
		{"covered by an open list", 10, []ListInfo{l(0, -1)}, ""},
		{"closed lists then an open one", 10, []ListInfo{l(0, 20), l(20, 40), l(40, -1)}, ""},
		{"unordered index", 10, []ListInfo{l(40, -1), l(0, 20), l(20, 40)}, ""},
		{"lists start after the point", 10, []ListInfo{l(30, 40), l(40, -1)}, "no Change List covers the changes from 2013-01-03T00:10:00Z to 2013-01-03T00:30:00Z"},
		{"a hole between lists", 10, []ListInfo{l(0, 20), l(25, -1)}, "no Change List covers the changes from 2013-01-03T00:20:00Z to 2013-01-03T00:25:00Z"},
		{"old lists before the point are ignored", 50, []ListInfo{l(0, 20), l(40, -1)}, ""},
		{"closed lists only", 10, []ListInfo{l(0, 20)}, ""},
	}
	for _, tc := range tests {
		g := FindGap(t0(tc.point), tc.lists)
		got := ""
		if g != nil {
			got = g.String()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// OnlyAdded (a notification's changes): Finish decides the changes added and
// leaves the deletions remembered by earlier runs alone, with --delete too.
func TestChangesOnlyAdded(t *testing.T) {
	db, src := newState(t)
	put(t, db, src,
		state.Resource{URI: u("known"), Length: 1, Digests: md5a, ChangeDatetime: t0(10)},
		state.Resource{URI: u("pending"), Length: 1, DeletedAt: t0(-10)})
	for name, st := range views(t, db, src) {
		for _, del := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s delete %v", name, del), func(t *testing.T) {
				p := NewChanges(ChangesOptions{Options: Options{Delete: del}, TempDir: t.TempDir(), OnlyAdded: true})
				if err := p.BeginList(ListInfo{URL: "ws://example.org/channel", Kind: "notification"}); err != nil {
					t.Fatal(err)
				}
				for _, e := range []Entry{change("known", up, 5, 2), change("new", cr, 20, 3)} { // the first is older than the copy's
					if err := p.Add(e); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := p.EndList(); err != nil {
					t.Fatal(err)
				}
				var c collected
				sum, err := p.Finish(context.Background(), st, c.emit)
				if err != nil {
					t.Fatal(err)
				}
				if got := summarize(&c); got != "unchanged known 2; create new 3; " || sum.PendingDelete != 0 || sum.Delete != 0 || sum.Unchanged != 1 {
					t.Errorf("items %q, summary %+v", got, sum)
				}
			})
		}
	}
}
