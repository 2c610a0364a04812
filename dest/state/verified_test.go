package state

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// SetVerifiedBatch records what SetVerified records of each row, across
// statements of verifiedBatch rows, and touches no other row.
func TestSetVerifiedBatch(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	w := db.NewWriter(WriterOptions{})
	const n = 2*verifiedBatch + 51
	ids := make([]int64, n)
	for i := range n {
		r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://example.org/%d", i), Path: fmt.Sprintf("example.org/%d", i), Length: 1}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
		ids[i] = r.ID
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	mtime := func(i int) time.Time {
		if i%3 == 0 {
			return time.Time{}
		}
		return time.Unix(1_900_000_000, int64(i)*1001).UTC()
	}
	var rows []Verified
	for i := range n - 1 { // the last row is not verified
		rows = append(rows, Verified{ID: ids[i], FileMTime: mtime(i)})
	}
	w = db.NewWriter(WriterOptions{BatchSize: 300})
	if err := w.SetVerifiedBatch(ctx, rows, at); err != nil {
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
		if i == n-1 {
			if !r.VerifiedAt.IsZero() || !r.FileMTime.IsZero() {
				t.Errorf("row %d not given: verified %v, mtime %v", i, r.VerifiedAt, r.FileMTime)
			}
			continue
		}
		if !r.VerifiedAt.Equal(at) || !r.FileMTime.Equal(mtime(i)) {
			t.Errorf("row %d: verified %v, mtime %v; want %v, %v", i, r.VerifiedAt, r.FileMTime, at, mtime(i))
		}
	}
}
