package state

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// fillState records n resources of one Source, as a baseline would, and
// returns the Source.
func fillState(tb testing.TB, db *DB, n int) Source {
	tb.Helper()
	ctx := context.Background()
	src, err := db.EnsureSource(ctx, "http://example.org/capabilitylist.xml")
	if err != nil {
		tb.Fatal(err)
	}
	w := db.NewWriter(WriterOptions{BatchSize: 20000, MaxDelay: time.Hour})
	lastmod := time.Date(2013, 1, 2, 13, 0, 0, 0, time.UTC)
	now := time.Now()
	for i := 0; i < n; i++ {
		r := Resource{
			SourceID:  src.ID,
			URI:       fmt.Sprintf("http://example.org/dataset1/res/%07d.html", i),
			Path:      fmt.Sprintf("example.org/dataset1/res/%07d.html", i),
			Length:    int64(1000 + i%5000),
			Digests:   Digests(fmt.Sprintf("md5:%032x sha-256:%064x", i, i)),
			Lastmod:   lastmod.Add(time.Duration(i) * time.Second),
			ETag:      fmt.Sprintf(`"%x"`, i),
			FetchedAt: now, VerifiedAt: now,
		}
		if err := w.PutResource(ctx, &r); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		tb.Fatal(err)
	}
	return src
}

func BenchmarkFind(b *testing.B) {
	const n = 200000
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	src := fillState(b, db, n)
	uris := make([]string, n)
	for i := range uris {
		uris[i] = fmt.Sprintf("http://example.org/dataset1/res/%07d.html", (i*7919)%n)
	}
	b.Run("view", func(b *testing.B) {
		v := db.View(src.ID)
		for done := 0; done < b.N; done += LookupBatch {
			k := done % n
			if err := v.Find(ctx, uris[k:min(k+LookupBatch, n)], func(int, *Known) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load-index", func(b *testing.B) {
		for i := 0; i < b.N; i += n {
			if _, err := db.LoadIndex(ctx, src.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	idx, err := db.LoadIndex(ctx, src.ID)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("index", func(b *testing.B) {
		for done := 0; done < b.N; done += LookupBatch {
			k := done % n
			if err := idx.Find(ctx, uris[k:min(k+LookupBatch, n)], func(int, *Known) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLoadIndex loads the Index of 80,008 rows (the reconcile
// benchmark's copy), plain and with the copies' facts; ns/op is a load.
func BenchmarkLoadIndex(b *testing.B) {
	const n = 80008
	ctx := context.Background()
	name := filepath.Join(b.TempDir(), "state.db")
	db, err := Open(ctx, name)
	if err != nil {
		b.Fatal(err)
	}
	src := fillState(b, db, n)
	db.Close() // as a new run finds it
	if db, err = Open(ctx, name); err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, copies := range []bool{false, true} {
		b.Run(fmt.Sprintf("copies=%v", copies), func(b *testing.B) {
			for range b.N {
				idx, err := db.loadIndex(ctx, src.ID, copies)
				if err != nil || idx.Len() != n {
					b.Fatal(err)
				}
			}
		})
	}
}
