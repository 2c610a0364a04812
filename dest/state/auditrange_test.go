package state

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// EachAuditBetween reads the rows EachKnownBetween reads, in the same
// order and with the same limit, with what an audit uses of each (no
// change datetime) and the file's time when the row has one.
func TestEachAuditBetween(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	other, _ := db.EnsureSource(ctx, "http://example.net/cap.xml")
	w := db.NewWriter(WriterOptions{})
	at := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	for i := range 300 {
		r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://example.org/%03d", i), Path: fmt.Sprintf("example.org/%03d", i),
			Length: int64(i), Digests: Digests(fmt.Sprintf("md5:%032x", i)), ChangeDatetime: at.Add(time.Duration(i) * time.Second)}
		if i%4 != 0 {
			r.Lastmod = at.Add(-time.Duration(i) * time.Hour)
		}
		if i%3 != 0 {
			r.FileMTime = time.Unix(1_900_000_000, int64(i)).UTC()
		}
		if i%10 == 0 {
			r.Length = -1
		}
		if i == 77 {
			r.DeletedAt = at
		}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
		o := Resource{SourceID: other.ID, URI: r.URI, Path: "example.net/" + r.Path}
		if err := w.PutResource(ctx, &o); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	v := db.View(src.ID)
	for _, tc := range []struct {
		lo, hi string
		limit  int
	}{{"", "\xff", 1000}, {"http://example.org/050", "http://example.org/120", 1000}, {"http://example.org/050", "http://example.org/120", 30}, {"z", "a", 10}} {
		type row struct {
			uri string
			k   Known
		}
		var want, got []row
		nw, err := v.EachKnownBetween(ctx, tc.lo, tc.hi, tc.limit, func(uri string, k *Known) error { want = append(want, row{uri, *k}); return nil })
		if err != nil {
			t.Fatal(err)
		}
		ng, err := v.EachAuditBetween(ctx, tc.lo, tc.hi, tc.limit, func(uri string, k *Known) error { got = append(got, row{uri, *k}); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if ng != nw || len(got) != len(want) {
			t.Fatalf("%v: %d rows, want %d", tc, ng, nw)
		}
		for i, g := range got {
			wk, gk := want[i].k, g.k
			wd, _ := wk.Digests()
			gd, _ := gk.Digests()
			if g.uri != want[i].uri || gk.ID != wk.ID || gk.Path != wk.Path || gk.Length != wk.Length || gd != wd ||
				!gk.Lastmod.Equal(wk.Lastmod) || gk.Pending != wk.Pending || !gk.ChangeDatetime.IsZero() {
				t.Errorf("%v: row %d: %q %+v; want %q %+v", tc, i, g.uri, gk, want[i].uri, wk)
			}
			r, err := db.ResourceByID(ctx, gk.ID)
			if err != nil {
				t.Fatal(err)
			}
			if gk.FileMTimeKnown != !r.FileMTime.IsZero() || (gk.FileMTimeKnown && gk.FileMTime != r.FileMTime.UnixNano()) {
				t.Errorf("%v: row %d: file time %d (%v); the row's %v", tc, i, gk.FileMTime, gk.FileMTimeKnown, r.FileMTime)
			}
		}
	}
}

// SetVerifiedRange sets verified_at of the rows of its range of ids, of
// any Source, and of no other row; their file times are left as they are.
func TestSetVerifiedRange(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	w := db.NewWriter(WriterOptions{})
	var ids []int64
	for i := range 40 {
		r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://example.org/%d", i), Path: fmt.Sprintf("example.org/%d", i), Length: 1}
		if i%2 == 0 {
			r.FileMTime = time.Unix(1_900_000_000, int64(i)).UTC()
		}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	w = db.NewWriter(WriterOptions{BatchSize: 7})
	if err := w.SetVerifiedRange(ctx, ids[10], ids[29], at); err != nil {
		t.Fatal(err)
	}
	if err := w.SetVerifiedRange(ctx, ids[35], ids[34], at); err != nil { // empty
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		r, err := db.ResourceByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if in := i >= 10 && i <= 29; r.VerifiedAt.Equal(at) != in {
			t.Errorf("row %d: verified %v (in the range: %v)", i, r.VerifiedAt, in)
		}
		if want := i%2 == 0; !r.FileMTime.IsZero() != want || (want && !r.FileMTime.Equal(time.Unix(1_900_000_000, int64(i)))) {
			t.Errorf("row %d: file time %v", i, r.FileMTime)
		}
	}
}
