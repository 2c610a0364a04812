package state

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestIndexAgreesWithView looks every row up through both and compares.
func TestIndexAgreesWithView(t *testing.T) {
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
