package state

import (
	"context"
	"slices"
	"strconv"
	"testing"
)

// CopiesByPath gives the rows in the byte order of their paths, the order
// of an S3 listing ("a-b" before "a/b", upper case before lower), with the
// length recorded (-1 for none) and whether an audit found the copy
// damaged; LargestFolder counts the rows of the most populous folder.
func TestCopiesByPath(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	other, _ := db.EnsureSource(ctx, "http://example.net/cap.xml")
	w := db.NewWriter(WriterOptions{})
	for _, r := range []Resource{
		{SourceID: src.ID, URI: "http://h/a/b", Path: "h/a/b", Length: 3},
		{SourceID: src.ID, URI: "http://h/a-b", Path: "h/a-b", Length: 4},
		{SourceID: src.ID, URI: "http://h/B", Path: "h/B", Length: -1},
		{SourceID: src.ID, URI: "http://h/a/c", Path: "h/a/c", Length: 5},
		{SourceID: src.ID, URI: "http://h/a/d", Path: "h/a/d", Length: 6},
		{SourceID: other.ID, URI: "http://o/1", Path: "o/1", Length: 1},
	} {
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE resource SET damaged_at = '2026-11-27T00:00:00Z' WHERE path = 'h/a/c'`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		source  int64
		want    []string
		largest int
	}{
		{src.ID, []string{"h/B -1", "h/a-b 4", "h/a/b 3", "h/a/c 5 damaged", "h/a/d 6"}, 3},
		{0, []string{"h/B -1", "h/a-b 4", "h/a/b 3", "h/a/c 5 damaged", "h/a/d 6", "o/1 1"}, 3},
		{other.ID, []string{"o/1 1"}, 1},
	} {
		var got []string
		err := db.CopiesByPath(ctx, tc.source, func(c *ListedCopy) error {
			s := c.Path + " " + strconv.FormatInt(c.Length, 10)
			if c.Damaged {
				s += " damaged"
			}
			got = append(got, s)
			return nil
		})
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("source %d: %q, %v; want %q", tc.source, got, err, tc.want)
		}
		if n, err := db.LargestFolder(ctx, tc.source); err != nil || n != tc.largest {
			t.Errorf("source %d: largest folder %d, %v; want %d", tc.source, n, err, tc.largest)
		}
	}
	if n, err := db.LargestFolder(ctx, 99); err != nil || n != 0 {
		t.Errorf("no rows: largest folder %d, %v", n, err)
	}
}
