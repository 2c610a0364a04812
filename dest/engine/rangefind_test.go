package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"rsx/dest/state"
)

// lookupState makes a state of n rows of one Source, r/000000 to r/n-1 (the
// tenth of them deleted at the Source, pending), with another Source holding
// rows of the same URIs.
func lookupState(t testing.TB, n int) (*state.DB, int64) {
	t.Helper()
	ctx := context.Background()
	db, err := state.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src, err := db.EnsureSource(ctx, "http://example.org/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.EnsureSource(ctx, "http://example.net/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	w := db.NewWriter(state.WriterOptions{})
	for i := range n {
		r := state.Resource{SourceID: src.ID, URI: lookupURI(i), Path: fmt.Sprintf("example.org/r/%06d", i),
			Length: int64(i), Digests: state.Digests(fmt.Sprintf("md5:%032x", i)), FetchedAt: time.Unix(1e9, 0)}
		if i%10 == 3 {
			r.DeletedAt = time.Unix(2e9, 0)
		}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 {
			if err := w.PutResource(ctx, &state.Resource{SourceID: other.ID, URI: lookupURI(i), Path: fmt.Sprintf("x/%d", i), Length: 99}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return db, src.ID
}

func lookupURI(i int) string { return fmt.Sprintf("http://example.org/r/%06d", i) }

// countingView counts the batches a rangeFinder hands to Find.
type countingView struct {
	*state.View
	finds, found int
}

func (v *countingView) Find(ctx context.Context, uris []string, found func(int, *state.Known) error) error {
	v.finds++
	v.found += len(uris)
	return v.View.Find(ctx, uris, found)
}

// foundRow is what a look-up reported at one index.
type foundRow struct {
	id      int64
	path    string
	length  int64
	pending bool
}

func lookUp(t *testing.T, fn func(func(int, *state.Known) error) error) map[int][]foundRow {
	t.Helper()
	got := map[int][]foundRow{}
	err := fn(func(i int, k *state.Known) error {
		got[i] = append(got[i], foundRow{k.ID, k.Path, k.Length, k.Pending})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRangeFinder: a batch looked up by the range of its URIs finds what
// state.View.Find finds, whatever the batch's order (sorted, reversed,
// shuffled, a URI twice, URIs without a row, another Source's rows between,
// a range holding many more rows than the batch); the batches of a list in
// URI order never go to Find, and a list in no order soon does.
func TestRangeFinder(t *testing.T) {
	const n = 3000
	db, srcID := lookupState(t, n)
	ctx := context.Background()
	seq := func(from, to, step int) []string {
		var u []string
		for i := from; i < to; i += step {
			u = append(u, lookupURI(i))
		}
		return u
	}
	shuffled := seq(0, 1000, 1)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	reversed := seq(0, 1000, 1)
	slices.Reverse(reversed)
	tests := []struct {
		name  string
		uris  []string
		finds int // batches handed to Find
	}{
		{"sorted", seq(0, 1000, 1), 0},
		{"sorted, rows without a URI between", seq(0, 1000, 2), 0},
		{"reversed", reversed, 0},
		{"shuffled", shuffled, 0},
		{"a URI twice, URIs without a row", []string{lookupURI(5), lookupURI(5) + "a", lookupURI(5), "http://example.org/r/0000055", lookupURI(7), lookupURI(3), lookupURI(5)}, 0},
		{"the same, over the whole state", []string{lookupURI(5), "http://example.org/a", lookupURI(5), "http://example.org/r/0000055", lookupURI(7), "http://example.org/z", lookupURI(5)}, 1},
		{"one URI", []string{lookupURI(2999)}, 0},
		{"none has a row", []string{"http://example.org/r/x", "http://example.org/r/y"}, 0},
		{"none has a row, over the whole state", []string{"http://example.net/", "http://example.org/r/x"}, 1},
		{"scattered: the range holds many more rows", seq(0, n, 50), 1},
		{"scattered and a URI twice", append(seq(0, n, 100), lookupURI(2900), lookupURI(0)), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := lookUp(t, func(fn func(int, *state.Known) error) error { return db.View(srcID).Find(ctx, tt.uris, fn) })
			v := &countingView{View: db.View(srcID)}
			var f rangeFinder
			got := lookUp(t, func(fn func(int, *state.Known) error) error { return f.find(ctx, v, tt.uris, fn) })
			if len(got) != len(want) {
				t.Errorf("%d found, want %d", len(got), len(want))
			}
			for i, w := range want {
				if g := got[i]; !slices.Equal(g, w) {
					t.Errorf("at %d (%s): %v, want %v", i, tt.uris[i], g, w)
				}
			}
			if v.finds != tt.finds {
				t.Errorf("%d batches to Find, want %d", v.finds, tt.finds)
			}
		})
	}

	// Whole lists, a batch at a time, as the snapshot hands them.
	lists := []struct {
		name       string
		uris       []string
		maxQueried int
	}{
		{"in URI order", seq(0, n, 1), 0},
		{"in no order", func() []string {
			u := seq(0, n, 1)
			rand.New(rand.NewPCG(3, 4)).Shuffle(len(u), func(i, j int) { u[i], u[j] = u[j], u[i] })
			return u
		}(), 100},
	}
	for _, l := range lists {
		t.Run(l.name, func(t *testing.T) {
			v := &countingView{View: db.View(srcID)}
			var f rangeFinder
			found := 0
			const batch = 100
			for start := 0; start < len(l.uris); start += batch {
				err := f.find(ctx, v, l.uris[start:min(start+batch, len(l.uris))], func(i int, k *state.Known) error {
					if want := "example.org/r/" + strings.TrimPrefix(l.uris[start+i], "http://example.org/r/"); k.Path != want {
						t.Errorf("%s found as %s", l.uris[start+i], k.Path)
					}
					found++
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if found != n {
				t.Errorf("%d found of %d", found, n)
			}
			if l.maxQueried == 0 && (v.finds > 0 || f.queried > 0) {
				t.Errorf("a list in URI order: %d batches to Find (%d straight away), want none", v.finds, f.queried)
			}
			if l.maxQueried > 0 && f.queried == 0 {
				t.Errorf("a list in no order: every batch tried a range first (%d ranged)", f.ranged)
			}
		})
	}
}

// BenchmarkAuditLookups is the cost of looking a Resource List in URI
// order up in the state, a resource at a time (ns/resource), a batch of
// state.LookupBatch as the snapshot hands them: by state.View.Find (the
// audit before) and by rangeFinder (the audit now), over a state of 20,000
// rows (RSX_LOOKUP_ROWS=N for another size).
//
//	go test ./dest/engine/ -run '^$' -bench AuditLookups -benchtime 5x
func BenchmarkAuditLookups(b *testing.B) {
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("RSX_LOOKUP_ROWS")); err == nil && v > 0 {
		n = v
	}
	db, srcID := lookupState(b, n)
	uris := make([]string, n)
	for i := range uris {
		uris[i] = lookupURI(i)
	}
	ctx := context.Background()
	for _, how := range []string{"find", "range"} {
		b.Run(how, func(b *testing.B) {
			v := db.View(srcID)
			for b.Loop() {
				var f rangeFinder
				found := 0
				for start := 0; start < n; start += state.LookupBatch {
					batch := uris[start:min(start+state.LookupBatch, n)]
					fn := func(int, *state.Known) error { found++; return nil }
					var err error
					if how == "find" {
						err = v.Find(ctx, batch, fn)
					} else {
						err = f.find(ctx, v, batch, fn)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if found != n {
					b.Fatalf("%d found of %d", found, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/resource")
		})
	}
}
