package state

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Copies.Find reports each URI that has a row, with its copy's facts, in
// any order of the URIs asked: sorted (one walk of their range), shuffled,
// with URIs given twice or without a row, and a batch whose range holds
// many more rows than it asks for (the rest looked up one by one); another
// Source's rows are not its.
func TestCopiesFind(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	other, _ := db.EnsureSource(ctx, "http://example.org/other/cap.xml")
	w := db.NewWriter(WriterOptions{})
	mtime := time.Date(2026, 11, 27, 10, 0, 0, 123456789, time.UTC)
	const n = 900
	uri := func(i int) string { return fmt.Sprintf("http://example.org/%04d", i) }
	path := func(i int) string { return fmt.Sprintf("h/f%d/%d.txt", i%3, i) }
	for i := range n {
		r := Resource{SourceID: src.ID, URI: uri(i), Path: path(i), Length: int64(i), Digests: Digests(fmt.Sprintf("md5:%032x", i))}
		switch i % 4 {
		case 0, 1:
			r.FileMTime = mtime.Add(time.Duration(i))
		case 2:
			r.FileMTime = mtime // and found damaged, below
		} // 3: no file time (an older state, or a bucket)
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 { // another Source's rows among them
			r.ID, r.SourceID, r.URI = 0, other.ID, uri(n+i)
			w.PutResource(ctx, &r)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	w = db.NewWriter(WriterOptions{})
	var all []string
	for i := range n {
		all = append(all, uri(i))
	}
	db.View(src.ID).Find(ctx, all, func(i int, k *Known) error {
		if i%4 == 2 {
			return w.SetDamaged(ctx, k.ID, time.Now())
		}
		return nil
	})
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	c := db.Copies(src.ID)
	rng := rand.New(rand.NewPCG(1, 2))
	shuffled := slices.Clone(all[:300])
	rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
	var sparse []string // 40 URIs over the whole range: the walk stops at 144 rows
	for i := 0; i < n; i += n / 40 {
		sparse = append(sparse, uri(i))
	}
	tests := []struct {
		name string
		uris []string
	}{
		{"sorted", all[100:356]},
		{"shuffled", shuffled},
		{"sparse", sparse},
		{"sparse, reversed", reversed(sparse)},
		{"twice and missing", []string{uri(5), "http://example.org/0005a", uri(n + 5), uri(5), uri(899), "http://example.org/zzz", uri(0), uri(899)}},
		{"one", []string{uri(7)}},
		{"none", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			err := c.Find(ctx, tc.uris, func(i int, k *Known) error {
				got = append(got, i)
				var idx int
				fmt.Sscanf(tc.uris[i], "http://example.org/%04d", &idx)
				if k.ID == 0 || k.Path != path(idx) || k.Length != int64(idx) {
					t.Errorf("%s: id %d, path %q, length %d", tc.uris[i], k.ID, k.Path, k.Length)
				}
				if shared, differ := k.CompareDigests(Digests(fmt.Sprintf("md5:%032x", idx))); shared != 1 || len(differ) != 0 {
					t.Errorf("%s: digests: %d shared, %v differ", tc.uris[i], shared, differ)
				}
				cf := k.Copy
				// Held but for a damaged copy; a row without a file
				// time (a bucket's) has its path and length, time 0.
				if want := idx%4 != 2; cf.OK != want {
					t.Errorf("%s: copy's facts held %v, want %v", tc.uris[i], cf.OK, want)
				}
				wantTime := mtime.Add(time.Duration(idx)).UnixNano()
				if idx%4 == 3 {
					wantTime = 0
				}
				if cf.OK && (cf.Path != path(idx) || cf.Length != int64(idx) || cf.FileMTime != wantTime) {
					t.Errorf("%s: copy's facts %+v", tc.uris[i], cf)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []int
			for i, u := range tc.uris {
				var idx int
				if _, err := fmt.Sscanf(u, "http://example.org/%04d", &idx); err == nil && len(u) == len(uri(0)) && idx < n {
					want = append(want, i)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("found %v, want %v", got, want)
			}
		})
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}
