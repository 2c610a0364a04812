package state

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// SetDamagedBatch records what SetDamaged records of each row, across
// statements of damagedBatch rows, and touches no other row.
func TestSetDamagedBatch(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	w := db.NewWriter(WriterOptions{})
	const n = 2*damagedBatch + 51
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
	var damaged []int64
	for i, id := range ids {
		if i%3 != 1 {
			damaged = append(damaged, id)
		}
	}
	w = db.NewWriter(WriterOptions{BatchSize: 300})
	if err := w.SetDamagedBatch(ctx, damaged, at); err != nil {
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
		want := at
		if i%3 == 1 {
			want = time.Time{}
		}
		if !r.DamagedAt.Equal(want) {
			t.Errorf("row %d: damaged at %v, want %v", i, r.DamagedAt, want)
		}
	}
}
