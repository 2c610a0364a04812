package state

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestPutResourceInPlace: a PutResource whose ID names the resource's row at
// the same path updates that row in place, as the upsert would (damaged_at
// cleared, every field written); an ID that does not (another path, another
// resource's row, no row) falls back to the upsert by Source and URI.
func TestPutResourceInPlace(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		id   func(a, b int64) int64
		path string
	}{
		{"in place", func(a, _ int64) int64 { return a }, "example.org/a"},
		{"another path", func(a, _ int64) int64 { return a }, "example.org/moved/a"},
		{"another resource's row", func(_, b int64) int64 { return b }, "example.org/a"},
		{"no row", func(a, b int64) int64 { return a + b + 100 }, "example.org/a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTemp(t)
			src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
			w := db.NewWriter(WriterOptions{})
			a := Resource{SourceID: src.ID, URI: "http://example.org/a", Path: "example.org/a", Length: 1, Digests: "md5:00",
				FetchedAt: tm("2026-01-01T00:00:00Z")}
			b := Resource{SourceID: src.ID, URI: "http://example.org/b", Path: "example.org/b", Length: 2}
			for _, r := range []*Resource{&a, &b} {
				if err := w.PutResource(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.SetDamaged(ctx, a.ID, tm("2026-01-02T00:00:00Z")); err != nil {
				t.Fatal(err)
			}
			r := Resource{ID: tc.id(a.ID, b.ID), SourceID: src.ID, URI: a.URI, Path: tc.path, Length: 3, Digests: "md5:01 sha-256:02",
				Lastmod: tm("2026-02-01T00:00:00.5Z"), ETag: `"e"`, LastModified: "Sun, 01 Feb 2026 00:00:00 GMT",
				ChangeDatetime: tm("2026-02-01T00:00:01Z"), FetchedAt: tm("2026-02-02T00:00:00Z"), VerifiedAt: tm("2026-02-02T00:00:00Z"),
				FileMTime: time.Unix(1769990400, 123456789).UTC()}
			if err := w.PutResource(ctx, &r); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if r.ID != a.ID {
				t.Errorf("r.ID %d, want the row's %d", r.ID, a.ID)
			}
			got, err := db.ResourceByID(ctx, a.ID)
			if err != nil || !reflect.DeepEqual(got, r) {
				t.Errorf("row:\n%+v (%v)\nwant\n%+v", got, err, r)
			}
			if hs, err := db.ResourcesAtPath(ctx, tc.path); err != nil || len(hs) != 1 || hs[0].ID != a.ID {
				t.Errorf("the path index finds %+v at %s (%v)", hs, tc.path, err)
			}
			if gotB, _ := db.ResourceByID(ctx, b.ID); !reflect.DeepEqual(gotB, b) {
				t.Errorf("the other row changed: %+v", gotB)
			}
		})
	}
}

// TestPutResourceInPlaceLogsLess: updates in place leave the path index
// alone, so that a batch of updates spread over a state logs fewer pages
// than the upsert, which rewrites each row's path index entry (a page more
// for each update of a large state, to write, sync and checkpoint).
func TestPutResourceInPlaceLogsLess(t *testing.T) {
	ctx := context.Background()
	logged := func(inPlace bool) int {
		db := openTemp(t)
		src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
		w := db.NewWriter(WriterOptions{BatchSize: 100000})
		const rows = 20000
		ids := make([]int64, rows)
		for i := range rows {
			r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://example.org/r/%06d", i), Path: fmt.Sprintf("example.org/r/%06d", i), Length: 1}
			if err := w.PutResource(ctx, &r); err != nil {
				t.Fatal(err)
			}
			ids[i] = r.ID
		}
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := db.sql.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		for j := range 200 {
			i := j * 97 % rows
			r := Resource{SourceID: src.ID, URI: fmt.Sprintf("http://example.org/r/%06d", i), Path: fmt.Sprintf("example.org/r/%06d", i), Length: 2}
			if inPlace {
				r.ID = ids[i]
			}
			if err := w.PutResource(ctx, &r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
		var busy, log, done int
		if err := db.sql.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &done); err != nil {
			t.Fatal(err)
		}
		return log
	}
	upsert, inPlace := logged(false), logged(true)
	t.Logf("200 updates logged %d pages through the upsert, %d in place", upsert, inPlace)
	if inPlace*5 > upsert*4 {
		t.Errorf("updates in place logged %d pages, the upsert %d: want a fifth fewer at least", inPlace, upsert)
	}
}
