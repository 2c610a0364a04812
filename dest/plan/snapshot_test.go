package plan

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"rsx/dest/state"
	"rsx/model"
)

const (
	md5a = "md5:1584abdf8ebdc9802ac0c6a7402c03b6"
	md5b = "md5:1e0d5cb8ef6ba40c99b14c0237be735e"
	sha1 = "sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784"
)

func TestSnapshotDecisions(t *testing.T) {
	db, src := newState(t)
	put(t, db, src,
		state.Resource{URI: u("same-digest"), Length: 10, Digests: md5a, Lastmod: t0(1)},
		state.Resource{URI: u("new-digest"), Length: 10, Digests: md5a},
		state.Resource{URI: u("new-length"), Length: 10, Digests: md5a},
		state.Resource{URI: u("digest-touch"), Length: 10, Digests: md5a, Lastmod: t0(1)},
		state.Resource{URI: u("same-lastmod"), Length: 10, Lastmod: t0(1)},
		state.Resource{URI: u("newer-lastmod"), Length: 10, Lastmod: t0(1)},
		state.Resource{URI: u("older-lastmod"), Length: 10, Lastmod: t0(5)},
		state.Resource{URI: u("no-lastmod-recorded"), Length: 10},
		state.Resource{URI: u("nothing-to-compare"), Length: 10},
		state.Resource{URI: u("other-algorithm"), Length: 10, Digests: md5a, Lastmod: t0(1)},
		state.Resource{URI: u("two-algorithms"), Length: 10, Digests: md5a + " " + sha1},
		state.Resource{URI: u("pending"), Length: 10, Digests: md5a, DeletedAt: t0(2)},
		state.Resource{URI: u("gone"), Length: 10},
		state.Resource{URI: u("gone-excluded/x"), Length: 10},
	)
	entries := []Entry{
		{URI: u("same-digest"), Length: 10, Digests: md5a, Lastmod: t0(1)},
		{URI: u("new-digest"), Length: 10, Digests: md5b},
		{URI: u("new-length"), Length: 11, Digests: md5a},
		{URI: u("digest-touch"), Length: 10, Digests: md5a, Lastmod: t0(2)},
		{URI: u("same-lastmod"), Length: -1, Lastmod: t0(1)},
		{URI: u("newer-lastmod"), Length: 10, Lastmod: t0(2)},
		{URI: u("older-lastmod"), Length: 10, Lastmod: t0(1)},
		{URI: u("no-lastmod-recorded"), Length: 10, Lastmod: t0(1)},
		{URI: u("nothing-to-compare"), Length: 10},
		{URI: u("other-algorithm"), Length: 10, Digests: sha1, Lastmod: t0(1)},
		{URI: u("two-algorithms"), Length: 10, Digests: state.Digests(sha1)},
		{URI: u("pending"), Length: 10, Digests: md5a},
		{URI: u("new"), Length: 7},
		{URI: u("new-unknown-length"), Length: -1},
		{URI: u("excluded/y"), Length: 3},
	}
	want := map[string]struct {
		act    Action
		reason string
		touch  bool
	}{
		u("same-digest"):         {Unchanged, "same digest", false},
		u("new-digest"):          {Update, "md5 differs", false},
		u("new-length"):          {Update, "length 10 → 11", false},
		u("digest-touch"):        {Unchanged, "same digest, new lastmod", true},
		u("same-lastmod"):        {Unchanged, "same lastmod", false},
		u("newer-lastmod"):       {Update, "lastmod 2013-01-03T00:01:00Z → 2013-01-03T00:02:00Z", false},
		u("older-lastmod"):       {Update, "lastmod 2013-01-03T00:05:00Z → 2013-01-03T00:01:00Z", false},
		u("no-lastmod-recorded"): {Update, "lastmod 2013-01-03T00:01:00Z, none recorded", false},
		u("nothing-to-compare"):  {Update, "no digest or lastmod to compare", false},
		u("other-algorithm"):     {Unchanged, "same lastmod", false},
		u("two-algorithms"):      {Unchanged, "same digest", false},
		u("pending"):             {Update, "listed again after its deletion", false},
		u("new"):                 {Create, "new", false},
		u("new-unknown-length"):  {Create, "new", false},
		u("gone"):                {PendingDelete, "not listed any more", false},
	}
	sel, err := NewSelection(nil, []string{"/(gone-)?excluded/"})
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range views(t, db, src) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			p, err := NewSnapshot(ctx, st, Options{Selection: sel})
			if err != nil {
				t.Fatal(err)
			}
			var c collected
			for _, e := range entries {
				if err := p.Add(ctx, e, c.emit); err != nil {
					t.Fatal(err)
				}
			}
			sum, err := p.Finish(ctx, c.emit)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.items) != len(want) {
				t.Errorf("%d items, want %d", len(c.items), len(want))
			}
			for uri, w := range want {
				it, ok := c.byURI[uri]
				if !ok {
					t.Errorf("%s: no item", uri)
					continue
				}
				if it.Action != w.act || it.Reason != w.reason || it.Touch != w.touch {
					t.Errorf("%s: %v %q touch=%v, want %v %q touch=%v", uri, it.Action, it.Reason, it.Touch, w.act, w.reason, w.touch)
				}
				if (it.Action == Create) != (it.ID == 0) {
					t.Errorf("%s: %v with id %d", uri, it.Action, it.ID)
				}
			}
			wantSum := Summary{Create: 2, Update: 7, PendingDelete: 1, Unchanged: 5, Excluded: 2, Bytes: 7 + 10 + 11 + 10 + 10 + 10 + 10 + 10, UnknownBytes: 1}
			if fmt.Sprint(sum) != fmt.Sprint(wantSum) {
				t.Errorf("summary %+v, want %+v", sum, wantSum)
			}
		})
	}
}

func TestSnapshotDeleteAndDuplicates(t *testing.T) {
	db, src := newState(t)
	var rows []state.Resource
	for i := 0; i < 1200; i++ {
		rows = append(rows, state.Resource{URI: u(fmt.Sprintf("r/%04d", i)), Length: 5, Digests: md5a})
	}
	put(t, db, src, rows...)
	for name, st := range views(t, db, src) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			p, err := NewSnapshot(ctx, st, Options{Delete: true})
			if err != nil {
				t.Fatal(err)
			}
			var c collected
			add := func(e Entry) {
				if err := p.Add(ctx, e, c.emit); err != nil {
					t.Fatal(err)
				}
			}
			// Every other row is listed (across three batches); some twice, and
			// a new URI twice, inside a batch and across batches.
			for i := 0; i < 1200; i += 2 {
				add(Entry{URI: u(fmt.Sprintf("r/%04d", i)), Length: 5, Digests: md5a})
				if i%400 == 0 {
					add(Entry{URI: u(fmt.Sprintf("r/%04d", i)), Length: 6, Digests: md5b})
				}
			}
			add(Entry{URI: u("fresh"), Length: 1})
			add(Entry{URI: u("fresh"), Length: 2})
			for i := 0; i < 600; i++ {
				add(Entry{URI: u(fmt.Sprintf("pad/%d", i)), Length: 1})
			}
			add(Entry{URI: u("fresh"), Length: 3})
			sum, err := p.Finish(ctx, c.emit)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Unchanged != 600 || sum.Delete != 600 || sum.Create != 601 || sum.Update != 0 {
				t.Errorf("summary %+v", sum)
			}
			if it := c.byURI[u("fresh")]; it.Entry.Length != 1 {
				t.Errorf("the first entry of a URI listed twice should win: %+v", it)
			}
			if it := c.byURI[u("r/0001")]; it.Action != Delete || it.ID == 0 {
				t.Errorf("unlisted row: %+v", it)
			}
			if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "5 entries list a URI listed before") {
				t.Errorf("warnings %q", sum.Warnings)
			}
		})
	}
}

// TestSnapshotWhileRecording: an engine records resources while the plan
// streams; a URI listed again after its row was recorded is still a duplicate.
func TestSnapshotWhileRecording(t *testing.T) {
	ctx := context.Background()
	db, src := newState(t)
	put(t, db, src, state.Resource{URI: u("old"), Length: 1, Digests: md5a})
	p, err := NewSnapshot(ctx, db.View(src.ID), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var c collected
	p.Add(ctx, Entry{URI: u("new"), Length: 1}, c.emit)
	p.Add(ctx, Entry{URI: u("old"), Length: 1, Digests: md5a}, c.emit)
	// The batch is decided at Finish; make it decide now with a full batch.
	for i := 0; i < 498; i++ {
		p.Add(ctx, Entry{URI: u(fmt.Sprint("pad/", i)), Length: 1}, c.emit)
	}
	if len(c.items) != 500 {
		t.Fatalf("%d items after a full batch", len(c.items))
	}
	put(t, db, src, state.Resource{URI: u("new"), Length: 1}) // the engine recorded it
	p.Add(ctx, Entry{URI: u("new"), Length: 1}, c.emit)
	p.Add(ctx, Entry{URI: u("old"), Length: 1, Digests: md5a}, c.emit)
	sum, err := p.Finish(ctx, c.emit)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.items) != 500 || len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "2 entries list a URI listed before") {
		t.Errorf("%d items, warnings %q", len(c.items), sum.Warnings)
	}
}

// TestSnapshotExcludedOnce: a resource the selection leaves out is counted
// once, also when the copy holds it (its row, unseen by the listed entries,
// is read again at Finish) and when two parts of an index list it. The
// --include dry run over a copy said "3819 excluded" of 2,010 resources.
func TestSnapshotExcludedOnce(t *testing.T) {
	db, src := newState(t)
	var rows []state.Resource
	for i := 0; i < 600; i++ {
		rows = append(rows, state.Resource{URI: u(fmt.Sprintf("r/%04d", i)), Length: 5, Digests: md5a})
	}
	rows = append(rows, state.Resource{URI: u("gone/x"), Length: 5, Digests: md5a}) // held, listed no more
	put(t, db, src, rows...)
	sel, err := NewSelection([]string{`/r/000`}, nil) // r/0000 … r/0009
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range views(t, db, src) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			p, err := NewSnapshot(ctx, st, Options{Selection: sel})
			if err != nil {
				t.Fatal(err)
			}
			var c collected
			for i := 0; i < 600; i++ {
				e := Entry{URI: u(fmt.Sprintf("r/%04d", i)), Length: 5, Digests: md5a}
				if err := p.Add(ctx, e, c.emit); err != nil {
					t.Fatal(err)
				}
				if i%100 == 50 { // listed again by another part
					if err := p.Add(ctx, e, c.emit); err != nil {
						t.Fatal(err)
					}
				}
			}
			sum, err := p.Finish(ctx, c.emit)
			if err != nil {
				t.Fatal(err)
			}
			// 590 listed and left out, and gone/x, which the copy holds
			// outside the selection.
			if sum.Excluded != 591 || sum.Unchanged != 10 {
				t.Errorf("excluded %d, unchanged %d; want 591 and 10", sum.Excluded, sum.Unchanged)
			}
		})
	}
}

func TestSnapshotSelection(t *testing.T) {
	sel, err := NewSelection([]string{`\.pdf$`, `/keep/`}, []string{`/keep/not`})
	if err != nil {
		t.Fatal(err)
	}
	for uri, want := range map[string]bool{
		u("a.pdf"):         true,
		u("a.html"):        false,
		u("keep/x.html"):   true,
		u("keep/not/x"):    false,
		u("keep/not.pdf"):  false,
		u("other/keep.pd"): false,
	} {
		if got := sel.Selected(uri); got != want {
			t.Errorf("Selected(%q) = %v", uri, got)
		}
	}
	if _, err := NewSelection([]string{"("}, nil); err == nil || !strings.Contains(err.Error(), "--include") {
		t.Errorf("bad include: %v", err)
	}
	if _, err := NewSelection(nil, []string{"[z-a]"}); err == nil || !strings.Contains(err.Error(), `--exclude "[z-a]" is not a regular expression (RE2 syntax): invalid character class range at "z-a"`) {
		t.Errorf("bad exclude: %v", err)
	}
	var none *Selection
	if !none.Selected("anything") {
		t.Error("a nil selection leaves something out")
	}
}

func TestEntryOf(t *testing.T) {
	doc, err := model.Parse(strings.NewReader(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>
<url><loc>http://example.com/res1</loc><lastmod>2013-01-02T13:00:00Z</lastmod>
<rs:md change="updated" datetime="2013-01-03T13:00:00+01:00" hash="SHA-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784 md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="8876" type="text/html"/></url>
<url><loc>http://example.com/res2</loc><rs:md change="deleted"/></url>
</urlset>`))
	if err != nil {
		t.Fatal(err)
	}
	e := EntryOf(&doc.Entries[0])
	if e.URI != "http://example.com/res1" || e.Length != 8876 || e.Change != model.ChangeUpdated || e.Type != "text/html" ||
		e.Digests != md5a+" "+sha1 || !e.Lastmod.Equal(t0(13*60).Add(-24*60*60e9)) || !e.Datetime.Equal(t0(12*60)) {
		t.Errorf("EntryOf = %+v", e)
	}
	e = EntryOf(&doc.Entries[1])
	if e.Length != -1 || e.Digests != "" || !e.Lastmod.IsZero() || !e.Datetime.IsZero() || e.Change != model.ChangeDeleted {
		t.Errorf("EntryOf = %+v", e)
	}
}

// TestSnapshotDuplicatesPastTheSpill: past 65,536 new URIs the set of their
// hashes moves to a file in Options.TempDir; a URI listed again is still
// told, whether its first listing is in the file or in memory, the plan is
// the same, and Close removes the file.
func TestSnapshotDuplicatesPastTheSpill(t *testing.T) {
	if testing.Short() {
		t.Skip("plans 70,000 resources")
	}
	ctx := context.Background()
	db, src := newState(t)
	dir := t.TempDir()
	p, err := NewSnapshot(ctx, db.View(src.ID), Options{TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	emit := func(it Item) error {
		n++
		if it.Action != Create {
			t.Errorf("%s: %s", it.Entry.URI, it.Action)
		}
		if it.Entry.Length != 1 {
			t.Errorf("%s: the entry listed again won", it.Entry.URI)
		}
		return nil
	}
	const total = 70_000
	for i := range total {
		if err := p.Add(ctx, Entry{URI: u(fmt.Sprintf("r/%d", i)), Length: 1}, emit); err != nil {
			t.Fatal(err)
		}
		if i == 69_000 {
			// Again: one in the file, one in memory, one twice in a batch.
			for _, again := range []string{"r/3", "r/68990", "r/69000"} {
				if err := p.Add(ctx, Entry{URI: u(again), Length: 2}, emit); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "rsx-new-uris-*")); len(matches) == 0 {
		t.Error("the new URIs did not move to a file")
	}
	sum, err := p.Finish(ctx, emit)
	if err != nil {
		t.Fatal(err)
	}
	if n != total || sum.Create != total {
		t.Errorf("%d items, %d creates; want %d", n, sum.Create, total)
	}
	if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "3 entries list a URI listed before (the first: "+u("r/3")+")") {
		t.Errorf("warnings %q", sum.Warnings)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}

// eachIDCounter is a View that counts its walks of every id.
type eachIDCounter struct {
	*state.View
	walks int
}

func (c *eachIDCounter) EachID(ctx context.Context, fn func(int64) error) error {
	c.walks++
	return c.View.EachID(ctx, fn)
}

// A snapshot that listed every row of a View (some twice, with new URIs
// and rows recorded since beside them) knows it by counting them: Finish
// walks no id and deletes nothing. One row unlisted, or left out by the
// selection, and the walk finds it as before.
func TestSnapshotAllListedWalksNoIDs(t *testing.T) {
	db, src := newState(t)
	var rows []state.Resource
	for i := range 1500 {
		rows = append(rows, state.Resource{URI: u(fmt.Sprintf("r/%04d", i)), Length: 5, Digests: md5a})
	}
	put(t, db, src, rows...)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		skip     int    // a row not listed (-1: none)
		excluded string // a selection's exclusion
		walks    int
		deletes  int
	}{
		{"every row", -1, "", 0, 0},
		{"one row unlisted", 777, "", 1, 1},
		{"one row excluded", -1, "r/0042", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &eachIDCounter{View: db.View(src.ID)}
			opts := Options{Delete: true}
			if tc.excluded != "" {
				sel, err := NewSelection(nil, []string{tc.excluded})
				if err != nil {
					t.Fatal(err)
				}
				opts.Selection = sel
			}
			p, err := NewSnapshot(ctx, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			// A row recorded after the plan began, listed too.
			put(t, db, src, state.Resource{URI: u("later"), Length: 1})
			var c collected
			for i := range 1500 {
				if i == tc.skip {
					continue
				}
				for range 1 + i%700/699 { // a few twice
					if err := p.Add(ctx, Entry{URI: u(fmt.Sprintf("r/%04d", i)), Length: 5, Digests: md5a}, c.emit); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, e := range []Entry{{URI: u("later"), Length: 1}, {URI: u("new"), Length: 2}} {
				if err := p.Add(ctx, e, c.emit); err != nil {
					t.Fatal(err)
				}
			}
			sum, err := p.Finish(ctx, c.emit)
			if err != nil {
				t.Fatal(err)
			}
			if st.walks != tc.walks || sum.Delete != tc.deletes {
				t.Errorf("%d walks of the ids, %d deleted; want %d, %d (summary %+v)", st.walks, sum.Delete, tc.walks, tc.deletes, sum)
			}
			if tc.skip >= 0 {
				if it := c.byURI[u(fmt.Sprintf("r/%04d", tc.skip))]; it.Action != Delete {
					t.Errorf("the unlisted row: %+v", it)
				}
			}
		})
	}
}
