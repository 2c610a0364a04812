package state

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"
)

// inRanges runs test as the Index is loaded: whole, and in id ranges read
// at once.
func inRanges(t *testing.T, test func(t *testing.T)) {
	t.Run("whole", test)
	t.Run("ranges", func(t *testing.T) {
		defer func(n int) { minIndexRange = n }(minIndexRange)
		minIndexRange = 100
		test(t)
	})
}

// TestIndexAgreesWithView looks every row up through both and compares.
func TestIndexAgreesWithView(t *testing.T) { inRanges(t, testIndexAgreesWithView) }

// TestIndexBucketedAgreesWithView: the same, the Index's rows found through
// the buckets of their keys (most of them empty at this size).
func TestIndexBucketedAgreesWithView(t *testing.T) {
	defer func(n int) { minBucketed = n }(minBucketed)
	minBucketed = 1
	inRanges(t, testIndexAgreesWithView)
}

func testIndexAgreesWithView(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	w := db.NewWriter(WriterOptions{})
	var uris []string
	for i := 0; i < 1100; i++ {
		r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://example.org/%d", i), Path: fmt.Sprintf("p/%d", i), Length: int64(i%7) - 1}
		switch i % 5 {
		case 0:
			r.Digests = Digests(fmt.Sprintf("md5:%032x", i))
		case 1:
			r.Digests = Digests(fmt.Sprintf("md5:%032x sha-1:%040x sha-256:%064x x-custom:%04x", i, i, i, i))
		case 2:
			r.Lastmod = time.Date(1500+i, 1, 2, 3, 4, 5, i, time.UTC) // also outside UnixNano's range
			r.ChangeDatetime = time.Date(2013, 1, 1, 0, 0, i, 0, time.UTC)
		case 3:
			r.DeletedAt = time.Now()
		}
		w.PutResource(ctx, &r)
		uris = append(uris, r.URI)
	}
	w.Close(ctx)
	uris = append(uris, "http://example.org/none", uris[3])
	idx, err := db.LoadIndex(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	if idx.Len() != 1100 {
		t.Fatalf("index holds %d rows", idx.Len())
	}
	// One key made to clash: looked up in the database instead.
	idx.clashes[idx.key(uris[6])] = true

	type seen struct {
		id, length   int64
		lastmod, cdt time.Time
		pending      bool
		shared       int
		differ       string
		sharedSelf   int
	}
	collect := func(st interface {
		Find(context.Context, []string, func(int, *Known) error) error
	}) map[int]seen {
		out := map[int]seen{}
		err := st.Find(ctx, uris, func(i int, k *Known) error {
			probe := Digests(fmt.Sprintf("md5:%032x sha-256:%064x", i, i+1))
			shared, differ := k.CompareDigests(probe)
			self := 0
			if i < 1100 {
				r, _ := db.Resource(ctx, src.ID, uris[i])
				self, _ = k.CompareDigests(r.Digests)
			}
			out[i] = seen{k.ID, k.Length, k.Lastmod, k.ChangeDatetime, k.Pending, shared, fmt.Sprint(differ), self}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	fromView, fromIndex := collect(db.View(src.ID)), collect(idx)
	if len(fromView) != 1101 || len(fromIndex) != 1101 {
		t.Fatalf("found %d by the view, %d by the index; want 1101 (a URI given twice is found twice)", len(fromView), len(fromIndex))
	}
	for i, v := range fromView {
		x := fromIndex[i]
		if v.id != x.id || v.length != x.length || !v.lastmod.Equal(x.lastmod) || !v.cdt.Equal(x.cdt) || v.pending != x.pending ||
			v.shared != x.shared || v.differ != x.differ || v.sharedSelf != x.sharedSelf {
			t.Errorf("%s: view %+v, index %+v", uris[i], v, x)
		}
	}
	if max, _ := idx.MaxID(ctx); max != 1100 {
		t.Errorf("MaxID %d", max)
	}
}

func TestFindPaths(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	a, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	b, _ := db.EnsureSource(ctx, "http://example.net/cap.xml")
	w := db.NewWriter(WriterOptions{})
	for i := 0; i < 1200; i++ {
		src := a
		if i%3 == 0 {
			src = b
		}
		r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://h/%d", i), Path: fmt.Sprintf("h/%d", i)}
		w.PutResource(ctx, &r)
	}
	w.Close(ctx)
	// More than a batch, of both Sources, a path given twice, and paths
	// that only fold to a path held (another case) or are a folder of one.
	var paths []string
	for i := 0; i < 1300; i += 2 {
		paths = append(paths, fmt.Sprintf("h/%d", i))
	}
	paths = append(paths, "h/0", "H/0", "h", "h/1199")
	var got []string
	if err := db.FindPaths(ctx, paths, func(i int) error { got = append(got, paths[i]); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 600+2 || got[0] != "h/0" || got[599] != "h/1198" || got[600] != "h/0" || got[601] != "h/1199" {
		t.Errorf("found %d of %d: %v … %v", len(got), len(paths), got[:2], got[len(got)-3:])
	}
}

func TestLargestID(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	if id, err := db.LargestID(ctx); err != nil || id != 0 {
		t.Fatalf("empty: %d, %v", id, err)
	}
	a, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	b, _ := db.EnsureSource(ctx, "http://example.net/cap.xml")
	w := db.NewWriter(WriterOptions{})
	for i := range 30 {
		src := a
		if i%2 == 0 {
			src = b
		}
		r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://h/%d", i), Path: fmt.Sprintf("h/%d", i)}
		w.PutResource(ctx, &r)
	}
	w.Close(ctx)
	if id, err := db.LargestID(ctx); err != nil || id != 30 {
		t.Fatalf("30 rows of two Sources: %d, %v", id, err)
	}
}

// TestIndexCopies: an Index loaded with the copies' facts holds each row's
// path, length and file time (sorted with its row), and says it does not
// for a row with no file time or a copy an audit found damaged; the Index
// of a plain plan holds none.
func TestIndexCopies(t *testing.T) { inRanges(t, testIndexCopies) }

func testIndexCopies(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	other, _ := db.EnsureSource(ctx, "http://example.org/other/cap.xml")
	w := db.NewWriter(WriterOptions{})
	mtime := time.Date(2026, 11, 27, 10, 0, 0, 123456789, time.UTC)
	const n = 600
	var uris, paths []string
	for i := range n {
		// Files in a few folders, and at the top.
		path := fmt.Sprintf("h/f%d/sub/%d.txt", i%3, i)
		if i%7 == 0 {
			path = fmt.Sprintf("top%d", i)
		}
		paths = append(paths, path)
		r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://example.org/%d", i), Path: path, Length: int64(i), Digests: Digests(fmt.Sprintf("md5:%032x", i))}
		switch i % 4 {
		case 0, 1:
			r.FileMTime = mtime.Add(time.Duration(i))
		case 2:
			r.FileMTime = mtime // and found damaged, below
		} // 3: no file time (an older state, or a bucket)
		w.PutResource(ctx, &r)
		uris = append(uris, r.URI)
		if i%5 == 0 { // another Source's rows among them, with the same paths
			r.ID, r.SourceID = 0, other.ID
			w.PutResource(ctx, &r)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	w = db.NewWriter(WriterOptions{})
	err := db.View(src.ID).Find(ctx, uris, func(i int, k *Known) error {
		if i%4 == 2 {
			return w.SetDamaged(ctx, k.ID, time.Now())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	idx, err := db.LoadIndexCopies(ctx, src.ID)
	if err != nil || idx.Len() != n {
		t.Fatalf("%v, %d rows", err, idx.Len())
	}
	seen := 0
	err = idx.Find(ctx, uris, func(i int, k *Known) error {
		seen++
		c := k.Copy
		if want := i%4 < 2; c.OK != want {
			t.Errorf("%s: copy's facts held %v, want %v", uris[i], c.OK, want)
		}
		if !c.OK {
			if c.Path != "" {
				t.Errorf("%s: a path without the facts: %q", uris[i], c.Path)
			}
			return nil
		}
		if c.Length != int64(i) || c.FileMTime != mtime.Add(time.Duration(i)).UnixNano() {
			t.Errorf("%s: length %d, file time %d", uris[i], c.Length, c.FileMTime)
		}
		if c.Path != paths[i] {
			t.Errorf("%s: path %q, want %q", uris[i], c.Path, paths[i])
		}
		return nil
	})
	if err != nil || seen != n {
		t.Fatalf("found %d of %d: %v", seen, n, err)
	}
	plain, err := db.LoadIndex(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	plain.Find(ctx, uris[:4], func(i int, k *Known) error {
		if k.Copy.OK {
			t.Errorf("%s: the plain Index holds the copy's facts", uris[i])
		}
		return nil
	})
}

// PathSplits splits the state's paths into ranges of about as many rows
// each, at most maxRanges of at least minRows: the paths it returns are the
// state's own, in byte order and distinct (mixed case too, where the
// index's folded order differs from the bytes').
func TestPathSplits(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	a, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	w := db.NewWriter(WriterOptions{})
	held := map[string]bool{}
	for i := 0; i < 1000; i++ {
		p := fmt.Sprintf("h/%04d", i)
		if i%7 == 0 {
			p = fmt.Sprintf("H/%04d", i) // sorts before every "h/" by its bytes
		}
		held[p] = true
		r := Resource{SourceID: a.ID, URI: fmt.Sprintf("http://h/%d", i), Path: p}
		w.PutResource(ctx, &r)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		maxRanges int
		minRows   int64
		want      int // splits
	}{
		{16, 5000, 0},  // too few rows for two ranges
		{1, 10, 0},     // one range asked
		{16, 500, 1},   // two ranges of 500
		{16, 100, 9},   // ten of 100
		{4, 10, 3},     // at most four
		{2000, 1, 999}, // a range a row
	} {
		splits, err := db.PathSplits(ctx, tc.maxRanges, tc.minRows)
		if err != nil {
			t.Fatal(err)
		}
		if len(splits) != tc.want {
			t.Errorf("PathSplits(%d, %d): %d paths, want %d: %q", tc.maxRanges, tc.minRows, len(splits), tc.want, splits)
		}
		for i, p := range splits {
			if !held[p] {
				t.Errorf("PathSplits(%d, %d): %q is no path of the state", tc.maxRanges, tc.minRows, p)
			}
			if i > 0 && splits[i-1] >= p {
				t.Errorf("PathSplits(%d, %d): %q after %q: not in byte order, or twice", tc.maxRanges, tc.minRows, p, splits[i-1])
			}
		}
		if tc.want == 3 {
			// Near balanced: about 250 rows a range (the first holds the "H/"
			// paths too, 143 of them: the index orders them among the "h/").
			var counts [4]int
			for p := range held {
				counts[sort.SearchStrings(splits, p)]++
			}
			for _, c := range counts {
				if c < 150 || c > 400 {
					t.Errorf("PathSplits(4, 10): ranges of %v rows", counts)
					break
				}
			}
		}
	}
}

// PathsDistinct is false exactly when two rows (of any Sources) hold one
// path, by case too; rows without a path do not count.
func TestPathsDistinct(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	a, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	b, _ := db.EnsureSource(ctx, "http://example.net/cap.xml")
	put := func(src int64, uri, p string) {
		t.Helper()
		w := db.NewWriter(WriterOptions{})
		r := Resource{SourceID: src, URI: uri, Path: p}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	check := func(want bool) {
		t.Helper()
		if got, err := db.PathsDistinct(ctx); err != nil || got != want {
			t.Fatalf("PathsDistinct = %v, %v; want %v", got, err, want)
		}
	}
	check(true) // no rows
	for i := range 50 {
		put(a.ID, fmt.Sprintf("http://example.org/%d", i), fmt.Sprintf("example.org/%d", i))
	}
	for i, src := range []int64{a.ID, b.ID} {
		// Rows without a path (not written by PutResource, which wants one).
		if _, err := db.sql.ExecContext(ctx, `INSERT INTO resource (source_id, uri, path, path_key) VALUES (?, ?, '', '')`, src, fmt.Sprintf("http://example.org/none%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	check(true) // two rows without a path
	put(b.ID, "http://example.net/x", "example.org/Ünï/X")
	check(true)
	put(a.ID, "http://example.org/y", "example.org/ünï/x") // the same path but for case, another Source
	check(false)
}

// PathGroups gives what grouping every row by Source and first name gives
// (the query it reads when a Source's paths have several first names),
// whichever shape the Sources' paths have.
func TestPathGroups(t *testing.T) {
	ctx := context.Background()
	full := func(db *DB) []PathGroup {
		g, err := db.pathGroups(ctx, `SELECT source_id, min(path), max(path) FROM resource WHERE path <> ''
			GROUP BY source_id, substr(path, 1, instr(path, '/')) ORDER BY source_id, 2`)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for name, sources := range map[string][][]string{
		"one folder":         {{"h/a/1", "h/a/2", "h/b/3"}},
		"two Sources":        {{"h/a/1", "h/z"}, {"k/1", "k/2/3"}},
		"two first names":    {{"h/a/1", "k/2"}, {"m/1"}},
		"a file at the top":  {{"a", "a/b", "b/c"}},
		"only files":         {{"a", "b"}},
		"one path":           {{"h/x"}},
		"prefix of a name":   {{"h/1", "hh/2"}},
		"same name, no more": {{"h/1", "h/2"}, {"h/3"}},
	} {
		t.Run(name, func(t *testing.T) {
			db := openTemp(t)
			var ids []int64
			for i := range sources {
				src, err := db.EnsureSource(ctx, fmt.Sprintf("http://s%d.example/cap.xml", i))
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, src.ID)
			}
			w := db.NewWriter(WriterOptions{})
			for i, paths := range sources {
				src := Source{ID: ids[i]}
				for _, p := range paths {
					r := Resource{SourceID: src.ID, URI: "http://x/" + p, Path: p}
					if err := w.PutResource(ctx, &r); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := w.Close(ctx); err != nil {
				t.Fatal(err)
			}
			got, err := db.PathGroups(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sort.Slice(got, func(i, j int) bool {
				return got[i].SourceID < got[j].SourceID || got[i].SourceID == got[j].SourceID && got[i].Min < got[j].Min
			})
			if want := full(db); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("PathGroups: %v; want %v", got, want)
			}
		})
	}
}

// TestIndexOfUnevenRanges loads the Index of a Source whose ids are spread
// unevenly over the id ranges read at once: the first range holds most of
// its rows and outgrows its region of the array the parts are read into,
// the others fit theirs. Every row is found, with its copy's path, in both
// kinds of Index.
func TestIndexOfUnevenRanges(t *testing.T) {
	defer func(n int) { minIndexRange = n }(minIndexRange)
	minIndexRange = 50
	ctx := context.Background()
	db := openTemp(t)
	a, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	b, _ := db.EnsureSource(ctx, "http://example.net/cap.xml")
	w := db.NewWriter(WriterOptions{})
	var uris []string
	put := func(src int64, i int) {
		r := Resource{SourceID: src, URI: fmt.Sprintf("http://h/%d", i), Path: fmt.Sprintf("h/%d", i), Length: int64(i),
			FileMTime: time.Unix(int64(i), 0)}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
		if src == a.ID {
			uris = append(uris, r.URI)
		}
	}
	for i := range 1000 {
		put(a.ID, i)
	}
	for i := 1000; i < 1900; i++ {
		put(b.ID, i)
	}
	for i := 1900; i < 2000; i++ {
		put(a.ID, i)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, copies := range []bool{false, true} {
		idx, err := db.loadIndex(ctx, a.ID, copies)
		if err != nil || idx.Len() != len(uris) {
			t.Fatalf("copies %v: %v, %d rows, want %d", copies, err, idx.Len(), len(uris))
		}
		seen := map[int]bool{}
		err = idx.Find(ctx, uris, func(i int, k *Known) error {
			seen[i] = true
			want := i
			if i >= 1000 {
				want = i + 900
			}
			if k.Length != int64(want) || (copies && k.Copy.Path != fmt.Sprintf("h/%d", want)) {
				t.Errorf("copies %v: %s: length %d, copy's path %q", copies, uris[i], k.Length, k.Copy.Path)
			}
			return nil
		})
		if err != nil || len(seen) != len(uris) {
			t.Fatalf("copies %v: found %d of %d: %v", copies, len(seen), len(uris), err)
		}
	}
}
