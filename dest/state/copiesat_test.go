package state

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// CopiesAt finds the rows of the paths given, of one Source or of every
// Source, with their ids, lengths (-1 for none) and damage, over more than
// a batch: a path given twice at both indexes, another case of a path, a
// folder of paths and a path of another Source at none.
func TestCopiesAt(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	a, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	b, _ := db.EnsureSource(ctx, "http://example.net/cap.xml")
	w := db.NewWriter(WriterOptions{})
	for i := range 1200 {
		src, length := a, int64(i)
		if i%3 == 0 {
			src = b
		}
		if i == 2 {
			length = -1
		}
		r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://h/%d", i), Path: fmt.Sprintf("h/%d", i), Length: length}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE resource SET damaged_at = '2026-12-07T00:00:00Z' WHERE path = 'h/4'`); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i := 0; i < 1300; i += 2 {
		paths = append(paths, fmt.Sprintf("h/%d", i))
	}
	paths = append(paths, "h/2", "H/2", "h", "h/1199")
	for _, tc := range []struct {
		source int64
		want   int // paths found
	}{
		{a.ID, 400 + 1 + 1}, // the even i not multiples of 3 below 1200, h/2 again, h/1199
		{b.ID, 200},         // the multiples of 6
		{0, 600 + 1 + 1},
	} {
		found := map[int]string{}
		err := db.CopiesAt(ctx, tc.source, paths, func(i int, c *ListedCopy) error {
			if _, twice := found[i]; twice {
				t.Errorf("source %d: %s found twice", tc.source, paths[i])
			}
			if c.Path != paths[i] {
				t.Errorf("source %d: %s found as %s", tc.source, paths[i], c.Path)
			}
			found[i] = fmt.Sprintf("%s %d %v", c.Path, c.Length, c.Damaged)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != tc.want {
			t.Errorf("source %d: found %d of %d, want %d", tc.source, len(found), len(paths), tc.want)
		}
		for i, want := range map[int]string{1: "h/2 -1 false", 2: "h/4 4 true", 650: "h/2 -1 false", 653: "h/1199 1199 false"} {
			if got, ok := found[i]; tc.source != b.ID && (!ok || got != want) {
				t.Errorf("source %d: %s found as %q, want %q", tc.source, paths[i], got, want)
			}
		}
		for _, i := range []int{651, 652} { // H/2, h
			if got, ok := found[i]; ok {
				t.Errorf("source %d: %s found as %q", tc.source, paths[i], got)
			}
		}
		if tc.source == b.ID {
			keys := make([]int, 0, len(found))
			for i := range found {
				keys = append(keys, i)
			}
			slices.Sort(keys)
			if keys[0] != 0 || keys[1] != 3 { // h/0, h/6
				t.Errorf("source %d: found %v…", tc.source, keys[:2])
			}
		}
	}
	// An error from fn ends the look-up.
	stop := fmt.Errorf("enough")
	n := 0
	if err := db.CopiesAt(ctx, 0, paths, func(int, *ListedCopy) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("stopped: %v after %d", err, n)
	}
}
