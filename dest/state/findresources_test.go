package state

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestFindResources: whole rows by URI, batch after batch, a URI asked twice
// at both places, one without a row not at all; KnownOf compares as the
// planners' Known does.
func TestFindResources(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, err := db.EnsureSource(ctx, "http://example.org/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.EnsureSource(ctx, "http://example.net/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	w := db.NewWriter(WriterOptions{})
	n := LookupBatch + 10
	for i := range n {
		r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://example.org/r/%d", i), Path: fmt.Sprintf("example.org/r/%d", i),
			Length: int64(i), Digests: Digests(fmt.Sprintf("md5:%032x", i)), FetchedAt: tm("2026-01-02T03:04:05Z")}
		if i == 3 {
			r.DeletedAt = tm("2026-01-03T00:00:00Z")
		}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	// The other Source's row of the same URI is not this Source's.
	if err := w.PutResource(ctx, &Resource{SourceID: other.ID, URI: "http://example.org/r/5", Path: "x/5", Length: 99}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	uris := []string{"http://example.org/r/5", "http://example.org/none", "http://example.org/r/3", "http://example.org/r/5"}
	for i := range LookupBatch {
		uris = append(uris, fmt.Sprintf("http://example.org/r/%d", n-1-i))
	}
	got := map[int]Resource{}
	err = db.View(src.ID).FindResources(ctx, uris, func(i int, r *Resource) error {
		if _, dup := got[i]; dup {
			t.Errorf("index %d reported twice", i)
		}
		got[i] = *r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(uris)-1 {
		t.Errorf("%d rows found, want %d", len(got), len(uris)-1)
	}
	if _, ok := got[1]; ok {
		t.Error("a URI without a row was found")
	}
	for _, i := range []int{0, 3} {
		if r := got[i]; r.URI != "http://example.org/r/5" || r.Length != 5 || r.Path != "example.org/r/5" || !r.FetchedAt.Equal(tm("2026-01-02T03:04:05Z")) {
			t.Errorf("row at %d: %+v", i, r)
		}
	}
	r3 := got[2]
	if !r3.Pending() {
		t.Errorf("row 3 is not pending: %+v", r3)
	}
	k := KnownOf(&r3)
	if !k.Pending || k.Length != 3 || k.Path != "example.org/r/3" {
		t.Errorf("KnownOf = %+v", k)
	}
	if shared, differ := k.CompareDigests(Digests(fmt.Sprintf("md5:%032x", 3))); shared != 1 || len(differ) != 0 {
		t.Errorf("KnownOf compares digests: shared %d, differ %v", shared, differ)
	}
	if last := got[len(uris)-1]; last.URI != uris[len(uris)-1] {
		t.Errorf("the second batch: %+v", last)
	}
}

// TestResourcesByID: whole rows by id, batch after batch (of every Source,
// as ResourceByID), an id asked twice reported once, ids without a row not
// at all, and an error of found ends the walk; and the same of CopiesByID,
// with the fields a check of the copy needs (FetchedAt and VerifiedAt only
// where FileMTime is unknown).
func TestResourcesByID(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, err := db.EnsureSource(ctx, "http://example.org/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.EnsureSource(ctx, "http://example.net/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	w := db.NewWriter(WriterOptions{})
	n := LookupBatch + 10
	var ids []int64
	for i := range n {
		r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://example.org/r/%d", i), Path: fmt.Sprintf("example.org/r/%d", i),
			Length: int64(i), Digests: Digests(fmt.Sprintf("md5:%032x", i)), FetchedAt: tm("2026-01-02T03:04:05Z")}
		if i == 3 {
			r.DamagedAt = tm("2026-01-03T00:00:00Z")
		}
		if i%2 == 0 {
			r.FileMTime, r.VerifiedAt, r.ETag = time.Unix(1767225600, 123456789).UTC(), tm("2026-01-02T03:04:06Z"), "e"
		}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	o := Resource{SourceID: other.ID, URI: "http://example.net/x", Path: "example.net/x", Length: 99}
	if err := w.PutResource(ctx, &o); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	copyFields := func(r Resource) Resource {
		c := Resource{ID: r.ID, Path: r.Path, Length: r.Length, Digests: r.Digests, DamagedAt: r.DamagedAt, FileMTime: r.FileMTime}
		if r.FileMTime.IsZero() {
			c.FetchedAt, c.VerifiedAt = r.FetchedAt, r.VerifiedAt
		}
		return c
	}
	readers := []struct {
		name string
		read func(context.Context, []int64, func(*Resource) error) error
		want func(Resource) Resource
	}{
		{"ResourcesByID", db.ResourcesByID, func(r Resource) Resource { return r }},
		{"CopiesByID", db.CopiesByID, copyFields},
	}
	for _, rd := range readers {
		for _, tc := range []struct {
			name string
			ask  []int64
			want []int64
		}{
			{"none", nil, nil},
			{"one", ids[3:4], ids[3:4]},
			{"missing", []int64{ids[n-1] + 1000, ids[0]}, ids[:1]},
			{"twice", []int64{ids[5], ids[5], ids[6]}, []int64{ids[5], ids[6]}},
			{"another Source's", []int64{o.ID, ids[1]}, []int64{o.ID, ids[1]}},
			{"batches", append(slices.Clone(ids), o.ID), append(slices.Clone(ids), o.ID)},
		} {
			t.Run(rd.name+"/"+tc.name, func(t *testing.T) {
				var got []int64
				err := rd.read(ctx, tc.ask, func(r *Resource) error {
					whole, err := db.ResourceByID(ctx, r.ID)
					if want := rd.want(whole); err != nil || !reflect.DeepEqual(*r, want) {
						t.Errorf("row %d: %+v, ResourceByID %+v (%v)", r.ID, *r, want, err)
					}
					got = append(got, r.ID)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				want := slices.Sorted(slices.Values(tc.want))
				if !slices.Equal(got, want) {
					t.Errorf("found %v, want %v", got, want)
				}
			})
		}
		stop := errors.New("stop")
		calls := 0
		err = rd.read(ctx, ids, func(*Resource) error { calls++; return stop })
		if !errors.Is(err, stop) || calls != 1 {
			t.Errorf("%s: found's error: %v after %d calls", rd.name, err, calls)
		}
	}
}
