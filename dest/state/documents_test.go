package state

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// The byte bound of the documents kept is each Source's own: a Source whose
// documents are huge drops its own oldest runs' documents, never another
// Source's of the same DEST (they went first, being older, and one Source's
// Resource Lists pushed every other Source's history out).
func TestRunDocumentsQuotaPerSource(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	small, _ := db.EnsureSource(ctx, "http://small.example/cap.xml")
	huge, _ := db.EnsureSource(ctx, "http://huge.example/cap.xml")
	run := func(src Source, docs []RunDocument, size int) int64 {
		t.Helper()
		r := &Run{SourceID: src.ID, Started: time.Now(), Mode: "incremental", Version: "t"}
		if err := db.StartRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Created, r.Ended = 1, time.Now()
		if err := db.EndRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := db.PutRunDocuments(ctx, r.ID, docs, func(int) ([]byte, error) { return make([]byte, size), nil }); err != nil {
			t.Fatal(err)
		}
		if err := db.PruneDocuments(ctx, src.ID, 10000); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	// The small Source's runs come first: the oldest in the DEST.
	var smallRuns []int64
	for i := range 3 {
		smallRuns = append(smallRuns, run(small, []RunDocument{
			{URL: "http://small.example/cap.xml", FetchedAt: time.Now(), SHA256: "small-cap", Length: 3},
			{URL: "http://small.example/cl.xml", FetchedAt: time.Now(), SHA256: fmt.Sprintf("small-cl%d", i), Length: 3},
		}, 500))
	}
	var hugeRuns []int64
	for i := range 20 {
		hugeRuns = append(hugeRuns, run(huge, []RunDocument{
			{URL: "http://huge.example/rl.xml", FetchedAt: time.Now(), SHA256: fmt.Sprintf("huge-rl%d", i), Length: 3},
		}, 4000))
	}
	for _, id := range smallRuns {
		if d, _ := db.RunDocuments(ctx, id); len(d) != 2 {
			t.Errorf("the small Source's run %d keeps %d documents, want its 2: the huge Source's pushed them out", id, len(d))
		}
	}
	kept := 0
	for _, id := range hugeRuns {
		if d, _ := db.RunDocuments(ctx, id); len(d) > 0 {
			kept++
		}
	}
	if d, _ := db.RunDocuments(ctx, hugeRuns[len(hugeRuns)-1]); len(d) != 1 || kept != 2 {
		t.Errorf("the huge Source keeps the documents of %d runs (the newest: %d); want its newest 2 (10,000 bytes)", kept, len(d))
	}
	var total int64
	db.sql.QueryRow(`SELECT coalesce(sum(length(gz)), 0) FROM document_blob`).Scan(&total)
	if want := int64(3*500 + 500 + 2*4000); total != want {
		t.Errorf("%d bytes kept in all, want %d", total, want)
	}
}
