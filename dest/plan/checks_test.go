package plan

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"rsx/dest/state"
)

// The State of a reconcile (ForChecks) holds nothing per row of the copy:
// its heap, with a Snapshot of the whole list planned through it, grows by
// the Snapshot's bit a row, not by the copy (the Index it was, with each
// copy's facts, held some 100 bytes a row: a reconcile's peak memory grew
// with the copy, issue 23). Every entry is found unchanged, with its copy's
// facts.
func TestForChecksHeapPerResource(t *testing.T) {
	if testing.Short() {
		t.Skip("records 40,000 rows")
	}
	const n1, n2 = 10_000, 30_000
	mtime := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	entry := func(i int) Entry {
		return Entry{URI: u(fmt.Sprintf("res/%06d.txt", i)), Length: int64(100 + i%1000), Digests: state.Digests(fmt.Sprintf("md5:%032x", i))}
	}
	heap := func(n int) uint64 {
		ctx := context.Background()
		db, src := newState(t)
		w := db.NewWriter(state.WriterOptions{})
		for i := range n {
			e := entry(i)
			r := state.Resource{SourceID: src.ID, URI: e.URI, Path: "example.org/" + e.URI[len("http://example.org/"):], Length: e.Length, Digests: e.Digests, FileMTime: mtime}
			if err := w.PutResource(ctx, &r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		st, err := ForChecks(ctx, db, src.ID)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := NewSnapshot(ctx, st, Options{Delete: true})
		if err != nil {
			t.Fatal(err)
		}
		unchanged := 0
		emit := func(it Item) error {
			if it.Action == Unchanged && it.Copy.OK && it.Copy.Path == "example.org/"+it.Entry.URI[len("http://example.org/"):] {
				unchanged++
			}
			return nil
		}
		for i := range n {
			if err := snap.Add(ctx, entry(i), emit); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		held := ms.HeapAlloc
		sum, err := snap.Finish(ctx, emit)
		if err != nil {
			t.Fatal(err)
		}
		if unchanged != n || sum.Unchanged != n || sum.Delete != 0 {
			t.Fatalf("%d rows: %d unchanged with their copies' facts, summary %+v", n, unchanged, sum)
		}
		runtime.KeepAlive(st)
		return held - min(held, before)
	}
	h1, h2 := heap(n1), heap(n2)
	per := (float64(h2) - float64(h1)) / (n2 - n1)
	t.Logf("heap held while planning a reconcile of %d rows: %.1f kB; of %d: %.1f kB; %.1f bytes a row", n1, float64(h1)/1e3, n2, float64(h2)/1e3, per)
	if per > 4 {
		t.Errorf("a reconcile's State holds %.1f bytes a row; want at most 4 (a Snapshot's bit a row)", per)
	}
}
